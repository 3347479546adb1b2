ALTER TABLE `api_keys` ADD `automation` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `repository` text;--> statement-breakpoint
CREATE INDEX `trace_events_resolution_idx` ON `trace_events` (`resolution_id`,`kind`) WHERE resolution_id IS NOT NULL;