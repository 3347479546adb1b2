/** @jsxImportSource hono/jsx */
/**
 * The "Self-audit against the hook" section of `/org/insights` (selfAudit.ts; docs/design.md
 * "Self-audit against the hook"): N of M passes the hook contradicted, per tool, and the
 * contradicted passes one by one, each linked to its project's Activity tab filtered to the talent's fails.
 */
import { utcMinute } from "../lib/time";
import { Card, DataTable } from "../ui/layout";
import type { selfAudit } from "./selfAudit";

type SelfAudit = Awaited<ReturnType<typeof selfAudit>>;

const pct = (share: number | null) => (share === null ? "" : ` (${Math.round(share * 100)} %)`);

/** The one sentence that defines the figure, on the page as in docs/design.md. */
export const SELF_AUDIT_DEFINITION =
  "A pass is contradicted when a findings report of the hook for the same task (resolution) found findings that block a commit on " +
  "that talent's rules; only passes on tasks with a findings report are counted.";

export function SelfAuditSection(props: { s: SelfAudit }) {
  const s = props.s;
  return (
    <Card
      id="self-audit"
      title="Self-audit against the hook"
      empty={s.passes === 0 && `No pass verdict on a task with a findings report of the hook in the window. ${SELF_AUDIT_DEFINITION}`}
    >
      <p>
        <strong>{s.contradicted}</strong> of {s.passes} passes recorded by agents were contradicted by the hook{pct(s.share)}.
      </p>
      <p class="small muted">{SELF_AUDIT_DEFINITION}</p>
      <p class="small">
        By development tool:{" "}
        {s.byClient.map((c, i) => (
          <>
            {i > 0 ? " · " : null}
            {c.name} <strong class={c.contradicted > 0 ? "error" : undefined}>{c.contradicted}</strong>/{c.passes}
          </>
        ))}
      </p>
      {s.cases.length > 0 ? (
        // on a phone the table stacks as the Activity tab's does (app.css): each case a block, its rules in view
        <div class="activity-table">
          <DataTable
            caption="Passes the hook contradicted, newest first"
            columns={["Recorded (UTC)", "Project", "Talent", "Blocking findings", "Who"]}
          >
            {s.cases.map((c) => (
              <tr>
                <td class="small" data-label="Recorded (UTC)">
                  {utcMinute(c.recordedAt)}
                  <br />
                  <code class="small">{c.resolutionId}</code>
                </td>
                <td data-label="Project">
                  <a href={c.href}>{c.projectName}</a>
                </td>
                <td data-label="Talent">
                  <code>{c.talentId}</code>
                </td>
                <td class="small" data-label="Blocking findings">
                  {c.rules.map((r, i) => (
                    <>
                      {i > 0 ? ", " : null}
                      <code class="rule-id">{r.rule}</code> × {r.findings}
                    </>
                  ))}
                </td>
                <td class="small" data-label="Who">
                  {c.author} <span class="muted">({c.clientName})</span>
                </td>
              </tr>
            ))}
          </DataTable>
        </div>
      ) : null}
    </Card>
  );
}
