CREATE TABLE `org_policies` (
	`organization_id` text PRIMARY KEY NOT NULL,
	`required_talents` text NOT NULL,
	`allowed_talents` text,
	`updated_by` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TRIGGER `org_policies_epoch_insert` AFTER INSERT ON `org_policies` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `org_policies_epoch_update` AFTER UPDATE ON `org_policies` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `org_policies_epoch_delete` AFTER DELETE ON `org_policies` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
