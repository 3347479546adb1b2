CREATE TABLE `resolution_hours` (
	`project_id` text NOT NULL,
	`hour` integer NOT NULL,
	`resolutions` integer DEFAULT 0 NOT NULL,
	`reports` integer DEFAULT 0 NOT NULL,
	`pass` integer DEFAULT 0 NOT NULL,
	`fail` integer DEFAULT 0 NOT NULL,
	`not_applicable` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `hour`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `talent_days` (
	`project_id` text NOT NULL,
	`talent_id` text NOT NULL,
	`day` integer NOT NULL,
	`version` text NOT NULL,
	`expertise_id` text,
	`designated` integer DEFAULT 0 NOT NULL,
	`audited` integer DEFAULT 0 NOT NULL,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	`pass` integer DEFAULT 0 NOT NULL,
	`fail` integer DEFAULT 0 NOT NULL,
	`not_applicable` integer DEFAULT 0 NOT NULL,
	`latest_pass` integer DEFAULT 0 NOT NULL,
	`latest_fail` integer DEFAULT 0 NOT NULL,
	`latest_not_applicable` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `talent_id`, `day`, `version`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `trace_hours` (
	`project_id` text NOT NULL,
	`hour` integer NOT NULL,
	`kind` text NOT NULL,
	`client` text NOT NULL,
	`client_null` integer NOT NULL,
	`events` integer NOT NULL,
	`failed` integer NOT NULL,
	PRIMARY KEY(`project_id`, `hour`, `kind`, `client`, `client_null`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Hand-written (drizzle-kit does not generate triggers or backfills), down to "End of hand-written block".
-- talent_days is kept by the writes it counts, in their own transaction. A resolution counts once per designated
-- talent (its designation's items are written before it, src/resolution/prepare.ts); the first
-- successful `validate` event of a resolution makes it audited; a report result counts its
-- verdict, and moves the resolution's outcome when its report is the latest for that talent.
CREATE TRIGGER `talent_days_resolution` AFTER INSERT ON `resolutions` BEGIN
  INSERT INTO `talent_days` (`project_id`, `talent_id`, `day`, `version`, `expertise_id`, `designated`, `first_at`, `last_at`)
    SELECT NEW.`project_id`, d.`talent_id`, NEW.`created_at` / 86400000, d.`version`, d.`expertise_id`, 1, NEW.`created_at`, NEW.`created_at`
    FROM `designation_items` d WHERE d.`designation_id` = NEW.`designation_id`
    ON CONFLICT (`project_id`, `talent_id`, `day`, `version`) DO UPDATE SET `designated` = `designated` + 1,
      `expertise_id` = coalesce(max(`expertise_id`, excluded.`expertise_id`), `expertise_id`, excluded.`expertise_id`),
      `first_at` = min(`first_at`, excluded.`first_at`), `last_at` = max(`last_at`, excluded.`last_at`);
END;
--> statement-breakpoint
CREATE TRIGGER `talent_days_audit` AFTER INSERT ON `trace_events`
  WHEN NEW.`resolution_id` IS NOT NULL AND NEW.`kind` = 'validate' AND NEW.`status` BETWEEN 200 AND 299
    AND NOT EXISTS (SELECT 1 FROM `trace_events` t WHERE t.`resolution_id` = NEW.`resolution_id` AND t.`kind` = 'validate'
      AND t.`status` BETWEEN 200 AND 299 AND t.`id` <> NEW.`id`)
BEGIN
  UPDATE `talent_days` SET `audited` = `audited` + 1 WHERE (`project_id`, `talent_id`, `day`, `version`) IN (
    SELECT r.`project_id`, d.`talent_id`, r.`created_at` / 86400000, d.`version`
    FROM `resolutions` r JOIN `designation_items` d ON d.`designation_id` = r.`designation_id` WHERE r.`id` = NEW.`resolution_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `talent_days_verdict` AFTER INSERT ON `report_results` BEGIN
  UPDATE `talent_days` SET
    `pass` = `pass` + (NEW.`verdict` = 'pass'), `fail` = `fail` + (NEW.`verdict` = 'fail'),
    `not_applicable` = `not_applicable` + (NEW.`verdict` = 'not_applicable')
  WHERE (`project_id`, `talent_id`, `day`, `version`) IN (
    SELECT r.`project_id`, d.`talent_id`, r.`created_at` / 86400000, d.`version`
    FROM `reports` rep JOIN `resolutions` r ON r.`id` = rep.`resolution_id`
    JOIN `designation_items` d ON d.`designation_id` = r.`designation_id` AND d.`talent_id` = NEW.`talent_id`
    WHERE rep.`id` = NEW.`report_id`);
  -- the outcome: only when no other report of the resolution with a result for the talent is later
  -- (`prev`: the latest verdict among the resolution's other reports, NULL when none)
  UPDATE `talent_days` SET
    `latest_pass` = `latest_pass` + (NEW.`verdict` = 'pass') - ((SELECT orr.`verdict` FROM `reports` me JOIN `reports` o ON o.`resolution_id` = me.`resolution_id` AND o.`id` <> me.`id`
      JOIN `report_results` orr ON orr.`report_id` = o.`id` AND orr.`talent_id` = NEW.`talent_id`
      WHERE me.`id` = NEW.`report_id` ORDER BY o.`created_at` DESC, o.`id` DESC LIMIT 1) IS 'pass'),
    `latest_fail` = `latest_fail` + (NEW.`verdict` = 'fail') - ((SELECT orr.`verdict` FROM `reports` me JOIN `reports` o ON o.`resolution_id` = me.`resolution_id` AND o.`id` <> me.`id`
      JOIN `report_results` orr ON orr.`report_id` = o.`id` AND orr.`talent_id` = NEW.`talent_id`
      WHERE me.`id` = NEW.`report_id` ORDER BY o.`created_at` DESC, o.`id` DESC LIMIT 1) IS 'fail'),
    `latest_not_applicable` = `latest_not_applicable` + (NEW.`verdict` = 'not_applicable') - ((SELECT orr.`verdict` FROM `reports` me JOIN `reports` o ON o.`resolution_id` = me.`resolution_id` AND o.`id` <> me.`id`
      JOIN `report_results` orr ON orr.`report_id` = o.`id` AND orr.`talent_id` = NEW.`talent_id`
      WHERE me.`id` = NEW.`report_id` ORDER BY o.`created_at` DESC, o.`id` DESC LIMIT 1) IS 'not_applicable')
  WHERE (`project_id`, `talent_id`, `day`, `version`) IN (
    SELECT r.`project_id`, d.`talent_id`, r.`created_at` / 86400000, d.`version`
    FROM `reports` rep JOIN `resolutions` r ON r.`id` = rep.`resolution_id`
    JOIN `designation_items` d ON d.`designation_id` = r.`designation_id` AND d.`talent_id` = NEW.`talent_id`
    WHERE rep.`id` = NEW.`report_id`)
  AND NOT EXISTS (SELECT 1 FROM `reports` me
    JOIN `reports` o ON o.`resolution_id` = me.`resolution_id` AND o.`id` <> me.`id`
    JOIN `report_results` orr ON orr.`report_id` = o.`id` AND orr.`talent_id` = NEW.`talent_id`
    WHERE me.`id` = NEW.`report_id` AND (o.`created_at`, o.`id`) > (me.`created_at`, me.`id`));
END;
--> statement-breakpoint
-- Backfill from the rows already written (the same counts the triggers keep).
INSERT INTO `talent_days` (`project_id`, `talent_id`, `day`, `version`, `expertise_id`, `designated`, `audited`, `first_at`, `last_at`)
  SELECT r.`project_id`, d.`talent_id`, r.`created_at` / 86400000, d.`version`, max(d.`expertise_id`), count(*),
    sum(EXISTS (SELECT 1 FROM `trace_events` t WHERE t.`resolution_id` = r.`id` AND t.`kind` = 'validate' AND t.`status` BETWEEN 200 AND 299)),
    min(r.`created_at`), max(r.`created_at`)
  FROM `resolutions` r JOIN `designation_items` d ON d.`designation_id` = r.`designation_id`
  GROUP BY r.`project_id`, d.`talent_id`, r.`created_at` / 86400000, d.`version`;
--> statement-breakpoint
UPDATE `talent_days` SET `pass` = v.`pass`, `fail` = v.`fail`, `not_applicable` = v.`not_applicable`,
  `latest_pass` = v.`latest_pass`, `latest_fail` = v.`latest_fail`, `latest_not_applicable` = v.`latest_not_applicable`
FROM (
  SELECT `project_id`, `talent_id`, `day`, `version`, sum(`verdict` = 'pass') AS `pass`, sum(`verdict` = 'fail') AS `fail`,
    sum(`verdict` = 'not_applicable') AS `not_applicable`, sum(k = 1 AND `verdict` = 'pass') AS `latest_pass`,
    sum(k = 1 AND `verdict` = 'fail') AS `latest_fail`, sum(k = 1 AND `verdict` = 'not_applicable') AS `latest_not_applicable`
  FROM (
    SELECT r.`project_id`, d.`talent_id`, r.`created_at` / 86400000 AS `day`, d.`version`, rr.`verdict`,
      row_number() OVER (PARTITION BY rep.`resolution_id`, rr.`talent_id` ORDER BY rep.`created_at` DESC, rep.`id` DESC) AS k
    FROM `resolutions` r JOIN `designation_items` d ON d.`designation_id` = r.`designation_id`
    JOIN `reports` rep ON rep.`resolution_id` = r.`id`
    JOIN `report_results` rr ON rr.`report_id` = rep.`id` AND rr.`talent_id` = d.`talent_id`
  ) GROUP BY `project_id`, `talent_id`, `day`, `version`
) AS v
WHERE `talent_days`.`project_id` = v.`project_id` AND `talent_days`.`talent_id` = v.`talent_id`
  AND `talent_days`.`day` = v.`day` AND `talent_days`.`version` = v.`version`;
--> statement-breakpoint
-- trace_hours and resolution_hours: a project's events per hour, kind and client, and its
-- resolutions, reports and verdicts per hour, kept by the inserts they count.
CREATE TRIGGER `trace_hours_event` AFTER INSERT ON `trace_events` BEGIN
  INSERT INTO `trace_hours` (`project_id`, `hour`, `kind`, `client`, `client_null`, `events`, `failed`)
    VALUES (NEW.`project_id`, NEW.`created_at` / 3600000, NEW.`kind`, ifnull(NEW.`client`, ''), NEW.`client` IS NULL, 1, NEW.`status` >= 400)
    ON CONFLICT (`project_id`, `hour`, `kind`, `client`, `client_null`) DO UPDATE SET `events` = `events` + 1, `failed` = `failed` + excluded.`failed`;
END;
--> statement-breakpoint
CREATE TRIGGER `resolution_hours_resolution` AFTER INSERT ON `resolutions` BEGIN
  INSERT INTO `resolution_hours` (`project_id`, `hour`, `resolutions`) VALUES (NEW.`project_id`, NEW.`created_at` / 3600000, 1)
    ON CONFLICT (`project_id`, `hour`) DO UPDATE SET `resolutions` = `resolutions` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `resolution_hours_report` AFTER INSERT ON `reports` BEGIN
  INSERT INTO `resolution_hours` (`project_id`, `hour`, `reports`) VALUES (NEW.`project_id`, NEW.`created_at` / 3600000, 1)
    ON CONFLICT (`project_id`, `hour`) DO UPDATE SET `reports` = `reports` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `resolution_hours_verdict` AFTER INSERT ON `report_results` BEGIN
  UPDATE `resolution_hours` SET `pass` = `pass` + (NEW.`verdict` = 'pass'), `fail` = `fail` + (NEW.`verdict` = 'fail'),
    `not_applicable` = `not_applicable` + (NEW.`verdict` = 'not_applicable')
  WHERE (`project_id`, `hour`) IN (SELECT rep.`project_id`, rep.`created_at` / 3600000 FROM `reports` rep WHERE rep.`id` = NEW.`report_id`);
END;
--> statement-breakpoint
INSERT INTO `trace_hours` (`project_id`, `hour`, `kind`, `client`, `client_null`, `events`, `failed`)
  SELECT `project_id`, `created_at` / 3600000, `kind`, ifnull(`client`, ''), `client` IS NULL, count(*), sum(`status` >= 400)
  FROM `trace_events` GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
INSERT INTO `resolution_hours` (`project_id`, `hour`, `resolutions`)
  SELECT `project_id`, `created_at` / 3600000, count(*) FROM `resolutions` GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO `resolution_hours` (`project_id`, `hour`, `reports`, `pass`, `fail`, `not_applicable`)
  SELECT rep.`project_id`, rep.`created_at` / 3600000, count(DISTINCT rep.`id`), count(rr.`verdict` = 'pass' OR NULL),
    count(rr.`verdict` = 'fail' OR NULL), count(rr.`verdict` = 'not_applicable' OR NULL)
  FROM `reports` rep LEFT JOIN `report_results` rr ON rr.`report_id` = rep.`id` WHERE true GROUP BY 1, 2
  ON CONFLICT (`project_id`, `hour`) DO UPDATE SET `reports` = excluded.`reports`, `pass` = excluded.`pass`, `fail` = excluded.`fail`,
    `not_applicable` = excluded.`not_applicable`;
-- End of hand-written block.
