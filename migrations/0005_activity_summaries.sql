DROP INDEX `resolutions_project_idx`;--> statement-breakpoint
CREATE INDEX `resolutions_project_idx` ON `resolutions` (`project_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `trace_events_resolution_idx`;--> statement-breakpoint
CREATE INDEX `trace_events_summary_idx` ON `trace_events` (`project_id`,"created_at" / 3600000,`kind`,`client`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `trace_events_failed_idx` ON `trace_events` (`project_id`,`created_at`) WHERE status >= 400;--> statement-breakpoint
CREATE INDEX `trace_events_resolution_idx` ON `trace_events` (`resolution_id`,`kind`,`status`) WHERE resolution_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `reports_project_created_idx` ON `reports` (`project_id`,`created_at`);