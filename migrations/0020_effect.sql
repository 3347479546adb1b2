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
