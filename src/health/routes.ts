/** Liveness and readiness (`/healthz`, `/readyz`). */
import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import { AppError, errorResponse } from "../http/errors";
import { requestIdOf } from "../http/edge";

/** `/healthz` answers while the process runs; `/readyz` only when database and catalog are usable. */
export function healthRoutes(deps: AppDeps) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ status: "ok" }))
    .get("/readyz", async ({ request }) => {
      const notReady = (why: string): Response =>
        errorResponse(new AppError("not_ready", why, { status: "not_ready" }), requestIdOf(request));
      if (deps.state.draining) return notReady("The service is shutting down.");
      const catalog = deps.state.catalog;
      if (!catalog) return notReady("The catalog is not loaded yet.");
      try {
        await deps.database.client.execute("SELECT 1");
      } catch {
        return notReady("The database is not reachable.");
      }
      return { status: "ready", catalog: { talents: catalog.list.length, digest: catalog.digest } };
    });
}
