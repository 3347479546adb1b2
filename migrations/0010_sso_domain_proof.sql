CREATE TABLE `email_verifications` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`email` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_verifications_user_idx` ON `email_verifications` (`user_id`);--> statement-breakpoint
CREATE TABLE `pending_links` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`provider_user_id` text NOT NULL,
	`user_id` text NOT NULL,
	`organization_id` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `pending_links_user_idx` ON `pending_links` (`user_id`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_sso_domains` (
	`organization_id` text NOT NULL,
	`domain` text NOT NULL,
	`token` text DEFAULT '' NOT NULL,
	`verified_at` integer,
	`verified_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`organization_id`, `domain`),
	FOREIGN KEY (`organization_id`) REFERENCES `sso_connections`(`organization_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Hand-written (the generated copy named columns the old table lacks): a claim made before
-- domains were proven is kept pending with a fresh token; it routes again once verified.
INSERT INTO `__new_sso_domains`("organization_id", "domain", "token", "verified_at", "verified_by", "created_at") SELECT "organization_id", "domain", lower(hex(randomblob(16))), NULL, NULL, "created_at" FROM `sso_domains`;--> statement-breakpoint
DROP TABLE `sso_domains`;--> statement-breakpoint
ALTER TABLE `__new_sso_domains` RENAME TO `sso_domains`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `sso_domains_verified_uq` ON `sso_domains` (`domain`) WHERE `verified_at` IS NOT NULL;--> statement-breakpoint
CREATE INDEX `sso_domains_domain_idx` ON `sso_domains` (`domain`);--> statement-breakpoint
ALTER TABLE `users` ADD `email_verified_at` integer;--> statement-breakpoint
-- Hand-written: accounts whose address was already proven (the platform administrator set up
-- from the server's log, a provider that vouched for it, an accepted invitation, a used reset
-- link) start verified; the others verify through a mailed link.
UPDATE `users` SET `email_verified_at` = `created_at` WHERE `role` = 'admin'
  OR `id` IN (SELECT `user_id` FROM `external_accounts`)
  OR `id` IN (SELECT `user_id` FROM `password_resets` WHERE `used_at` IS NOT NULL)
  OR `email` IN (SELECT `email` FROM `invitations` WHERE `status` = 'accepted');--> statement-breakpoint
-- Hand-written: the configuration epoch's triggers (src/db/epoch.ts) for the new tables and the
-- rebuilt sso_domains (dropping a table drops its triggers).
CREATE TRIGGER `sso_domains_epoch_insert` AFTER INSERT ON `sso_domains` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;--> statement-breakpoint
CREATE TRIGGER `sso_domains_epoch_update` AFTER UPDATE ON `sso_domains` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;--> statement-breakpoint
CREATE TRIGGER `sso_domains_epoch_delete` AFTER DELETE ON `sso_domains` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;--> statement-breakpoint
CREATE TRIGGER `email_verifications_epoch_insert` AFTER INSERT ON `email_verifications` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;--> statement-breakpoint
CREATE TRIGGER `email_verifications_epoch_update` AFTER UPDATE ON `email_verifications` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;--> statement-breakpoint
CREATE TRIGGER `email_verifications_epoch_delete` AFTER DELETE ON `email_verifications` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;--> statement-breakpoint
CREATE TRIGGER `pending_links_epoch_insert` AFTER INSERT ON `pending_links` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;--> statement-breakpoint
CREATE TRIGGER `pending_links_epoch_update` AFTER UPDATE ON `pending_links` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;--> statement-breakpoint
CREATE TRIGGER `pending_links_epoch_delete` AFTER DELETE ON `pending_links` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
