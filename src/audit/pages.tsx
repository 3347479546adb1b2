/** @jsxImportSource hono/jsx */
/**
 * `/org/audit-log`: the organization's audit log for its owners and admins (anyone else gets the
 * 404 page), newest first, with filters (actor, action, object kind, time window) in a plain GET
 * form, so they work without JavaScript; with htmx the form and the "Older entries" link swap only
 * the results and keep the address in step. The export links carry the same filters. Each entry's object and change
 * name the projects, keys and people they hold (names.tsx, one read for the page), the ids on hover.
 */
import { Elysia } from "elysia";
import type { CoreDeps } from "../deps";
import { utcSecond } from "../lib/time";
import { Field } from "../ui/form";
import { DataTable, Layout, page } from "../ui/layout";
import { Breakable } from "../ui/parts";
import { createPageGuard, type PageSessions } from "../ui/pageGuard";
import { strParam } from "../http/query";
import { ChangeWords, idsIn, type Names, readNames, ValueWords } from "./names";
import { type AuditEntryView, limitOf, listAuditEntries, parseFilters } from "./query";

const FILTERS = ["actor", "action", "objectKind", "from", "to"] as const;

/** The query string of the filters in `q` (empty values left out), plus `extra`. */
function queryOf(q: Record<string, string | undefined>, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const k of FILTERS) if (q[k]) p.set(k, q[k]!);
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** The entries of one page, names read for the ids their objects and changes hold (one query: names.tsx). */
function EntriesTable(props: { entries: AuditEntryView[]; names: Names }) {
  return (
    <DataTable
      label="Audit log entries"
      caption="Audit log entries, newest first"
      columns={["When (UTC)", "Actor", "Action", "Object", "Change"]}
    >
      {props.entries.map((e) => (
        <tr id={`audit-${e.id}`}>
          <td class="small">{utcSecond(Date.parse(e.at))}</td>
          <td>
            <Breakable text={e.actor.label} /> <span class="muted small">({e.actor.kind})</span>
          </td>
          <td>
            <code>{e.action}</code>
          </td>
          <td class="break">
            {e.object.kind}
            <br />
            <span class="muted small">
              <ValueWords value={e.object.id} names={props.names} />
            </span>
          </td>
          <td class="small break">
            <ChangeWords before={e.before} after={e.after} names={props.names} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function FilterForm(props: { q: Record<string, string | undefined> }) {
  const q = props.q;
  const text = (name: (typeof FILTERS)[number], label: string, placeholder: string, type = "text") => (
    <Field id={`audit-${name}`} label={label} inline>
      <input type={type} name={name} value={q[name] ?? ""} placeholder={placeholder} />
    </Field>
  );
  return (
    <form
      method="get"
      action="/org/audit-log"
      class="filters"
      role="search"
      hx-get="/org/audit-log"
      hx-target="#audit-results"
      hx-select="#audit-results"
      hx-swap="outerHTML"
      hx-push-url="true"
    >
      {text("actor", "Actor", "e-mail, key name or id")}
      {text("action", "Action", "member.role_changed")}
      {text("objectKind", "Object kind", "member, key, project…")}
      {text("from", "From", "", "date")}
      {text("to", "Before", "", "date")}
      <button type="submit">Filter</button>
    </form>
  );
}

/** The /org/audit-log page; `sessions` finds the signed-in person and their organizations (the kit's page guard). */
export function auditPages(deps: CoreDeps, sessions: PageSessions): Elysia {
  const plugin = new Elysia().use(createPageGuard(sessions)).get(
    "/org/audit-log",
    async ({ page: ctx, org, query }) => {
      const q = Object.fromEntries(FILTERS.map((k) => [k, strParam(query, k, 200)]));
      const cursor = strParam(query, "cursor", 200);
      // the page size a link asked for stays with "Older entries"
      const size = strParam(query, "limit", 3);
      const { entries, nextCursor } = await listAuditEntries(deps.database, org.id, parseFilters(query), { limit: limitOf(query), cursor });
      const filtered = FILTERS.some((k) => q[k]);
      const names = await readNames(deps.database, org.id, idsIn(entries.flatMap((e) => [e.object.id, e.before, e.after])));
      return page(
        <Layout title={`Audit log · ${org.name}`} user={ctx.session.user} nav={ctx.nav}>
          <p class="crumbs">
            <a href="/org">{org.name}</a> /
          </p>
          <h1>Audit log</h1>
          <p class="muted">
            Who changed what in {org.name}: members and roles, invitations, SSO, keys, installs, specializations, expertises and settings.
            Entries are kept as long as the instance keeps its events (EVENT_RETENTION_DAYS).
          </p>
          <FilterForm q={q} />
          <div id="audit-results">
            <p>
              Export {filtered ? "these entries" : "every entry"}:{" "}
              <a href={`/web/orgs/current/audit-log/export${queryOf(q, { format: "csv" })}`}>CSV</a> ·{" "}
              <a href={`/web/orgs/current/audit-log/export${queryOf(q, { format: "jsonl" })}`}>JSON lines</a>
            </p>
            {entries.length === 0 ? (
              <p id="audit-state">{filtered || cursor ? "No entries match these filters." : "Nothing has been recorded yet."}</p>
            ) : (
              <EntriesTable entries={entries} names={names} />
            )}
            {nextCursor ? (
              <p>
                <a
                  href={`/org/audit-log${queryOf(q, { ...(size ? { limit: size } : {}), cursor: nextCursor })}`}
                  hx-get={`/org/audit-log${queryOf(q, { ...(size ? { limit: size } : {}), cursor: nextCursor })}`}
                  hx-target="#audit-results"
                  hx-select="#audit-results"
                  hx-swap="outerHTML"
                  hx-push-url="true"
                >
                  Older entries
                </a>
              </p>
            ) : null}
          </div>
        </Layout>,
      );
    },
    { orgPage: { admin: "This page is for the organization's owners and admins." } },
  );
  return plugin as unknown as Elysia;
}
