-- Hand-written (drizzle-kit does not generate triggers): the work of SQLite's triggers
-- (migrations/*.sql) as PostgreSQL trigger functions. test/db/schema-dialects.test.ts holds the
-- two dialects to the same triggers by purpose: the configuration epoch on every table of
-- src/db/epoch.ts EPOCH_TABLES, the append-only guard of the audit log, the selection revision
-- and the kept counts of the activity log.

-- The configuration epoch (src/db/epoch.ts): one row, bumped by every change to a configuration
-- table. One trigger per table and statement (SQLite: three per table, per row): a bump per
-- statement is enough for a cache that only compares epochs. The bump locks the row until the
-- transaction ends, so transactions changing configuration take turns, as on SQLite.
CREATE TABLE "config_epoch" (
	"id" integer PRIMARY KEY NOT NULL CHECK ("id" = 1),
	"epoch" bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO "config_epoch" ("id", "epoch") VALUES (1, 0);
--> statement-breakpoint
CREATE FUNCTION talentd_bump_config_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "config_epoch" SET "epoch" = "epoch" + 1 WHERE "id" = 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['api_keys', 'expertise_versions', 'expertises', 'external_accounts', 'installed_talents',
    'invitations', 'key_tombstones', 'members', 'oauth_clients', 'oauth_codes', 'oauth_tokens', 'organizations',
    'org_policies', 'password_resets', 'project_relevance', 'projects', 'sessions', 'setup_tokens', 'specializations',
    'sso_connections', 'sso_domains', 'sso_nonces', 'users', 'email_verifications', 'pending_links', 'project_hook_rules']
  LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH STATEMENT EXECUTE FUNCTION talentd_bump_config_epoch()',
      t || '_epoch', t);
  END LOOP;
END $$;
--> statement-breakpoint

-- The audit log is append-only: an update is refused (housekeeping's retention deletes).
CREATE FUNCTION talentd_audit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_entries is append-only' USING ERRCODE = 'integrity_constraint_violation';
END $$;
--> statement-breakpoint
CREATE TRIGGER "audit_entries_append_only" BEFORE UPDATE ON "audit_entries"
  FOR EACH ROW EXECUTE FUNCTION talentd_audit_entries_append_only();
--> statement-breakpoint

-- A project's selection revision moves with every change to its installed talents.
CREATE FUNCTION talentd_installed_talents_rev() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "projects" SET "selection_rev" = "selection_rev" + 1 WHERE "id" = OLD."project_id";
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW."project_id" IS DISTINCT FROM OLD."project_id") THEN
    UPDATE "projects" SET "selection_rev" = "selection_rev" + 1 WHERE "id" = NEW."project_id";
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "installed_talents_rev" AFTER INSERT OR UPDATE OR DELETE ON "installed_talents"
  FOR EACH ROW EXECUTE FUNCTION talentd_installed_talents_rev();
--> statement-breakpoint

-- Kept counts of the activity log, in the transaction of the write they count.
-- trace_hours: a project's events per hour, kind and client.
CREATE FUNCTION talentd_trace_hours_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "trace_hours" ("project_id", "hour", "kind", "client", "client_null", "events", "failed")
    VALUES (NEW."project_id", NEW."created_at" / 3600000, NEW."kind", coalesce(NEW."client", ''), (NEW."client" IS NULL)::int, 1,
      (NEW."status" >= 400)::int)
    ON CONFLICT ("project_id", "hour", "kind", "client", "client_null")
    DO UPDATE SET "events" = "trace_hours"."events" + 1, "failed" = "trace_hours"."failed" + excluded."failed";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "trace_hours_event" AFTER INSERT ON "trace_events" FOR EACH ROW EXECUTE FUNCTION talentd_trace_hours_event();
--> statement-breakpoint

-- resolution_hours: resolutions, reports and verdicts per project and hour.
CREATE FUNCTION talentd_resolution_hours_resolution() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "resolution_hours" ("project_id", "hour", "resolutions") VALUES (NEW."project_id", NEW."created_at" / 3600000, 1)
    ON CONFLICT ("project_id", "hour") DO UPDATE SET "resolutions" = "resolution_hours"."resolutions" + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "resolution_hours_resolution" AFTER INSERT ON "resolutions" FOR EACH ROW EXECUTE FUNCTION talentd_resolution_hours_resolution();
--> statement-breakpoint
CREATE FUNCTION talentd_resolution_hours_report() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "resolution_hours" ("project_id", "hour", "reports") VALUES (NEW."project_id", NEW."created_at" / 3600000, 1)
    ON CONFLICT ("project_id", "hour") DO UPDATE SET "reports" = "resolution_hours"."reports" + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "resolution_hours_report" AFTER INSERT ON "reports" FOR EACH ROW EXECUTE FUNCTION talentd_resolution_hours_report();
--> statement-breakpoint
CREATE FUNCTION talentd_resolution_hours_verdict() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "resolution_hours" SET "pass" = "pass" + (NEW."verdict" = 'pass')::int, "fail" = "fail" + (NEW."verdict" = 'fail')::int,
    "not_applicable" = "not_applicable" + (NEW."verdict" = 'not_applicable')::int
  WHERE ("project_id", "hour") IN (SELECT rep."project_id", rep."created_at" / 3600000 FROM "reports" rep WHERE rep."id" = NEW."report_id");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "resolution_hours_verdict" AFTER INSERT ON "report_results" FOR EACH ROW EXECUTE FUNCTION talentd_resolution_hours_verdict();
--> statement-breakpoint

-- talent_days: one talent's use in one project per UTC day and version served.
CREATE FUNCTION talentd_talent_days_resolution() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "talent_days" ("project_id", "talent_id", "day", "version", "expertise_id", "designated", "first_at", "last_at")
    SELECT NEW."project_id", d."talent_id", NEW."created_at" / 86400000, d."version", d."expertise_id", 1, NEW."created_at", NEW."created_at"
    FROM "designation_items" d WHERE d."designation_id" = NEW."designation_id"
    ON CONFLICT ("project_id", "talent_id", "day", "version") DO UPDATE SET "designated" = "talent_days"."designated" + 1,
      -- SQLite's max(a, b) is NULL when either is: coalesce picks the one present, as there
      "expertise_id" = coalesce(CASE WHEN "talent_days"."expertise_id" IS NULL OR excluded."expertise_id" IS NULL THEN NULL
        ELSE greatest("talent_days"."expertise_id", excluded."expertise_id") END, "talent_days"."expertise_id", excluded."expertise_id"),
      "first_at" = least("talent_days"."first_at", excluded."first_at"), "last_at" = greatest("talent_days"."last_at", excluded."last_at");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "talent_days_resolution" AFTER INSERT ON "resolutions" FOR EACH ROW EXECUTE FUNCTION talentd_talent_days_resolution();
--> statement-breakpoint

-- The first successful `validate` event of a resolution counts it audited (per day and version
-- in talent_days, per tool in talent_client_days).
CREATE FUNCTION talentd_first_audit(ev "trace_events") RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT ev."resolution_id" IS NOT NULL AND ev."kind" = 'validate' AND ev."status" BETWEEN 200 AND 299
    AND NOT EXISTS (SELECT 1 FROM "trace_events" t WHERE t."resolution_id" = ev."resolution_id" AND t."kind" = 'validate'
      AND t."status" BETWEEN 200 AND 299 AND t."id" <> ev."id")
$$;
--> statement-breakpoint
CREATE FUNCTION talentd_talent_days_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT talentd_first_audit(NEW) THEN RETURN NULL; END IF;
  UPDATE "talent_days" SET "audited" = "audited" + 1 WHERE ("project_id", "talent_id", "day", "version") IN (
    SELECT r."project_id", d."talent_id", r."created_at" / 86400000, d."version"
    FROM "resolutions" r JOIN "designation_items" d ON d."designation_id" = r."designation_id" WHERE r."id" = NEW."resolution_id");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "talent_days_audit" AFTER INSERT ON "trace_events" FOR EACH ROW EXECUTE FUNCTION talentd_talent_days_audit();
--> statement-breakpoint
CREATE FUNCTION talentd_talent_client_days_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT talentd_first_audit(NEW) THEN RETURN NULL; END IF;
  UPDATE "talent_client_days" SET "audited" = "audited" + 1 WHERE ("project_id", "day", "talent_id", "client") IN (
    SELECT r."project_id", r."created_at" / 86400000, d."talent_id",
      coalesce((SELECT p."client" FROM "trace_events" p WHERE p."resolution_id" = NEW."resolution_id" AND p."kind" = 'prepare_task'
        AND p."status" BETWEEN 200 AND 299 LIMIT 1), '')
    FROM "resolutions" r JOIN "designation_items" d ON d."designation_id" = r."designation_id" WHERE r."id" = NEW."resolution_id");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "talent_client_days_audit" AFTER INSERT ON "trace_events" FOR EACH ROW EXECUTE FUNCTION talentd_talent_client_days_audit();
--> statement-breakpoint

-- A report result: the verdicts, and the latest report's verdict per resolution (`latest_*`),
-- moved from the previous latest when this report is the later one.
CREATE FUNCTION talentd_talent_days_verdict() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE prev text;
BEGIN
  UPDATE "talent_days" SET
    "pass" = "pass" + (NEW."verdict" = 'pass')::int, "fail" = "fail" + (NEW."verdict" = 'fail')::int,
    "not_applicable" = "not_applicable" + (NEW."verdict" = 'not_applicable')::int
  WHERE ("project_id", "talent_id", "day", "version") IN (
    SELECT r."project_id", d."talent_id", r."created_at" / 86400000, d."version"
    FROM "reports" rep JOIN "resolutions" r ON r."id" = rep."resolution_id"
    JOIN "designation_items" d ON d."designation_id" = r."designation_id" AND d."talent_id" = NEW."talent_id"
    WHERE rep."id" = NEW."report_id");
  IF EXISTS (SELECT 1 FROM "reports" me
    JOIN "reports" o ON o."resolution_id" = me."resolution_id" AND o."id" <> me."id"
    JOIN "report_results" orr ON orr."report_id" = o."id" AND orr."talent_id" = NEW."talent_id"
    WHERE me."id" = NEW."report_id" AND (o."created_at", o."id") > (me."created_at", me."id")) THEN
    RETURN NULL;
  END IF;
  -- the latest verdict among the resolution's other reports, NULL when none
  SELECT orr."verdict" INTO prev FROM "reports" me JOIN "reports" o ON o."resolution_id" = me."resolution_id" AND o."id" <> me."id"
    JOIN "report_results" orr ON orr."report_id" = o."id" AND orr."talent_id" = NEW."talent_id"
    WHERE me."id" = NEW."report_id" ORDER BY o."created_at" DESC, o."id" DESC LIMIT 1;
  UPDATE "talent_days" SET
    "latest_pass" = "latest_pass" + (NEW."verdict" = 'pass')::int - (prev IS NOT DISTINCT FROM 'pass')::int,
    "latest_fail" = "latest_fail" + (NEW."verdict" = 'fail')::int - (prev IS NOT DISTINCT FROM 'fail')::int,
    "latest_not_applicable" = "latest_not_applicable" + (NEW."verdict" = 'not_applicable')::int - (prev IS NOT DISTINCT FROM 'not_applicable')::int
  WHERE ("project_id", "talent_id", "day", "version") IN (
    SELECT r."project_id", d."talent_id", r."created_at" / 86400000, d."version"
    FROM "reports" rep JOIN "resolutions" r ON r."id" = rep."resolution_id"
    JOIN "designation_items" d ON d."designation_id" = r."designation_id" AND d."talent_id" = NEW."talent_id"
    WHERE rep."id" = NEW."report_id");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "talent_days_verdict" AFTER INSERT ON "report_results" FOR EACH ROW EXECUTE FUNCTION talentd_talent_days_verdict();
