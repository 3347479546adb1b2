/**
 * `GET /web/orgs/current/audit-log` (paged JSON, newest first) and its export
 * `GET /web/orgs/current/audit-log/export?format=jsonl|csv` (streamed, oldest first), for the
 * active organization's owners and admins; the `/org/audit-log` page (pages.tsx) comes with them.
 */
import { Elysia } from "elysia";
import type { CoreDeps } from "../deps";
import type { Guards } from "../auth/guards";
import { oneOf, patternParam } from "../http/query";
import type { PageSessions } from "../ui/pageGuard";
import { EXPORT_FORMATS, exportStream } from "./export";
import { auditPages } from "./pages";
import { limitOf, listAuditEntries, parseFilters } from "./query";

const MEDIA = { jsonl: "application/jsonl; charset=utf-8", csv: "text/csv; charset=utf-8" } as const;

/** The audit-log routes and page; `sessions` finds the signed-in person for the page (handed in by the composition root). */
export function auditRoutes(deps: CoreDeps, guards: Guards, sessions: PageSessions): Elysia {
  // typed as a plain Elysia: the app's chain of plugin types is near TypeScript's depth limit
  const plugin = new Elysia()
    .use(guards)
    .use(auditPages(deps, sessions))
    .get(
      "/web/orgs/current/audit-log",
      async ({ org, query }) => {
        const filters = parseFilters(query);
        const cursor = patternParam(query, "cursor", /^[A-Za-z0-9_-]+$/, "a cursor returned by this route");
        return listAuditEntries(deps.database, org.id, filters, { limit: limitOf(query), cursor });
      },
      { org: "admin" },
    )
    .get(
      "/web/orgs/current/audit-log/export",
      ({ org, query }) => {
        const format = oneOf(query, "format", EXPORT_FORMATS) ?? "jsonl";
        const filters = parseFilters(query);
        const day = new Date().toISOString().slice(0, 10);
        return new Response(exportStream(deps.database, org.id, filters, format), {
          headers: {
            "content-type": MEDIA[format],
            "content-disposition": `attachment; filename="audit-log-${org.slug}-${day}.${format}"`,
            "cache-control": "no-store",
          },
        });
      },
      { org: "admin" },
    );
  return plugin as unknown as Elysia;
}
