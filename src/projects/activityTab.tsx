/** @jsxImportSource hono/jsx */
/**
 * The project page's Activity tab (pages/project.tsx): one row per agent action, in
 * words (activityRows.ts) — who (the key's name, the OAuth user's e-mail, the signed-in person), what,
 * with which tool (src/journal/clients.ts; the raw label on hover) and how it ended.
 */
import type { Database } from "../db/client";
import { clientName } from "../journal/clients";
import type { TraceEvent } from "../journal/journal";
import { utcSecond } from "../lib/time";
import { DataTable } from "../ui/layout";
import { Isolated } from "../ui/parts";
import { groupRows, resultWords, sentenceOf } from "./activityRows";

/** E-mail of the user who authorized each OAuth token among the events (token id → e-mail). */
export async function tokenEmails(db: Database, events: TraceEvent[]): Promise<Map<string, string>> {
  const ids = [...new Set(events.filter((e) => e.authorType === "token").map((e) => e.authorId))];
  if (ids.length === 0) return new Map();
  const marks = ids.map(() => "?").join(", ");
  const rows = await db.all<{ id: string; email: string }>(
    `SELECT t.id AS id, u.email AS email FROM oauth_tokens t JOIN users u ON u.id = t.user_id WHERE t.id IN (${marks})`,
    ids,
  );
  return new Map(rows.map((r) => [r.id, r.email]));
}

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

function Result(props: { e: TraceEvent }) {
  const words = resultWords(props.e);
  return (
    <span class={props.e.status >= 400 ? "error small" : "muted small"} title={`HTTP ${props.e.status}`}>
      {words}
    </span>
  );
}

/** The tab: counts by kind, then one row per action (its calls inside), newest first, with paging. */
export function ActivityTab(props: { events: TraceEvent[]; emails: Map<string, string>; projectId: string; nextBefore: string | null }) {
  const byKind = new Map<string, number>();
  for (const e of props.events) byKind.set(e.kind, (byKind.get(e.kind) ?? 0) + 1);
  return (
    <section aria-labelledby="activity-h">
      <h2 id="activity-h">Activity</h2>
      {props.events.length === 0 ? (
        <p class="muted">No activity yet. Calls of agents, hooks and people on this project appear here.</p>
      ) : (
        <>
          <p class="counts">
            {[...byKind.entries()].map(([k, n]) => (
              <span>
                <strong>{n}</strong> {k}
              </span>
            ))}
          </p>
          <DataTable caption="Latest actions, newest first" columns={["When (UTC)", "Who", "What", "Client", "Result"]}>
            {groupRows(props.events).map((row) => {
              const e = row.head;
              const failed = row.steps.find((s) => s.status >= 400);
              return (
                <tr class={row.steps.length > 1 ? "grouped" : undefined}>
                  <td class="small">{when(e.createdAt)}</td>
                  <td class="small">
                    <Who e={e} emails={props.emails} />
                  </td>
                  <td>
                    {sentenceOf(e)}
                    {row.steps.length > 1 ? (
                      <details class="steps">
                        <summary class="small">{row.steps.length} calls</summary>
                        <ol class="small">
                          {[...row.steps].reverse().map((s) => (
                            <li>
                              {when(s.createdAt).slice(11)} {sentenceOf(s)} · <Result e={s} />
                            </li>
                          ))}
                        </ol>
                      </details>
                    ) : null}
                  </td>
                  <td class="small" title={e.client ?? undefined}>
                    {clientName(e.client)}
                  </td>
                  <td>
                    <Result e={failed ?? e} />
                  </td>
                </tr>
              );
            })}
          </DataTable>
          {props.nextBefore ? (
            <p>
              <a href={`/projects/${props.projectId}?tab=activity&before=${props.nextBefore}`}>Older</a>
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
