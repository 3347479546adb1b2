/**
 * The descriptor of the backups' route (`GET /web/admin/backups`: routes.ts), docs/api.md "Platform administration":
 * its OpenAPI row and answer (http/route.ts), collected by app.ts.
 */
import type { RouteDescriptor } from "../http/route";
import { a, B, I, n, N, o, S } from "../http/schema";

const BackupRecord = n(o({ file: n(S), ok: B, startedAt: S, finishedAt: S, bytes: I, error: S, skipped: B }));

/** The backups: platform administrators. */
export const OPS = {
  backups: {
    method: "GET",
    path: "/web/admin/backups",
    summary: "The backup schedule, the latest outcome and the kept backups",
    access: "platform",
    answer: o({
      scheduled: B,
      intervalSeconds: n(N),
      keep: n(I),
      folder: S,
      running: B,
      nextAt: n(S),
      last: BackupRecord,
      lastSuccess: BackupRecord,
      lastFailure: BackupRecord,
      succeeded: I,
      failed: I,
      skipped: I,
      files: a(o({ name: S, bytes: I, createdAt: S, kind: S })),
    }),
  },
} satisfies Record<string, RouteDescriptor>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const OPS_ROUTES: RouteDescriptor[] = Object.values(OPS);
