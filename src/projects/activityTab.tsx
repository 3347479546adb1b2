/** @jsxImportSource hono/jsx */
/**
 * The project page's Activity tab (pages/project.tsx): one row per agent action, in
 * words (activityRows.ts) — who (the key's name, the OAuth user's e-mail, the signed-in person), what,
 * with which tool (src/journal/clients.ts; the raw label on hover) and how it ended. The outcome
 * leads: a fail verdict with its evidence and findings on rules that block a commit are shown in the
 * row, unexpanded, and its Result says "fail" (activityOutcomes.ts). Filters: activityFilters.tsx.
 */
import { clientName } from "../journal/clients";
import type { TraceEvent } from "../journal/journal";
import { utcSecond } from "../lib/time";
import { DataTable } from "../ui/layout";
import { Isolated } from "../ui/parts";
import { groupRows, resultWords, sentenceOf, type ActivityRow } from "./activityRows";
import { HtmlByObject, HtmlMemo } from "../ui/memo";
import { outcomeOf, type FailingVerdict, type RowOutcome } from "./activityOutcomes";
import { ActivityFilters, filterQuery, type ActivityData, type ActivityQuery } from "./activityFilters";

const when = (at: number): string => utcSecond(at);

function Who(props: { e: TraceEvent; emails: Map<string, string> }) {
  const e = props.e;
  if (e.authorType === "token")
    return (
      <>
        {props.emails.get(e.authorId) ?? <Isolated text={e.authorName} />}{" "}
        <span class="muted">
          (OAuth: <Isolated text={e.authorName} />)
        </span>
      </>
    );
  return (
    <>
      {e.authorName} <span class="muted">({e.authorType === "key" ? "key" : "signed in"})</span>
    </>
  );
}

function Result(props: { e: TraceEvent; fail?: boolean }) {
  if (props.fail)
    return (
      <span class="error small result-fail" title="a fail verdict or a blocking finding">
        fail
      </span>
    );
  const words = resultWords(props.e);
  return (
    <span class={props.e.status >= 400 ? "error small" : "muted small"} title={`HTTP ${props.e.status}`}>
      {words}
    </span>
  );
}

/** A talent's catalog sheet (an expertise of the organization has none there: its id alone). */
const Talent = (props: { id: string }) => (props.id.startsWith("@") ? <>{props.id}</> : <a href={`/catalog/${props.id}`}>{props.id}</a>);

function FailLine(props: { f: FailingVerdict }) {
  const f = props.f;
  return (
    <li>
      <strong class="error">fail</strong> <Talent id={f.talentId} />
      {f.evidence.length > 0 ? (
        <>
          {" at "}
          {f.evidence.map((e, i) => (
            <>
              {i > 0 ? ", " : null}
              <code class="evidence">{e}</code>
            </>
          ))}
        </>
      ) : null}
      {f.missing.length > 0 ? <> · missing: {f.missing.join("; ")}</> : null}
    </li>
  );
}

/** The outcome of an action, shown in its row without expanding anything. */
export function Outcome(props: { o: RowOutcome }) {
  const { fails, blocking } = props.o;
  if (fails.length === 0 && blocking.length === 0) return null;
  return (
    <ul class="outcome small">
      {fails.map((f) => (
        <FailLine f={f} />
      ))}
      {blocking.map((b) => (
        <li>
          <strong class="error">blocking</strong> {b.findings} finding{b.findings === 1 ? "" : "s"} of <Talent id={b.talent} />{" "}
          <code class="rule-id">{b.rule}</code>
        </li>
      ))}
    </ul>
  );
}

/** Each row's HTML by what it is made of (its events' ids, its author's e-mail, its fails found): events never change. */
const rowsHtml = new HtmlMemo(1024);

function Row(props: {
  row: ActivityRow;
  outcome: RowOutcome;
  emails: Map<string, string>;
  verdicts: ReadonlyMap<string, FailingVerdict[]>;
}) {
  const { row, outcome } = props;
  const e = row.head;
  const failed = row.steps.find((s) => s.status >= 400);
  return (
    <tr class={[row.steps.length > 1 ? "grouped" : "", outcome.fail ? "failing" : ""].filter(Boolean).join(" ") || undefined}>
      <td class="small" data-label="When (UTC)">
        {when(e.createdAt)}
      </td>
      <td class="small" data-label="Who">
        <Who e={e} emails={props.emails} />
      </td>
      <td data-label="What">
        {sentenceOf(e)}
        <Outcome o={outcome} />
        {row.steps.length > 1 ? (
          <details class="steps">
            <summary class="small">{row.steps.length} calls</summary>
            <ol class="small">
              {[...row.steps].reverse().map((s) => (
                <li>
                  {when(s.createdAt).slice(11)} {sentenceOf(s)} ·{" "}
                  <Result e={s} fail={outcomeOf({ head: s, steps: [s] }, props.verdicts).fail} />
                </li>
              ))}
            </ol>
          </details>
        ) : null}
      </td>
      <td class="small" data-label="Client" title={e.client ?? undefined}>
        {clientName(e.client)}
      </td>
      <td data-label="Result">
        <Result e={failed ?? e} fail={outcome.fail} />
      </td>
    </tr>
  );
}

/** The tab: its filters, then the list (counts by kind, one row per action, newest first, with paging) that htmx swaps. */
export function ActivityTab(props: {
  events: TraceEvent[];
  emails: Map<string, string>;
  verdicts: ReadonlyMap<string, FailingVerdict[]>;
  projectId: string;
  nextBefore: string | null;
  query: ActivityQuery;
  clients: string[];
  talents: string[];
}) {
  const byKind = new Map<string, number>();
  for (const e of props.events) byKind.set(e.kind, (byKind.get(e.kind) ?? 0) + 1);
  const filtered = props.query.client || props.query.result || props.query.talent;
  return (
    <section aria-labelledby="activity-h">
      <h2 id="activity-h">Activity</h2>
      <ActivityFilters projectId={props.projectId} query={props.query} clients={props.clients} talents={props.talents} />
      <div id="activity-list">
        {props.events.length === 0 ? (
          <p class="muted">
            {filtered
              ? "No activity matches these filters."
              : "No activity yet. Calls of agents, hooks and people on this project appear here."}
          </p>
        ) : (
          <>
            <p class="counts">
              {[...byKind.entries()].map(([k, n]) => (
                <span>
                  <strong>{n}</strong> {k}
                </span>
              ))}
            </p>
            <div class="activity-table">
              <DataTable caption="Latest actions, newest first" columns={["When (UTC)", "Who", "What", "Client", "Result"]}>
                {groupRows(props.events).map((row) => {
                  const outcome = outcomeOf(row, props.verdicts);
                  // a row is made of events, which never change, the reports they name, and its author's e-mail
                  const email = row.head.authorType === "token" ? (props.emails.get(row.head.authorId) ?? "") : "";
                  const key = `${row.steps.map((s) => s.id).join(",")}|${email}|${outcome.fails.length}`;
                  return rowsHtml.render(key, () => <Row row={row} outcome={outcome} emails={props.emails} verdicts={props.verdicts} />);
                })}
              </DataTable>
            </div>
            {props.nextBefore ? (
              <p>
                <a href={`/projects/${props.projectId}${filterQuery(props.query, { before: props.nextBefore })}`}>Older</a>
              </p>
            ) : null}
          </>
        )}
      </div>
    </section>
  );
}

/** The tab's HTML per kept data (loadActivity's object: the same while nothing was committed) and query. */
const tabsHtml = new HtmlByObject<object, string>((a, b) => a === b);

/** The tab as HTML, drawn again only when its data was read again (activityFilters.tsx loadActivity). */
export function activityTabHtml(a: ActivityData, projectId: string, query: ActivityQuery) {
  return tabsHtml.render(a, `${projectId}${filterQuery(query)}`, () => <ActivityTab {...a} projectId={projectId} query={query} />);
}
