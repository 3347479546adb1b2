CREATE TABLE `evals` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`uploaded_by` text NOT NULL,
	`runs_per_arm` integer NOT NULL,
	`tasks` integer NOT NULL,
	`runs` integer NOT NULL,
	`summary` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `evals_project_created` ON `evals` (`project_id`,`created_at`);