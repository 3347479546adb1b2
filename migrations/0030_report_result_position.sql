ALTER TABLE `report_results` ADD `position` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- the rows recorded before: their place in their report from the order they were inserted (rowid)
UPDATE `report_results` SET `position` = (
  SELECT count(*) FROM `report_results` p WHERE p.`report_id` = `report_results`.`report_id` AND p.`rowid` < `report_results`.`rowid`
);
