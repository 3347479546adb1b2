/** The per-project activity journal. */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { projects, type KeyScope } from "./projects";

export const traceEvents = sqliteTable(
  "trace_events",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** e.g. prepare_task, validate, record_validation, deepen.search, install, … (docs/api.md). */
    kind: text("kind").notNull(),
    via: text("via", { enum: ["api", "web", "mcp"] }).notNull(),
    authorType: text("author_type", { enum: ["key", "user", "token"] }).notNull(),
    authorId: text("author_id").notNull(),
    authorName: text("author_name").notNull(),
    /** Development tool: MCP clientInfo name/version, or the User-Agent. */
    client: text("client"),
    talentsEntered: text("talents_entered", { mode: "json" }).$type<string[]>().notNull(),
    talentsLeft: text("talents_left", { mode: "json" }).$type<string[]>().notNull(),
    resolutionId: text("resolution_id"),
    status: integer("status").notNull(),
    durationMs: integer("duration_ms").notNull(),
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: integer("created_at").notNull(),
    /** The client's run (`X-Talentd-Run`): the calls of one `talentd check`, hook or CI run share it; null otherwise. */
    runId: text("run_id"),
    /** The scope the key route requires (its descriptor's, listed in src/keyRoutes.ts); null for the web routes' events. */
    scope: text("scope").$type<KeyScope>(),
  },
  (t) => [
    index("trace_events_project_id_idx").on(t.projectId, t.id),
    // "served but never audited": does a resolution have a successful playbook fetch (insights,
    // adoption, usage); with the status the check never reads the table (migration 0005)
    index("trace_events_resolution_idx").on(t.resolutionId, t.kind, t.status).where(sql`resolution_id IS NOT NULL`),
    // the activity summaries (src/activity/daily.ts): one hour of a project's events grouped by
    // kind and client in index order — no temporary sort, no table row read (migration 0005)
    index("trace_events_summary_idx").on(t.projectId, sql`${t.createdAt} / 3600000`, t.kind, t.client, t.status, t.createdAt),
    // insights: failed calls of a project over a window, without walking its successful ones
    index("trace_events_failed_idx").on(t.projectId, t.createdAt).where(sql`status >= 400`),
  ],
);

/**
 * Kept counts of one talent's use in one project on one UTC day, per version served (the
 * usage route reads at most one row per day and version instead of the day's resolutions).
 * Maintained only by triggers, in the transaction of the write they count (migration 0012):
 * a resolution inserted (designated, first/last served), the first successful `validate` trace
 * event of a resolution (audited), a report result for a talent the resolution served (verdicts,
 * and `latest_*`: the latest report's verdict per resolution, moved when a later report arrives).
 */
export const talentDays = sqliteTable(
  "talent_days",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    talentId: text("talent_id").notNull(),
    /** UTC day number of the resolutions' created_at (created_at / 86400000). */
    day: integer("day").notNull(),
    version: text("version").notNull(),
    /** The expertise of an `@org/slug` talent as served (the greatest id when several were). */
    expertiseId: text("expertise_id"),
    designated: integer("designated").notNull().default(0),
    audited: integer("audited").notNull().default(0),
    firstAt: integer("first_at").notNull(),
    lastAt: integer("last_at").notNull(),
    pass: integer("pass").notNull().default(0),
    fail: integer("fail").notNull().default(0),
    notApplicable: integer("not_applicable").notNull().default(0),
    latestPass: integer("latest_pass").notNull().default(0),
    latestFail: integer("latest_fail").notNull().default(0),
    latestNotApplicable: integer("latest_not_applicable").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.talentId, t.day, t.version] })],
);

/**
 * Kept counts of a project's trace events per UTC hour, kind and client (`client_null`: the call
 * named no client; `client` is then ''), so the hours a summary must read again (today's) cost a
 * few rows, not the hour's events. Kept by a trigger on trace_events in the journal's own
 * transaction (migration 0012); purged with the events (src/ops/housekeeping.ts).
 */
export const traceHours = sqliteTable(
  "trace_hours",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** created_at / 3600000. */
    hour: integer("hour").notNull(),
    kind: text("kind").notNull(),
    client: text("client").notNull(),
    clientNull: integer("client_null").notNull(),
    events: integer("events").notNull(),
    failed: integer("failed").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.hour, t.kind, t.client, t.clientNull] })],
);

/**
 * Kept counts of a project's resolutions, reports and report verdicts per UTC hour of their
 * created_at (a verdict in its report's hour), kept by triggers on their inserts (migration 0012).
 */
export const resolutionHours = sqliteTable(
  "resolution_hours",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    hour: integer("hour").notNull(),
    resolutions: integer("resolutions").notNull().default(0),
    reports: integer("reports").notNull().default(0),
    pass: integer("pass").notNull().default(0),
    fail: integer("fail").notNull().default(0),
    notApplicable: integer("not_applicable").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.hour] })],
);

/**
 * Detector findings reported by the talentd client (`POST /api/findings`, src/activity/findings.ts),
 * counted per project, UTC day, talent, rule, reporting client and whether the rule's talent was
 * served to the task that produced the change (`served`: 1/0). Only counts: the client never
 * sends a path, a line or code. `reports` is how many reports named the rule (a run reports once).
 */
export const ruleFindingDays = sqliteTable(
  "rule_finding_days",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** UTC day number of the report (created_at / 86400000). */
    day: integer("day").notNull(),
    talentId: text("talent_id").notNull(),
    ruleId: text("rule_id").notNull(),
    /** The reporting run, as the journal names clients (`talentd-client/… (hook)` …); '' when none was named. */
    client: text("client").notNull(),
    served: integer("served").notNull(),
    findings: integer("findings").notNull().default(0),
    reports: integer("reports").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.day, t.talentId, t.ruleId, t.client, t.served] })],
);

/**
 * Kept counts of the talents served per development tool: per project, UTC day of the resolution,
 * talent and the client that prepared it (its `prepare_task` event's; '' when none was named) —
 * resolutions served and, of those, audited (the first 2xx `validate` event). Kept by triggers on
 * trace_events (migration 0020, hand-written end), read by rule effectiveness (src/activity/ruleEffect.ts).
 */
export const talentClientDays = sqliteTable(
  "talent_client_days",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    talentId: text("talent_id").notNull(),
    client: text("client").notNull(),
    served: integer("served").notNull().default(0),
    audited: integer("audited").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.day, t.talentId, t.client] })],
);
