/** @jsxImportSource hono/jsx */
/**
 * The sections of `/org/insights` (orgInsightsPages.tsx): failed calls by code and day, keys to
 * review, projects to fix, resolutions never audited, failing expertises, what the context budget cut, passes the hook
 * contradicted (selfAuditView.tsx); each drawn once per answer.
 */
import { utcMinute } from "../lib/time";
import type { insights } from "./insights";
import { StackedColumns } from "../ui/charts";
import { Card, DataTable } from "../ui/layout";
import { HtmlByObject } from "../ui/memo";
import { clientName } from "../journal/clients";
import { talentHref } from "../projects/views/catalog";
import { SelfAuditSection } from "./selfAuditView";

/** The answer of `GET /web/orgs/current/insights`. */
export type Insights = Awaited<ReturnType<typeof insights>>;

const when = (s: string | null | undefined) => (s ? utcMinute(s) : "—");
const projectHref = (id: string, tab?: string) => `/projects/${id}${tab ? `?tab=${tab}` : ""}`;

/** Rows of a long list shown on the page (the JSON route has them all). */
const LISTED = 20;

const KEY_REASON: Record<string, string> = {
  expired: "expired",
  expiring: "expires soon",
  never_used: "never used",
  unused: "not used lately",
};

/**
 * Each section of the insights page is drawn once per answer: the answers are the same objects
 * while nothing changed (src/journal/dayMemo.ts keptAnswer), so a view with no commit since the
 * last draws nothing (src/ui/memo.ts).
 */
const drawn = {
  failed: new HtmlByObject<object, null>(() => true),
  keys: new HtmlByObject<object, null>(() => true),
  selections: new HtmlByObject<object, null>(() => true),
  audit: new HtmlByObject<object, null>(() => true),
  failing: new HtmlByObject<object, null>(() => true),
  cuts: new HtmlByObject<object, null>(() => true),
  selfAudit: new HtmlByObject<object, null>(() => true),
};

/** The insights page's body: failed calls, keys, selections, never-audited resolutions, failing expertises, budget cuts, self-audit. */
export function InsightsBody(props: { d: Insights }) {
  const d = props.d;
  return (
    <>
      {drawn.failed.render(d.failedCalls, null, () => (
        <FailedSection f={d.failedCalls} />
      ))}
      {drawn.keys.render(d.keys, null, () => (
        <KeysSection keys={d.keys} />
      ))}
      {drawn.selections.render(d.projects, null, () => (
        <SelectionsSection projects={d.projects} />
      ))}
      {drawn.audit.render(d.neverAudited, null, () => (
        <AuditSection a={d.neverAudited} />
      ))}
      {drawn.failing.render(d.expertises, null, () => (
        <FailingSection expertises={d.expertises} />
      ))}
      {d.requiredNotDesignated.requiredTalents.length > 0 ? <RequiredSection r={d.requiredNotDesignated} /> : null}
      {drawn.cuts.render(d.budgetCuts, null, () => (
        <BudgetSection c={d.budgetCuts} />
      ))}
      {drawn.selfAudit.render(d.selfAudit, null, () => (
        <SelfAuditSection s={d.selfAudit} />
      ))}
    </>
  );
}

function FailedSection(props: { f: Insights["failedCalls"] }) {
  const f = props.f;
  const codes = f.byCode.slice(0, 7).map((c) => c.code ?? String(c.status));
  const other = f.byCode.length > 7;
  const series = [...codes, ...(other ? ["other"] : [])].map((label) => ({ label }));
  const values = series.map((s) =>
    f.byDay.map((day) =>
      s.label === "other"
        ? Object.entries(day.byCode)
            .filter(([k]) => !codes.includes(k))
            .reduce((n, [, v]) => n + v, 0)
        : (day.byCode[s.label] ?? 0),
    ),
  );
  return (
    <Card id="failed" title="Failed calls by code" empty={f.total === 0 && "No failed call in the window."}>
      <>
        <p>
          <strong>{f.total}</strong> failed calls of agents, hooks and CI on the key API.
        </p>
        <StackedColumns
          title="Failed calls per day by error code"
          description={`${f.total} failed calls over ${f.byDay.length} days; the table below lists them by code.`}
          labels={f.byDay.map((x) => x.date.slice(5))}
          series={series}
          values={values}
        />
        <DataTable caption="Failed calls by error code" columns={["Code", "Calls", "Last", "Projects (fix there)"]}>
          {f.byCode.map((c) => (
            <tr>
              <td>
                <code>{c.code ?? "—"}</code> <span class="muted small">{c.status}</span>
              </td>
              <td>{c.count}</td>
              <td class="small">{when(c.lastAt)}</td>
              <td class="small">
                {c.projects.slice(0, 5).map((p) => (
                  <span>
                    <a href={projectHref(p.projectId, c.status === 401 || c.status === 403 ? "keys" : "activity")}>{p.projectName}</a> (
                    {p.count}){" "}
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </DataTable>
      </>
    </Card>
  );
}

function KeysSection(props: { keys: Insights["keys"] }) {
  return (
    <Card id="keys" title="Keys to review" empty={props.keys.length === 0 && "No key is expired, expiring, or unused."}>
      <DataTable caption="Keys expired, expiring or unused" columns={["Key", "Project", "Why", "Expires", "Last used"]}>
        {props.keys.map((k) => (
          <tr>
            <td>
              <a href={projectHref(k.projectId, "keys")}>{k.name}</a>
              {k.automation ? <span class="tag">automation</span> : null}
            </td>
            <td>
              <a href={projectHref(k.projectId)}>{k.projectName}</a>
            </td>
            <td class={k.reason === "expired" ? "error" : undefined}>{KEY_REASON[k.reason]}</td>
            <td class="small">{when(k.expiresAt)}</td>
            <td class="small">{when(k.lastUsedAt)}</td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}

function SelectionsSection(props: { projects: Insights["projects"] }) {
  return (
    <Card
      id="selections"
      title="Projects with missing prerequisites or conflicts"
      empty={props.projects.length === 0 && "Every project's selection is complete and free of conflicts."}
    >
      <ul>
        {props.projects.map((p) => (
          <li>
            <a href={projectHref(p.projectId)}>{p.projectName}</a>
            {p.missingPrerequisites.length > 0 ? (
              <span class="error small"> · missing {p.missingPrerequisites.map((m) => m.id).join(", ")}</span>
            ) : null}
            {p.conflicts.length > 0 ? (
              <span class="error small"> · conflicts {p.conflicts.map((c) => `${c.a} ↔ ${c.b}`).join(", ")}</span>
            ) : null}
            {p.disabledDependencies.length > 0 ? (
              <span class="small"> · disabled dependencies {p.disabledDependencies.map((x) => x.id).join(", ")}</span>
            ) : null}
            {p.unservable.length > 0 ? <span class="small"> · no longer servable {p.unservable.map((x) => x.id).join(", ")}</span> : null}
            {p.requiredByPolicy.length > 0 ? (
              <span class="error small"> · required by policy: {p.requiredByPolicy.map((x) => `${x.id} (${x.problem})`).join(", ")}</span>
            ) : null}
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** Per resolution, the talents the organization's policy requires that it did not serve (installed everywhere, served when designated). */
function RequiredSection(props: { r: Insights["requiredNotDesignated"] }) {
  const r = props.r;
  return (
    <Card id="required-not-designated" title="Required talents not designated">
      <p>
        <strong>{r.lacking}</strong> of {r.resolutions} resolutions did not serve every talent <a href="/org/policy">the policy</a> requires
        ({r.requiredTalents.join(", ")}): tasks designate what they need, so a required talent reaches an agent only when its task names it.
      </p>
      {r.recent.length > 0 ? (
        <DataTable caption="Resolutions without a required talent, newest first" columns={["Resolution", "Project", "Not designated"]}>
          {r.recent.slice(0, LISTED).map((x) => (
            <tr>
              <td class="small">
                <code>{x.resolutionId}</code> {when(x.createdAt)}
              </td>
              <td>
                <a href={projectHref(x.projectId, "activity")}>{x.projectName}</a>
              </td>
              <td>{x.requiredNotDesignated.join(", ")}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </Card>
  );
}

function AuditSection(props: { a: Insights["neverAudited"] }) {
  const behind = props.a.byProject.filter((p) => p.neverAudited > 0);
  return (
    <Card id="never-audited" title="Resolutions served but never audited">
      <p>
        <strong>{props.a.neverAudited}</strong> of {props.a.served} resolutions (older than {props.a.graceMinutes} minutes) never had their
        playbook fetched.
      </p>
      {behind.length > 0 ? (
        <DataTable caption="Never-audited resolutions per project" columns={["Project", "Served", "Never audited"]}>
          {behind.slice(0, LISTED).map((p) => (
            <tr>
              <td>
                <a href={projectHref(p.projectId, "activity")}>{p.projectName}</a>
              </td>
              <td>{p.served}</td>
              <td>{p.neverAudited}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {behind.length > LISTED ? (
        <p class="small muted">
          …and {behind.length - LISTED} more projects (the {LISTED} with the most are listed).
        </p>
      ) : null}
      {props.a.byClient.filter((c) => c.neverAudited > 0).length > 0 ? (
        <p class="small">
          By development tool:{" "}
          {byToolName(props.a.byClient)
            .map((c) => `${c.name} ${c.neverAudited}/${c.served}`)
            .join(" · ")}
        </p>
      ) : null}
    </Card>
  );
}

/** Never-audited counts by the tool's name (several raw labels, e.g. versions, may name one tool), in first-seen order. */
function byToolName(byClient: Insights["neverAudited"]["byClient"]): { name: string; served: number; neverAudited: number }[] {
  const named = new Map<string, { name: string; served: number; neverAudited: number }>();
  for (const c of byClient) {
    const name = c.client ? clientName(c.client) : "key API";
    const t = named.get(name) ?? { name, served: 0, neverAudited: 0 };
    t.served += c.served;
    t.neverAudited += c.neverAudited;
    named.set(name, t);
  }
  return [...named.values()].filter((t) => t.neverAudited > 0);
}

function FailingSection(props: { expertises: Insights["expertises"] }) {
  return (
    <Card
      id="failing-expertises"
      title="Expertises with failing verdicts"
      empty={props.expertises.length === 0 && "No expertise had a fail verdict in the window."}
    >
      <DataTable caption="Expertises with fail verdicts" columns={["Expertise", "Fail", "Pass", "Latest failure"]}>
        {props.expertises.map((e) => (
          <tr>
            <td>
              <a href={e.expertiseId ? `/org/expertises/${e.expertiseId}` : "/org/expertises"}>
                <code>{e.ref}</code>
              </a>
            </td>
            <td class="error">{e.verdicts.fail}</td>
            <td>{e.verdicts.pass}</td>
            <td class="small">
              {e.lastFail ? (
                <>
                  {when(e.lastFail.at)} in{" "}
                  <a href={projectHref(e.lastFail.projectId, "activity")}>{e.lastFail.projectName ?? e.lastFail.projectId}</a>
                  {e.lastFail.evidence.length > 0 ? (
                    <>
                      {" "}
                      ·{" "}
                      {e.lastFail.evidence.map((x) => (
                        <code>{x} </code>
                      ))}
                    </>
                  ) : null}
                  {e.lastFail.missing.length > 0 ? <> · missing: {e.lastFail.missing.join("; ")}</> : null}
                </>
              ) : (
                "—"
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}

/** Prepare-tasks whose designated talents did not all fit the project's context budget: per project, what was cut most often. */
function BudgetSection(props: { c: Insights["budgetCuts"] }) {
  const c = props.c;
  return (
    <Card
      id="budget-cuts"
      title="Talents cut by the context budget"
      empty={c.resolutions === 0 && "Every prepared task's designated talents fitted its project's context budget."}
    >
      <p>
        <strong>{c.resolutions}</strong> prepared tasks designated more talents than their project's context budget holds: the rest were
        listed by id, not served, so the agent had to read them on its own. Raise <code>contextBudget</code> in the project's settings, or
        designate fewer talents.
      </p>
      <DataTable
        caption="Prepared tasks cut by the context budget, per project"
        columns={["Project", "Prepared tasks cut", "Budget in force", "Talents cut most often"]}
      >
        {c.projects.slice(0, LISTED).map((p) => (
          <tr>
            <td>
              <a href={projectHref(p.projectId, "activity")}>{p.projectName}</a>
            </td>
            <td>
              {p.cut} of {p.prepared}
            </td>
            <td>
              {p.budget.toLocaleString("en")} tokens{p.defaultBudget ? " (default)" : ""} ·{" "}
              <a href={projectHref(p.projectId, "settings")}>raise it in settings</a>
            </td>
            <td class="small">
              {p.talents.map((t) => (
                <span>
                  <a href={talentHref(t.id)}>
                    <code>{t.id}</code>
                  </a>{" "}
                  ({t.count}){" "}
                </span>
              ))}
            </td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}
