/**
 * Operations routes: `GET /metrics` (Prometheus text format; registered only when METRICS_TOKEN
 * is set, and answering only to `Authorization: Bearer <METRICS_TOKEN>`) and
 * `GET /web/admin/backups` (platform administrators: the backup schedule, the latest outcome,
 * a failure, and the files in DATA_DIR/backups).
 */
import { Elysia } from "elysia";
import { timingSafeEqual } from "node:crypto";
import pkg from "../../package.json" with { type: "json" };
import type { CatalogDeps } from "../catalog/state";
import type { Guards } from "../auth/guards";
import { AppError } from "../http/errors";
import { iso } from "../lib/time";
import type { BackupRecord, Backups } from "./backups";
import { renderMetrics, type HttpMetrics } from "./metrics";
import { routeGuard, routePattern } from "../http/route";
import { OPS } from "./describe";

/** CatalogDeps with the request counters and the scheduled backups. */
export interface OpsDeps extends CatalogDeps {
  metrics: HttpMetrics;
  backups: Backups;
}

const digest = (s: string): Buffer => Buffer.from(new Bun.CryptoHasher("sha256").update(s).digest());

/** True when the request carries `Authorization: Bearer <token>` (compared in constant time). */
function bearerMatches(request: Request, expected: Buffer): boolean {
  const h = request.headers.get("authorization") ?? "";
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m !== null && timingSafeEqual(digest(m[1]!), expected);
}

const when = (ms: number | null | undefined): string | null => (ms ? iso(ms) : null);
const record = (r: BackupRecord | null) =>
  r ? { file: r.file, ok: r.ok, startedAt: iso(r.startedAt), finishedAt: iso(r.finishedAt), bytes: r.bytes, error: r.error } : null;

export function opsRoutes(deps: OpsDeps, guards: Guards) {
  const app = new Elysia().use(guards).get(
    routePattern(OPS.backups),
    () => {
      const s = deps.backups.status();
      return {
        scheduled: s.scheduled,
        intervalSeconds: s.intervalMs === null ? null : s.intervalMs / 1000,
        keep: s.keep,
        folder: s.folder,
        running: s.running,
        nextAt: when(s.nextAt),
        last: record(s.last),
        lastSuccess: record(s.lastSuccess),
        lastFailure: record(s.lastFailure),
        succeeded: s.succeeded,
        failed: s.failed,
        skipped: s.skipped,
        files: deps.backups.files().map((f) => ({ name: f.name, bytes: f.bytes, createdAt: iso(f.createdAt), kind: f.kind })),
      };
    },
    routeGuard(OPS.backups),
  );
  const token = deps.config.metricsToken;
  if (!token) return app;
  const expected = digest(token);
  return app.get("/metrics", async ({ request }) => {
    if (!bearerMatches(request, expected)) {
      throw new AppError(
        "invalid_token",
        "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.",
        {},
        { "www-authenticate": 'Bearer realm="metrics"' },
      );
    }
    const text = await renderMetrics({
      http: deps.metrics,
      database: deps.database,
      state: deps.state,
      version: pkg.version,
      backups: () => deps.backups.status(),
    });
    return new Response(text, { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" } });
  });
}
