/** Liveness and readiness (`/healthz`, `/readyz`). */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../catalog/state";
import { AppError, errorResponse } from "../http/errors";
import { requestIdOf } from "../http/edge";
import { DATABASE_RETRY_AFTER_S } from "../db/unavailable";

/**
 * `/healthz` answers while the process runs; `/readyz` only when database and catalog are usable,
 * and the disk takes writes: while it does not (src/db/storage.ts), 503 with `error:
 * "storage_full"` and `status: "degraded"` (a load balancer stops sending writes that would fail;
 * reads would still work, but a balancer knows no difference), and Retry-After. On PostgreSQL it
 * also says whether this replica is the leader (runs housekeeping and mail delivery).
 */
export function healthRoutes(deps: CatalogDeps) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ status: "ok" }))
    .get("/readyz", async ({ request }) => {
      const notReady = (why: string, headers: Record<string, string> = {}): Response =>
        errorResponse(new AppError("not_ready", why, { status: "not_ready" }, headers), requestIdOf(request));
      if (deps.state.draining) return notReady("The service is shutting down.");
      const catalog = deps.state.catalog;
      if (!catalog) return notReady("The catalog is not loaded yet.");
      try {
        await deps.database.client.execute("SELECT 1");
      } catch {
        // a load balancer takes this replica out of rotation until the database answers again
        return notReady("The database is not reachable.", { "retry-after": String(DATABASE_RETRY_AFTER_S) });
      }
      const storage = deps.database.storage.check();
      if (storage.status === "degraded") {
        const { message, kind, since, refused, retryAfter } = storage;
        const body = { error: "storage_full", message, status: "degraded", storage: kind, since, refused, retryAfter };
        const headers = {
          "content-type": "application/json; charset=utf-8",
          "retry-after": String(storage.retryAfter),
          "x-request-id": requestIdOf(request),
        };
        return new Response(JSON.stringify(body), { status: 503, headers });
      }
      // talents skipped at load (a format or content-check finding) are named: ready, but not serving them
      const skipped = catalog.broken.length > 0 ? { skipped: catalog.broken.map((b) => b.folder) } : {};
      // which database answered: sqlite (a file or a libSQL server) or postgres
      const database = deps.database.dialect;
      // on PostgreSQL, whether this replica runs the background work (db/leader.ts)
      const leader = database === "postgres" ? { leader: deps.state.leader === true } : {};
      return { status: "ready", database, ...leader, catalog: { talents: catalog.list.length, digest: catalog.digest, ...skipped } };
    });
}
