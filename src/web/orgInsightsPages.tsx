/** @jsxImportSource hono/jsx */
/**
 * `/org/insights` and `/org/talent-adoption` (spec D; DESIGN §11 "Insights and adoption"):
 * the organization's operational health and its talents' adoption, for its owners and admins
 * (anyone else gets the 404 page). They read the same data as `GET /web/orgs/current/insights`
 * and `GET /web/orgs/current/talent-adoption`; every item links to where it is fixed. Charts
 * are server-side SVG; adoption sorts on the server (`?sort=<column>&order=asc|desc`).
 */
import { Elysia } from "elysia";
import type { ComposedDeps } from "../deps";
import { adoptionView } from "../activity/adoption";
import { dashboardReadCap } from "../activity/readCap";
import { insights } from "../activity/insights";
import { readWindow } from "../activity/summaries";
import { listProjects } from "../projects/service";
import { StackedBars, StackedColumns } from "./charts";
import { pageContext } from "./context";
import { Card, DataTable, Layout, page } from "./layout";
import { HtmlByObject } from "./memo";
import { adminOrg } from "./orgExpertisesPages";

type Insights = Awaited<ReturnType<typeof insights>>;
type Adoption = Awaited<ReturnType<typeof adoptionView>>;
type Entry = Adoption["talents"][number];

const when = (s: string | null | undefined) => (s ? s.replace("T", " ").slice(0, 16) : "—");
const pct = (r: number | null) => (r === null ? "—" : `${Math.round(r * 100)} %`);
const talentHref = (e: { id: string; kind: string; expertiseId: string | null }) => (e.kind === "expertise" ? (e.expertiseId ? `/org/expertises/${e.expertiseId}` : "/org/expertises") : `/catalog/${e.id}`);
const projectHref = (id: string, tab?: string) => `/projects/${id}${tab ? `?tab=${tab}` : ""}`;

/** The window chooser shared by both pages. */
function WindowForm(props: { action: string; days: number; extra?: Record<string, string> }) {
  return (
    <form method="get" action={props.action} class="inline">
      {Object.entries(props.extra ?? {}).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      <label for="days" class="visually-hidden">
        Window
      </label>
      <select id="days" name="days">
        {[7, 30, 90].map((d) => (
          <option value={String(d)} selected={d === props.days}>
            Last {d} days
          </option>
        ))}
      </select>
      <button type="submit" class="secondary small">
        Show
      </button>
    </form>
  );
}

/** Rows of a long list shown on the page (the JSON route has them all). */
const LISTED = 20;

const KEY_REASON: Record<string, string> = { expired: "expired", expiring: "expires soon", never_used: "never used", unused: "not used lately" };

/**
 * Each section of the insights page is drawn once per answer: the answers are the same objects
 * while nothing changed (src/activity/dayMemo.ts keptAnswer), so a view with no commit since the
 * last draws nothing (src/web/memo.ts).
 */
const drawn = { failed: new HtmlByObject<object, null>(() => true), keys: new HtmlByObject<object, null>(() => true), selections: new HtmlByObject<object, null>(() => true), audit: new HtmlByObject<object, null>(() => true), failing: new HtmlByObject<object, null>(() => true) };

function InsightsBody(props: { d: Insights }) {
  const d = props.d;
  return (
    <>
      {drawn.failed.render(d.failedCalls, null, () => <FailedSection f={d.failedCalls} />)}
      {drawn.keys.render(d.keys, null, () => <KeysSection keys={d.keys} />)}
      {drawn.selections.render(d.projects, null, () => <SelectionsSection projects={d.projects} />)}
      {drawn.audit.render(d.neverAudited, null, () => <AuditSection a={d.neverAudited} />)}
      {drawn.failing.render(d.expertises, null, () => <FailingSection expertises={d.expertises} />)}
    </>
  );
}

function FailedSection(props: { f: Insights["failedCalls"] }) {
  const f = props.f;
  const codes = f.byCode.slice(0, 7).map((c) => c.code ?? String(c.status));
  const other = f.byCode.length > 7;
  const series = [...codes, ...(other ? ["other"] : [])].map((label) => ({ label }));
  const values = series.map((s) => f.byDay.map((day) => (s.label === "other" ? Object.entries(day.byCode).filter(([k]) => !codes.includes(k)).reduce((n, [, v]) => n + v, 0) : (day.byCode[s.label] ?? 0))));
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
                    <a href={projectHref(p.projectId, c.status === 401 || c.status === 403 ? "keys" : "activity")}>{p.projectName}</a> ({p.count}){" "}
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
    <Card id="selections" title="Projects with missing prerequisites or conflicts" empty={props.projects.length === 0 && "Every project's selection is complete and free of conflicts."}>
      <ul>
        {props.projects.map((p) => (
          <li>
            <a href={projectHref(p.projectId)}>{p.projectName}</a>
            {p.missingPrerequisites.length > 0 ? <span class="error small"> · missing {p.missingPrerequisites.map((m) => m.id).join(", ")}</span> : null}
            {p.conflicts.length > 0 ? <span class="error small"> · conflicts {p.conflicts.map((c) => `${c.a} ↔ ${c.b}`).join(", ")}</span> : null}
            {p.disabledDependencies.length > 0 ? <span class="small"> · disabled dependencies {p.disabledDependencies.map((x) => x.id).join(", ")}</span> : null}
            {p.unservable.length > 0 ? <span class="small"> · no longer servable {p.unservable.map((x) => x.id).join(", ")}</span> : null}
          </li>
        ))}
      </ul>
    </Card>
  );
}

function AuditSection(props: { a: Insights["neverAudited"] }) {
  return (
    <Card id="never-audited" title="Resolutions served but never audited">
      <p>
        <strong>{props.a.neverAudited}</strong> of {props.a.served} resolutions (older than {props.a.graceMinutes} minutes) never had their playbook fetched.
      </p>
      {props.a.byProject.filter((p) => p.neverAudited > 0).length > 0 ? (
        <DataTable caption="Never-audited resolutions per project" columns={["Project", "Served", "Never audited"]}>
          {props.a.byProject
            .filter((p) => p.neverAudited > 0)
            .slice(0, LISTED)
            .map((p) => (
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
      {props.a.byProject.filter((p) => p.neverAudited > 0).length > LISTED ? (
        <p class="small muted">…and {props.a.byProject.filter((p) => p.neverAudited > 0).length - LISTED} more projects (the {LISTED} with the most are listed).</p>
      ) : null}
      {props.a.byClient.filter((c) => c.neverAudited > 0).length > 0 ? (
        <p class="small">
          By development tool:{" "}
          {props.a.byClient
            .filter((c) => c.neverAudited > 0)
            .map((c) => `${c.client ?? "key API"} ${c.neverAudited}/${c.served}`)
            .join(" · ")}
        </p>
      ) : null}
    </Card>
  );
}

function FailingSection(props: { expertises: Insights["expertises"] }) {
  return (
    <Card id="failing-expertises" title="Expertises with failing verdicts" empty={props.expertises.length === 0 && "No expertise had a fail verdict in the window."}>
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
                  {when(e.lastFail.at)} in <a href={projectHref(e.lastFail.projectId, "activity")}>{e.lastFail.projectName ?? e.lastFail.projectId}</a>
                  {e.lastFail.evidence.length > 0 ? <> · {e.lastFail.evidence.map((x) => <code>{x} </code>)}</> : null}
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

/** The sortable columns of the adoption table and how each sorts. */
const COLUMNS: { key: string; label: string; value: (e: Entry) => number | string; numeric: boolean }[] = [
  { key: "talent", label: "Talent or expertise", value: (e) => e.id, numeric: false },
  { key: "installed", label: "Installed", value: (e) => e.projects.installed, numeric: true },
  { key: "active", label: "Active", value: (e) => e.projects.active, numeric: true },
  { key: "designations", label: "Designations", value: (e) => e.designations, numeric: true },
  { key: "audit", label: "Audit rate", value: (e) => e.auditRate ?? -1, numeric: true },
  { key: "verdicts", label: "Verdicts (pass / fail / n.a.)", value: (e) => e.withVerdict, numeric: true },
  { key: "versions", label: "Versions in use", value: (e) => e.versions.filter((v) => !v.latest).length, numeric: true },
];

/** Sorts adoption entries by a column (ties by id); unknown column → designations, descending. */
export function sortAdoption(entries: Entry[], sort: unknown, order: unknown): { rows: Entry[]; sort: string; order: "asc" | "desc" } {
  const col = COLUMNS.find((c) => c.key === sort) ?? COLUMNS.find((c) => c.key === "designations")!;
  const dir: "asc" | "desc" = order === "asc" || order === "desc" ? order : col.numeric ? "desc" : "asc";
  const sign = dir === "asc" ? 1 : -1;
  const rows = [...entries].sort((a, b) => {
    const x = col.value(a);
    const y = col.value(b);
    const c = x < y ? -1 : x > y ? 1 : 0;
    return c * sign || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  });
  return { rows, sort: col.key, order: dir };
}

function AdoptionBody(props: { d: Adoption; sort: unknown; order: unknown }) {
  const { rows, sort, order } = sortAdoption(props.d.talents, props.sort, props.order);
  const days = props.d.days;
  const top = [...props.d.talents].sort((a, b) => b.designations - a.designations || (a.id < b.id ? -1 : 1)).filter((e) => e.designations > 0).slice(0, 15);
  const judged = [...props.d.talents].filter((e) => e.withVerdict > 0).sort((a, b) => b.withVerdict - a.withVerdict || (a.id < b.id ? -1 : 1)).slice(0, 15);
  return (
    <>
      {top.length > 0 ? (
        <section class="card" aria-labelledby="chart-h">
          <h2 id="chart-h">Designations and audits</h2>
          <StackedBars
            title="Designations per talent, audited and not"
            description={`The ${top.length} most designated talents and expertises of the window; the table below has every figure.`}
            items={top.map((e) => ({ label: e.id, values: [e.audited, e.designations - e.audited] }))}
            series={[{ label: "audited", colour: "#2f5d50" }, { label: "not audited", colour: "#b7791f" }]}
          />
          {judged.length > 0 ? (
            <StackedBars
              title="Verdict outcomes per talent"
              description={`Final verdicts of the ${judged.length} talents and expertises with verdicts in the window.`}
              items={judged.map((e) => ({ label: e.id, values: [e.outcomes.pass, e.outcomes.fail, e.outcomes.not_applicable] }))}
              series={[{ label: "pass", colour: "#2f5d50" }, { label: "fail", colour: "#9b2c2c" }, { label: "not applicable", colour: "#4a5568" }]}
            />
          ) : null}
        </section>
      ) : null}
      <section class="card" aria-labelledby="table-h">
        <h2 id="table-h">Per talent and expertise</h2>
        {rows.length === 0 ? (
          <p class="muted">No talent installed or served yet.</p>
        ) : (
          <table class="sortable">
            <caption class="visually-hidden">Adoption per talent and expertise, sorted by {COLUMNS.find((c) => c.key === sort)!.label} ({order === "asc" ? "ascending" : "descending"})</caption>
            <thead>
              <tr>
                {COLUMNS.map((c) => {
                  const current = c.key === sort;
                  const next = current ? (order === "asc" ? "desc" : "asc") : c.numeric ? "desc" : "asc";
                  return (
                    <th scope="col" aria-sort={current ? (order === "asc" ? "ascending" : "descending") : undefined}>
                      <a href={`/org/talent-adoption?days=${days}&sort=${c.key}&order=${next}`}>
                        {c.label}
                        {current ? (order === "asc" ? " ▲" : " ▼") : ""}
                      </a>
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr>
                  <td>
                    <a href={talentHref(e)}>
                      <code>{e.id}</code>
                    </a>
                    {e.kind === "expertise" ? <span class="tag">expertise</span> : null}
                    {e.status && e.status !== "active" ? <span class="muted small"> {e.status}</span> : null}
                  </td>
                  <td>{e.projects.installed}</td>
                  <td>{e.projects.active}</td>
                  <td>{e.designations}</td>
                  <td>{pct(e.auditRate)}</td>
                  <td>
                    {e.withVerdict === 0 ? (
                      "—"
                    ) : (
                      <>
                        {e.outcomes.pass} / <span class={e.outcomes.fail > 0 ? "error" : undefined}>{e.outcomes.fail}</span> / {e.outcomes.not_applicable}
                      </>
                    )}
                  </td>
                  <td class="small">
                    {e.versions.length === 0
                      ? e.latestVersion
                        ? `latest ${e.latestVersion}, not served`
                        : "—"
                      : e.versions.map((v) => (
                          <span class={v.latest ? undefined : "behind"}>
                            {v.version}
                            {v.latest ? " (latest)" : ` (latest ${e.latestVersion ?? "?"})`}: {v.designations}{" "}
                          </span>
                        ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

/** The adoption body drawn once per answer (the same object while nothing changed), window and order. */
const adoptionDrawn = new HtmlByObject<object, { days: number; sort: string; order: string }>((a, b) => a.days === b.days && a.sort === b.sort && a.order === b.order);

export function orgInsightsPages(deps: ComposedDeps) {
  const window = (query: Record<string, unknown>) => readWindow(query, deps.config.eventRetentionDays);
  const cap = dashboardReadCap(deps.database, deps.config.dashboardReadsPerUser);
  return new Elysia()
    .get("/org/insights", async ({ request, query }) => {
      const ctx = await pageContext(deps, request);
      if (ctx instanceof Response) return ctx;
      const org = adminOrg(ctx);
      const w = window(query);
      const projects = await listProjects(deps.database, org.id);
      // a heavy read, under the same per-user cap as the JSON routes (src/activity/readCap.ts)
      const d = await cap.run(ctx.session.user.id, async () => {
        await deps.journal.settle();
        return insights(deps.database, deps.state.catalog!, org, projects, w);
      });
      return page(
        <Layout title="Insights" user={ctx.session.user} nav={ctx.nav}>
          <div class="row">
            <h1>Insights of {org.name}</h1>
            <WindowForm action="/org/insights" days={w.days} />
          </div>
          <p class="muted">
            What needs attention in the last {w.days} days: each item links to where it is fixed. See also <a href="/org/talent-adoption">talent adoption</a>.
          </p>
          <InsightsBody d={d} />
        </Layout>,
      );
    })
    .get("/org/talent-adoption", async ({ request, query }) => {
      const ctx = await pageContext(deps, request);
      if (ctx instanceof Response) return ctx;
      const org = adminOrg(ctx);
      const w = window(query);
      const projects = await listProjects(deps.database, org.id);
      const d = await cap.run(ctx.session.user.id, async () => {
        await deps.journal.settle();
        return adoptionView(deps.database, deps.state.catalog!, org, projects.length, w);
      });
      const sort = typeof query.sort === "string" ? query.sort : "";
      const order = typeof query.order === "string" ? query.order : "";
      return page(
        <Layout title="Talent adoption" user={ctx.session.user} nav={ctx.nav}>
          <div class="row">
            <h1>Talent adoption</h1>
            <WindowForm action="/org/talent-adoption" days={w.days} extra={sort ? { sort, order } : {}} />
          </div>
          <p class="muted">
            How the talents and expertises of {org.name} are used across its {projects.length} projects in the last {w.days} days. See also <a href="/org/insights">insights</a>.
          </p>
          {adoptionDrawn.render(d.talents, { days: d.days, sort, order }, () => <AdoptionBody d={d} sort={sort} order={order} />)}
        </Layout>,
      );
    });
}
