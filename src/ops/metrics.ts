/**
 * `/metrics` in the Prometheus text format (version 0.0.4). Requests are counted per route
 * pattern (`/web/projects/:id`, never the raw path: a label per project id would grow without
 * bound), method and status, with a latency histogram per route; the rest is read when scraped:
 * the write queue and commit latency, database and WAL size (`stat`, never by opening SQLite's
 * files), catalog size, active sessions, keys used in the last day, scheduled backups.
 *
 * The per-request cost is one Map lookup on a short string and a histogram observation, done
 * after the response has gone out (the edge's onAfterResponse); nothing is recorded while
 * metrics are off (METRICS_TOKEN unset). Measured in docs/performance.md (`bun run bench metrics`).
 */
import { statSync } from "node:fs";
import type { Database } from "../db/client";
import { Histogram } from "../lib/histogram";
import type { BackupStatus } from "./backups";

/** Methods kept as their own label value; anything else is counted as OTHER (bounded cardinality). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

interface RouteSeries {
  method: string;
  route: string;
  /** status → requests answered with it */
  statuses: Map<number, number>;
  latency: Histogram;
}

/** The counters the edge feeds; everything else is read when scraped. */
export class HttpMetrics {
  /** route pattern → method → series (two lookups, no string built per request) */
  readonly #byRoute = new Map<string, Map<string, RouteSeries>>();

  /** Every series, for rendering. */
  get series(): RouteSeries[] {
    return [...this.#byRoute.values()].flatMap((m) => [...m.values()]);
  }

  /** One answered request: `route` is the matched pattern (undefined when no route matched). */
  record(method: string, route: string | undefined, status: number, seconds: number): void {
    const r = route || "unmatched";
    let methods = this.#byRoute.get(r);
    if (methods === undefined) this.#byRoute.set(r, (methods = new Map()));
    let s = methods.get(method);
    if (s === undefined) {
      const m = METHODS.has(method) ? method : "OTHER"; // only the bounded label is ever stored
      s = methods.get(m);
      if (s === undefined) methods.set(m, (s = { method: m, route: r, statuses: new Map(), latency: new Histogram() }));
    }
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
    s.latency.observe(seconds);
  }
}

/** What a scrape reads besides the request counters. */
export interface MetricsSources {
  http: HttpMetrics;
  database: Database;
  /** The process state, as far as the metrics read it (the served catalog's sizes). */
  state: { catalog: { list: readonly unknown[]; broken: readonly unknown[] } | null };
  version: string;
  /** Scheduled backups, when configured. */
  backups?: () => BackupStatus;
  now?: number;
}

const DAY_MS = 24 * 3600 * 1000;
const startedAt = Date.now() / 1000;

/** A label value in the text format: backslash, double quote and line feed escaped. */
function label(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function labels(pairs: Record<string, string>): string {
  const parts = Object.entries(pairs).map(([k, v]) => `${k}="${label(v)}"`);
  return parts.length > 0 ? `{${parts.join(",")}}` : "";
}

class Text {
  lines: string[] = [];
  family(name: string, type: "counter" | "gauge" | "histogram", help: string): this {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    return this;
  }
  sample(name: string, value: number, pairs: Record<string, string> = {}): this {
    this.lines.push(`${name}${labels(pairs)} ${Number.isFinite(value) ? value : value > 0 ? "+Inf" : value < 0 ? "-Inf" : "NaN"}`);
    return this;
  }
  histogram(name: string, h: Histogram, pairs: Record<string, string> = {}): this {
    for (const [le, n] of h.cumulative()) this.sample(`${name}_bucket`, n, { ...pairs, le });
    this.sample(`${name}_sum`, h.sum, pairs);
    this.sample(`${name}_count`, h.count, pairs);
    return this;
  }
}

/** The size of a file in bytes, 0 when it does not exist (a `-wal` after a checkpoint on close). */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The process: version, start time, memory. */
function processMetrics(t: Text, src: MetricsSources): void {
  t.family("talentd_build_info", "gauge", "The running version (always 1).").sample("talentd_build_info", 1, { version: src.version });
  t.family("process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch, in seconds.").sample(
    "process_start_time_seconds",
    Math.round(startedAt),
  );
  const mem = process.memoryUsage();
  t.family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.").sample("process_resident_memory_bytes", mem.rss);
  t.family("process_heap_bytes", "gauge", "JavaScript heap in use, in bytes.").sample("process_heap_bytes", mem.heapUsed);
}

/** HTTP requests by method, route pattern and status, and their latency. */
function httpMetrics(t: Text, src: MetricsSources): void {
  const series = src.http.series.sort((a, b) => (a.route === b.route ? a.method.localeCompare(b.method) : a.route.localeCompare(b.route)));
  t.family("talentd_http_requests_total", "counter", "HTTP requests answered, by method, route pattern and status.");
  for (const s of series) {
    for (const [status, n] of [...s.statuses].sort((a, b) => a[0] - b[0])) {
      t.sample("talentd_http_requests_total", n, { method: s.method, route: s.route, status: String(status) });
    }
  }
  t.family(
    "talentd_http_request_duration_seconds",
    "histogram",
    "Time from receiving a request to handing its response over, by method and route pattern.",
  );
  for (const s of series) t.histogram("talentd_http_request_duration_seconds", s.latency, { method: s.method, route: s.route });
}

/** The database: writes queued, commit times, file sizes; the catalog's size. */
function databaseMetrics(t: Text, src: MetricsSources): void {
  const db = src.database;
  t.family(
    "talentd_db_write_queue_depth",
    "gauge",
    "Writes accepted and not yet committed (queued, waiting for the writer, or committing).",
  ).sample("talentd_db_write_queue_depth", db.writeStats.pending());
  t.family(
    "talentd_db_commit_duration_seconds",
    "histogram",
    "Time a write holds the writer until its COMMIT returns: kind=transaction (one write), kind=batch (a group commit of write jobs).",
  );
  t.histogram("talentd_db_commit_duration_seconds", db.writeStats.commits.transaction, { kind: "transaction" });
  t.histogram("talentd_db_commit_duration_seconds", db.writeStats.commits.batch, { kind: "batch" });
  if (db.path) {
    t.family("talentd_db_size_bytes", "gauge", "Size of the database file in bytes.").sample("talentd_db_size_bytes", fileSize(db.path));
    t.family(
      "talentd_db_wal_size_bytes",
      "gauge",
      "Size of the write-ahead log in bytes (checkpointed back into the database as it grows).",
    ).sample("talentd_db_wal_size_bytes", fileSize(`${db.path}-wal`));
  }
  const catalog = src.state.catalog;
  t.family("talentd_catalog_talents", "gauge", "Talents in the served catalog.").sample(
    "talentd_catalog_talents",
    catalog?.list.length ?? 0,
  );
  t.family("talentd_catalog_broken_talents", "gauge", "Talent folders skipped at load because they failed validation.").sample(
    "talentd_catalog_broken_talents",
    catalog?.broken.length ?? 0,
  );
}

/** Counts read from the database: active sessions, keys used, the mail outbox. */
async function dataMetrics(t: Text, src: MetricsSources, now: number): Promise<void> {
  const db = src.database;
  const count = async (sql: string, args: number[]): Promise<number> => Number((await db.get<{ n: number }>(sql, args))?.n ?? 0);
  t.family("talentd_sessions_active", "gauge", "Browser sessions not yet expired.").sample(
    "talentd_sessions_active",
    await count("SELECT count(*) AS n FROM sessions WHERE expires_at > ?", [now]),
  );
  t.family("talentd_api_keys_used_last_day", "gauge", "Project API keys used in the last 24 hours.").sample(
    "talentd_api_keys_used_last_day",
    await count("SELECT count(*) AS n FROM api_keys WHERE last_used_at >= ?", [now - DAY_MS]),
  );
  const mail = new Map(
    (
      await db.all<{ status: string; n: number }>(
        "SELECT status, count(*) AS n FROM mail_outbox WHERE status IN ('pending', 'sending', 'failed') GROUP BY status",
        [],
      )
    ).map((r) => [r.status, Number(r.n)]),
  );
  t.family(
    "talentd_mail_outbox",
    "gauge",
    "Mails of the outbox not delivered, by status " +
      "(pending: waiting for an attempt; sending; failed: no more attempts, shown at /org/mail).",
  );
  for (const status of ["pending", "sending", "failed"]) t.sample("talentd_mail_outbox", mail.get(status) ?? 0, { status });
}

/** The backup schedule's results, when it runs. */
function backupMetrics(t: Text, src: MetricsSources): void {
  if (!src.backups) return;
  const b = src.backups();
  t.family("talentd_backups_total", "counter", "Scheduled backups finished since start, by result.")
    .sample("talentd_backups_total", b.succeeded, { result: "ok" })
    .sample("talentd_backups_total", b.failed, { result: "failed" })
    .sample("talentd_backups_total", b.skipped, { result: "skipped" });
  t.family(
    "talentd_backup_last_success_timestamp_seconds",
    "gauge",
    "When the newest verified scheduled backup finished (0: none since start).",
  ).sample("talentd_backup_last_success_timestamp_seconds", b.lastSuccess ? Math.round(b.lastSuccess.finishedAt / 1000) : 0);
  t.family("talentd_backup_last_failed", "gauge", "1 when the latest scheduled backup failed (see GET /web/admin/backups), else 0.").sample(
    "talentd_backup_last_failed",
    b.last?.ok === false ? 1 : 0,
  );
}

/** Renders every metric in the Prometheus text format. */
export async function renderMetrics(src: MetricsSources): Promise<string> {
  const now = src.now ?? Date.now();
  const t = new Text();
  processMetrics(t, src);
  httpMetrics(t, src);
  databaseMetrics(t, src);
  await dataMetrics(t, src, now);
  backupMetrics(t, src);
  return t.lines.join("\n") + "\n";
}
