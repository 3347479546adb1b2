-- Shared state of replicas on PostgreSQL (docs/design.md "Several replicas: what is shared"); empty on SQLite.
CREATE TABLE `rate_counters` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `key`, `window_start`)
);
--> statement-breakpoint
CREATE TABLE `signing_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`x` text NOT NULL,
	`d` text NOT NULL,
	`created_at` integer NOT NULL,
	`retired_at` integer
);
