ALTER TABLE "report_results" ADD COLUMN "position" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- the rows recorded before: their place in their report in the order they lie in the table (no
-- row of report_results is ever updated, so that is the order they were inserted in)
UPDATE "report_results" SET "position" = o."n" FROM (
  SELECT "report_id", "talent_id", row_number() OVER (PARTITION BY "report_id" ORDER BY ctid) - 1 AS "n" FROM "report_results"
) o WHERE o."report_id" = "report_results"."report_id" AND o."talent_id" = "report_results"."talent_id";
