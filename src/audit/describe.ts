/**
 * The descriptors of the audit log's routes (`/web/orgs/current/audit-log…`: routes.ts), docs/api.md
 * "The audit log": each route's OpenAPI row and answer (http/route.ts), collected by app.ts.
 */
import type { RouteDescriptor } from "../http/route";
import type { OrgPlace } from "../ui/places";
import { a, int, n, o, open, S, str } from "../http/schema";

/** The audit log's filters (the JSON list and the export take the same). */
const AUDIT_FILTERS = ["actor", "action", "objectKind", "from", "to"].map((name) => ({ name, schema: str() }));

/** The audit log and its export: owners and admins. */
export const AUDIT = {
  list: {
    method: "GET",
    path: "/web/orgs/current/audit-log",
    summary: "The organization's audit log, newest first, filtered and paged",
    access: "admin",
    query: [...AUDIT_FILTERS, { name: "limit", schema: int(1, 200) }, { name: "cursor", schema: str() }],
    errors: [400],
    answer: o({
      entries: a(
        o({
          id: S,
          at: S,
          actor: o({ kind: S, id: S, label: S }),
          action: S,
          object: o({ kind: S, id: S }),
          before: n(open),
          after: n(open),
        }),
      ),
      nextCursor: n(S),
    }),
  },
  export: {
    method: "GET",
    path: "/web/orgs/current/audit-log/export",
    summary: "The audit log as JSON lines or CSV, oldest first, streamed",
    access: "admin",
    query: [{ name: "format", schema: str({ enum: ["jsonl", "csv"] }) }, ...AUDIT_FILTERS],
    errors: [400, 429],
    answer: { media: "application/jsonl" },
  },
} satisfies Record<string, RouteDescriptor>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const AUDIT_ROUTES: RouteDescriptor[] = Object.values(AUDIT);

/** The navigation entry of its page (pages.tsx). */
export const AUDIT_PLACES: OrgPlace[] = [
  {
    href: "/org/audit-log",
    label: "Audit log",
    title: "Audit log",
    text: "who changed what in the organization, with a CSV or JSON lines export",
    admin: true,
    header: false,
    also: "who changed what",
  },
];
