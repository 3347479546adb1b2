CREATE TABLE `password_resets` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `password_resets_user_idx` ON `password_resets` (`user_id`);--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `organization_id` text REFERENCES organizations(id) ON DELETE cascade;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `kind` text DEFAULT 'other' NOT NULL;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `html` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `sensitive` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `status` text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `next_attempt_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `claimed_at` integer;--> statement-breakpoint
CREATE INDEX `mail_outbox_due_idx` ON `mail_outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `mail_outbox_org_idx` ON `mail_outbox` (`organization_id`,`status`);--> statement-breakpoint
-- hand-written: mails queued before this migration only ever went to the log (there was no SMTP delivery)
UPDATE `mail_outbox` SET `status` = CASE WHEN `sent_at` IS NOT NULL THEN 'sent' ELSE 'logged' END;
