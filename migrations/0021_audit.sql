CREATE TABLE `audit_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`at` integer NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text NOT NULL,
	`actor_label` text NOT NULL,
	`action` text NOT NULL,
	`object_kind` text NOT NULL,
	`object_id` text NOT NULL,
	`before` text,
	`after` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `audit_entries_org_idx` ON `audit_entries` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_entries_at_idx` ON `audit_entries` (`at`);--> statement-breakpoint
CREATE TRIGGER audit_entries_append_only BEFORE UPDATE ON audit_entries BEGIN SELECT RAISE(ABORT, 'audit_entries is append-only'); END;
