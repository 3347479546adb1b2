CREATE TABLE `key_tombstones` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`project_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`created_by` text NOT NULL,
	`expires_at` integer,
	`deleted_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
