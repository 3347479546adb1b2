CREATE TABLE `sso_domains` (
	`domain` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `sso_connections`(`organization_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sso_domains_org_idx` ON `sso_domains` (`organization_id`);--> statement-breakpoint
-- Hand-written (drizzle-kit does not move data): each connection's one domain becomes its first row of sso_domains, before the column goes.
INSERT INTO `sso_domains` (`domain`, `organization_id`, `created_at`) SELECT lower(`domain`), `organization_id`, `created_at` FROM `sso_connections`;--> statement-breakpoint
CREATE TABLE `sso_nonces` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`organization_id` text,
	`value` text DEFAULT '' NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`kind`, `id`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sso_nonces_expires_idx` ON `sso_nonces` (`expires_at`);--> statement-breakpoint
DROP INDEX `sso_connections_domain_uq`;--> statement-breakpoint
ALTER TABLE `sso_connections` ADD `enforce` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sso_connections` DROP COLUMN `domain`;