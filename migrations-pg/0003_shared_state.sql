CREATE TABLE "rate_counters" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"window_start" bigint NOT NULL,
	"count" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "rate_counters_scope_key_window_start_pk" PRIMARY KEY("scope","key","window_start")
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"x" text NOT NULL,
	"d" text NOT NULL,
	"created_at" bigint NOT NULL,
	"retired_at" bigint
);
