CREATE TABLE `rule_finding_days` (
	`project_id` text NOT NULL,
	`day` integer NOT NULL,
	`talent_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`client` text NOT NULL,
	`served` integer NOT NULL,
	`findings` integer DEFAULT 0 NOT NULL,
	`reports` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `day`, `talent_id`, `rule_id`, `client`, `served`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `talent_client_days` (
	`project_id` text NOT NULL,
	`day` integer NOT NULL,
	`talent_id` text NOT NULL,
	`client` text NOT NULL,
	`served` integer DEFAULT 0 NOT NULL,
	`audited` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `day`, `talent_id`, `client`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Hand-written (drizzle-kit does not generate triggers), to the end of the file.
-- talent_client_days: a resolution's talents counted once for the client of its prepare_task event, on the resolution's day;
-- its first successful `validate` event counts them audited for that same client.
CREATE TRIGGER `talent_client_days_served` AFTER INSERT ON `trace_events`
  WHEN NEW.`resolution_id` IS NOT NULL AND NEW.`kind` = 'prepare_task' AND NEW.`status` BETWEEN 200 AND 299
BEGIN
  INSERT INTO `talent_client_days` (`project_id`, `day`, `talent_id`, `client`, `served`, `audited`)
    SELECT r.`project_id`, r.`created_at` / 86400000, d.`talent_id`, coalesce(NEW.`client`, ''), 1, 0
    FROM `resolutions` r JOIN `designation_items` d ON d.`designation_id` = r.`designation_id` WHERE r.`id` = NEW.`resolution_id`
    ON CONFLICT (`project_id`, `day`, `talent_id`, `client`) DO UPDATE SET `served` = `served` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `talent_client_days_audit` AFTER INSERT ON `trace_events`
  WHEN NEW.`resolution_id` IS NOT NULL AND NEW.`kind` = 'validate' AND NEW.`status` BETWEEN 200 AND 299
    AND NOT EXISTS (SELECT 1 FROM `trace_events` t WHERE t.`resolution_id` = NEW.`resolution_id` AND t.`kind` = 'validate'
      AND t.`status` BETWEEN 200 AND 299 AND t.`id` <> NEW.`id`)
BEGIN
  UPDATE `talent_client_days` SET `audited` = `audited` + 1 WHERE (`project_id`, `day`, `talent_id`, `client`) IN (
    SELECT r.`project_id`, r.`created_at` / 86400000, d.`talent_id`,
      coalesce((SELECT p.`client` FROM `trace_events` p WHERE p.`resolution_id` = NEW.`resolution_id` AND p.`kind` = 'prepare_task'
        AND p.`status` BETWEEN 200 AND 299 LIMIT 1), '')
    FROM `resolutions` r JOIN `designation_items` d ON d.`designation_id` = r.`designation_id` WHERE r.`id` = NEW.`resolution_id`);
END;
