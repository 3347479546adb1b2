/**
 * `GET /web/orgs/current/audit-log` (paged JSON, newest first) and its export
 * `GET /web/orgs/current/audit-log/export?format=jsonl|csv` (streamed, oldest first), for the
 * active organization's owners and admins; the `/org/audit-log` page (pages.tsx) comes with them.
 * An export holds its organization's one export slot and one of its user's heavy reads until its
 * body ends or the client goes away (exportLimit.ts).
 */
import { Elysia } from "elysia";
import type { CoreDeps } from "../deps";
import type { Guards } from "../auth/guards";
import { oneOf, patternParam } from "../http/query";
import type { PageSessions } from "../ui/pageGuard";
import { EXPORT_FORMATS, exportStream } from "./export";
import { ExportSlots, exportPause, holdTurn, type HeavyReads } from "./exportLimit";
import { auditPages } from "./pages";
import { limitOf, listAuditEntries, parseFilters } from "./query";
import { routeGuard, routePattern } from "../http/route";
import { AUDIT } from "./describe";

const MEDIA = { jsonl: "application/jsonl; charset=utf-8", csv: "text/csv; charset=utf-8" } as const;

/**
 * The audit-log routes and page; `sessions` finds the signed-in person for the page, `cap` is the
 * heavy-read cap exports run under (both handed in by the composition root).
 */
export function auditRoutes(deps: CoreDeps, guards: Guards, sessions: PageSessions, cap: HeavyReads): Elysia {
  const slots = new ExportSlots();
  // typed as a plain Elysia: the app's chain of plugin types is near TypeScript's depth limit
  const plugin = new Elysia()
    .use(guards)
    .use(auditPages(deps, sessions))
    .get(
      routePattern(AUDIT.list),
      async ({ org, query }) => {
        const filters = parseFilters(query);
        const cursor = patternParam(query, "cursor", /^[A-Za-z0-9_-]+$/, "a cursor returned by this route");
        return listAuditEntries(deps.database, org.id, filters, { limit: limitOf(query), cursor });
      },
      routeGuard(AUDIT.list),
    )
    .get(
      routePattern(AUDIT.export),
      async ({ auth, org, query, request }) => {
        const format = oneOf(query, "format", EXPORT_FORMATS) ?? "jsonl";
        const filters = parseFilters(query);
        const day = new Date().toISOString().slice(0, 10);
        const release = slots.take(org.id);
        let endTurn: () => void;
        try {
          endTurn = await holdTurn(cap, auth.user.id, request);
        } catch (e) {
          release();
          throw e;
        }
        const ended = () => {
          release();
          endTurn();
        };
        // a client gone before the body started is no cancel of the stream (one gone during it is: Bun cancels the body)
        if (request.signal.aborted) ended();
        else request.signal.addEventListener("abort", ended, { once: true });
        return new Response(exportStream(deps.database, org.id, filters, format, { ended, pause: exportPause(cap) }), {
          headers: {
            "content-type": MEDIA[format],
            "content-disposition": `attachment; filename="audit-log-${org.slug}-${day}.${format}"`,
            "cache-control": "no-store",
          },
        });
      },
      routeGuard(AUDIT.export),
    );
  return plugin as unknown as Elysia;
}
