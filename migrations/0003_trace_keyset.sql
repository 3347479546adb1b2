DROP INDEX `trace_events_project_idx`;--> statement-breakpoint
CREATE INDEX `trace_events_project_id_idx` ON `trace_events` (`project_id`,`id`);