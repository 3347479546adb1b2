CREATE TABLE `project_hook_rules` (
	`project_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`choice` text NOT NULL,
	`updated_by` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `rule_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Hand-written (drizzle-kit does not generate triggers), to the end of the file: a configuration table bumps the epoch.
CREATE TRIGGER `project_hook_rules_epoch_insert` AFTER INSERT ON `project_hook_rules` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `project_hook_rules_epoch_update` AFTER UPDATE ON `project_hook_rules` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `project_hook_rules_epoch_delete` AFTER DELETE ON `project_hook_rules` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
