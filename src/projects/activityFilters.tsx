/** @jsxImportSource hono/jsx */
/**
 * The Activity tab's filters (docs/design.md "The Activity tab leads with the outcome"): by client
 * (a tool's name, as src/journal/clients.ts says it), by result (fail, error, ok) and by talent, as
 * query parameters of `/projects/:id?tab=activity`, so the form works without JavaScript; with it,
 * htmx swaps the list (`#activity-list`) and keeps the address. `loadActivity` reads the tab.
 */
import type { Database } from "../db/client";
import { keptRead } from "../db/versionMemo";
import { clientName } from "../journal/clients";
import type { TraceJournal } from "../journal/journal";
import { RESULTS, type ResultFilter, type TraceFilter } from "../journal/traceFilter";
import { listInstalled } from "../selection/service";
import { failingVerdicts, tokenEmails } from "./activityOutcomes";

/** The tab's query: each filter as given (a client's name, a result, a talent id), and the page. */
export interface ActivityQuery {
  client?: string;
  result?: ResultFilter;
  talent?: string;
  before?: string;
}

const RESULT_WORDS: Record<ResultFilter, string> = {
  fail: "fail: a fail verdict or a blocking finding",
  error: "error: the call failed",
  ok: "ok",
};

const text = (v: unknown, max: number): string | undefined =>
  typeof v === "string" && v.trim() !== "" && v.length <= max ? v.trim() : undefined;

/** The filters of a query string; anything not understood is left out (the unfiltered list). */
export function readActivityQuery(query: Record<string, unknown>): ActivityQuery {
  const before = typeof query.before === "string" && /^trc_[0-9A-Z]{26}$/.test(query.before) ? query.before : undefined;
  const result = (RESULTS as readonly string[]).includes(String(query.result)) ? (query.result as ResultFilter) : undefined;
  return { client: text(query.client, 100), result, talent: text(query.talent, 200), before };
}

/** `?tab=activity&…`: the filters, and `more` (the page) over them. */
export function filterQuery(q: ActivityQuery, more: Partial<ActivityQuery> = {}): string {
  const all = { ...q, ...more };
  const p = new URLSearchParams({ tab: "activity" });
  for (const k of ["client", "result", "talent", "before"] as const) if (all[k]) p.set(k, all[k]!);
  return `?${p}`;
}

const CLIENTS_SQL = "SELECT DISTINCT client, client_null AS none FROM trace_hours WHERE project_id = ? AND hour >= ?";
/** How far back the client filter's choices look. */
const CLIENTS_DAYS = 30;

/** The raw client labels of the project's calls since `fromHour` (kept counts per hour). */
async function recentClients(database: Database, projectId: string, fromHour: number): Promise<(string | null)[]> {
  const rows = await database.all<{ client: string; none: number }>(CLIENTS_SQL, [projectId, fromHour]);
  return rows.map((r) => (Number(r.none) ? null : r.client));
}

/** What the tab shows: the page of events (filtered), the e-mails of OAuth authors, the fail verdicts, the filters' choices. */
export type ActivityData = Awaited<ReturnType<typeof readActivity>>;

/**
 * The tab's first page, kept while the database has not changed (its data version: versionMemo.ts keptRead), by project, hour
 * and filters: the events, the reports their fails come from, the keys' and tokens' authors and the installed talents all change only
 * by a commit, and the journal is settled first, so a call that completed before the view is in it. Between two commits a view
 * reads nothing and hands out the same object, so its HTML is kept by it (activityTab.tsx).
 */
export async function loadActivity(database: Database, journal: TraceJournal, projectId: string, q: ActivityQuery): Promise<ActivityData> {
  await journal.settle(); // the choices count every call that completed before this one
  const hour = Math.floor(Date.now() / 3_600_000);
  const read = () => readActivity(database, journal, projectId, q, hour - CLIENTS_DAYS * 24);
  // the first page only (what is viewed again and again): a walk through the older pages keeps nothing
  if (q.before) return read();
  // the read in flight is what is kept (in a box), so the views that arrive while it runs share it; a read that failed is not shared
  const box = await keptRead(database, TAB_READ, [projectId, hour, q.client ?? "", q.result ?? "", q.talent ?? ""], async () => {
    const kept: { data: Promise<ActivityData>; failed: boolean } = { data: read(), failed: false };
    kept.data.catch(() => void (kept.failed = true));
    return kept;
  });
  return box.failed ? read() : box.data;
}

/** The group of the tab's kept reads. */
const TAB_READ = "projects/activityFilters.tsx loadActivity";

async function readActivity(database: Database, journal: TraceJournal, projectId: string, q: ActivityQuery, fromHour: number) {
  const labels = await recentClients(database, projectId, fromHour);
  const byName = new Map<string, (string | null)[]>();
  for (const l of labels) byName.set(clientName(l), [...(byName.get(clientName(l)) ?? []), l]);
  const filter: TraceFilter = {
    ...(q.client ? { clients: byName.get(q.client) ?? [] } : {}),
    ...(q.result ? { result: q.result } : {}),
    ...(q.talent ? { talent: q.talent } : {}),
  };
  const { events, nextBefore } = await journal.list(projectId, 50, q.before, filter);
  const [emails, verdicts, installed] = await Promise.all([
    tokenEmails(database, events),
    failingVerdicts(database, projectId, events),
    listInstalled(database, projectId),
  ]);
  return {
    events,
    nextBefore,
    emails,
    verdicts,
    clients: [...byName.keys()].sort(),
    talents: installed.map((r) => r.talentId).sort(),
  };
}

function Choice(props: { name: string; label: string; value?: string; options: [string, string][] }) {
  const id = `activity-${props.name}`;
  return (
    <div class="field inline">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name}>
        <option value="">any</option>
        {props.options.map(([v, words]) => (
          <option value={v} selected={v === props.value}>
            {words}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The filter form: a GET of the page itself; htmx swaps `#activity-list` on each change. */
export function ActivityFilters(props: { projectId: string; query: ActivityQuery; clients: string[]; talents: string[] }) {
  const q = props.query;
  // a filtered value no longer among the choices stays selectable
  const clients = q.client && !props.clients.includes(q.client) ? [...props.clients, q.client] : props.clients;
  const talents = q.talent && !props.talents.includes(q.talent) ? [...props.talents, q.talent] : props.talents;
  const action = `/projects/${props.projectId}`;
  return (
    <form
      method="get"
      action={action}
      class="filters"
      role="search"
      aria-label="Filter the activity"
      hx-get={action}
      hx-trigger="change, submit"
      hx-target="#activity-list"
      hx-select="#activity-list"
      hx-swap="outerHTML"
      hx-push-url="true"
    >
      <input type="hidden" name="tab" value="activity" />
      <Choice name="client" label="Client" value={q.client} options={clients.map((c) => [c, c])} />
      <Choice name="result" label="Result" value={q.result} options={RESULTS.map((r) => [r, RESULT_WORDS[r]])} />
      <Choice name="talent" label="Talent" value={q.talent} options={talents.map((t) => [t, t])} />
      <button type="submit">Filter</button>
    </form>
  );
}
