-- Hand-written (issue 19): a resolution's items move to its designation, shared by every
-- resolution of the project that served the same talents at the same versions in the same
-- order, so a prepare-task writes one row instead of one per talent (the items were most of
-- its rows and bytes). `resolution_items` stays, as a view with the same columns, for every
-- reader. Each resolution already written gets a designation of its own (its id).
CREATE TABLE `designation_items` (
	`designation_id` text NOT NULL,
	`position` integer NOT NULL,
	`project_id` text NOT NULL,
	`talent_id` text NOT NULL,
	`kind` text NOT NULL,
	`version` text NOT NULL,
	`digest` text NOT NULL,
	`definition_digest` text NOT NULL,
	`files` text NOT NULL,
	`expertise_id` text,
	PRIMARY KEY(`designation_id`, `position`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `designation_items` (`designation_id`, `position`, `project_id`, `talent_id`, `kind`, `version`, `digest`, `definition_digest`, `files`, `expertise_id`)
  SELECT i.`resolution_id`, i.`position`, r.`project_id`, i.`talent_id`, i.`kind`, i.`version`, i.`digest`, i.`definition_digest`, i.`files`, i.`expertise_id`
  FROM `resolution_items` i JOIN `resolutions` r ON r.`id` = i.`resolution_id`;
--> statement-breakpoint
CREATE UNIQUE INDEX `designation_items_talent_uq` ON `designation_items` (`designation_id`,`talent_id`);
--> statement-breakpoint
CREATE INDEX `designation_items_project_idx` ON `designation_items` (`project_id`);
--> statement-breakpoint
ALTER TABLE `resolutions` ADD `designation_id` text DEFAULT '' NOT NULL;
--> statement-breakpoint
UPDATE `resolutions` SET `designation_id` = `id`;
--> statement-breakpoint
DROP TABLE `resolution_items`;
--> statement-breakpoint
CREATE VIEW `resolution_items` AS
  SELECT r.`id` AS `resolution_id`, d.`position`, d.`talent_id`, d.`kind`, d.`version`, d.`digest`, d.`definition_digest`, d.`files`, d.`expertise_id`
  FROM `resolutions` r JOIN `designation_items` d ON d.`designation_id` = r.`designation_id`;
