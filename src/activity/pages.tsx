/** @jsxImportSource hono/jsx */
/**
 * `/org/insights` and `/org/talent-adoption` (docs/design.md, "Insights and adoption"):
 * the organization's operational health and its talents' adoption, for its owners and admins
 * (anyone else gets the 404 page). They read the same data as `GET /web/orgs/current/insights`
 * and `GET /web/orgs/current/talent-adoption`; every item links to where it is fixed. Charts
 * are server-side SVG; adoption sorts on the server (`?sort=<column>&order=asc|desc`).
 */
import { Elysia } from "elysia";
import type { JournalDeps } from "../journal/journal";
import type { CatalogDeps } from "../catalog/state";
import { adoptionView } from "./adoption";
import { dashboardReadCap } from "./readCap";
import { insights } from "./insights";
import { readWindow } from "./summaries";
import { listProjects } from "../projects/service";
import { StackedBars } from "../ui/charts";
import { createPageGuard } from "../tenancy/pageSessions";
import { DataTable, Layout, page } from "../ui/layout";
import { HtmlByObject } from "../ui/memo";
import { InsightsBody } from "./views";
import { EXPERTISES_ADMIN } from "../expertises/pages";

type Adoption = Awaited<ReturnType<typeof adoptionView>>;
type Entry = Adoption["talents"][number];

const pct = (r: number | null) => (r === null ? "—" : `${Math.round(r * 100)} %`);
const talentHref = (e: { id: string; kind: string; expertiseId: string | null }) =>
  e.kind === "expertise" ? (e.expertiseId ? `/org/expertises/${e.expertiseId}` : "/org/expertises") : `/catalog/${e.id}`;

/** The window chooser shared by both pages. */
export function WindowForm(props: { action: string; days: number; extra?: Record<string, string> }) {
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
  const top = [...props.d.talents]
    .sort((a, b) => b.designations - a.designations || (a.id < b.id ? -1 : 1))
    .filter((e) => e.designations > 0)
    .slice(0, 15);
  const judged = [...props.d.talents]
    .filter((e) => e.withVerdict > 0)
    .sort((a, b) => b.withVerdict - a.withVerdict || (a.id < b.id ? -1 : 1))
    .slice(0, 15);
  return (
    <>
      {top.length > 0 ? (
        <section class="card" aria-labelledby="chart-h">
          <h2 id="chart-h">Designations and audits</h2>
          <StackedBars
            title="Designations per talent, audited and not"
            description={`The ${top.length} most designated talents and expertises of the window; the table below has every figure.`}
            items={top.map((e) => ({ label: e.id, values: [e.audited, e.designations - e.audited] }))}
            series={[
              { label: "audited", colour: "#2f5d50" },
              { label: "not audited", colour: "#b7791f" },
            ]}
          />
          {judged.length > 0 ? (
            <StackedBars
              title="Verdict outcomes per talent"
              description={`Final verdicts of the ${judged.length} talents and expertises with verdicts in the window.`}
              items={judged.map((e) => ({ label: e.id, values: [e.outcomes.pass, e.outcomes.fail, e.outcomes.not_applicable] }))}
              series={[
                { label: "pass", colour: "#2f5d50" },
                { label: "fail", colour: "#9b2c2c" },
                { label: "not applicable", colour: "#4a5568" },
              ]}
            />
          ) : null}
        </section>
      ) : null}
      <section class="card" aria-labelledby="table-h">
        <h2 id="table-h">Per talent and expertise</h2>
        {rows.length === 0 ? (
          <p class="muted">No talent installed or served yet.</p>
        ) : (
          <DataTable
            label="Adoption per talent and expertise"
            class="sortable"
            caption={`Adoption per talent and expertise, sorted by ${COLUMNS.find((c) => c.key === sort)!.label} (${
              order === "asc" ? "ascending" : "descending"
            })`}
            columns={COLUMNS.map((c) => {
              const current = c.key === sort;
              const next = current ? (order === "asc" ? "desc" : "asc") : c.numeric ? "desc" : "asc";
              return {
                label: c.label,
                sort: current ? (order === "asc" ? "ascending" : "descending") : undefined,
                head: (
                  <a href={`/org/talent-adoption?days=${days}&sort=${c.key}&order=${next}`}>
                    {c.label}
                    {current ? (order === "asc" ? " ▲" : " ▼") : ""}
                  </a>
                ),
              };
            })}
          >
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
                      {e.outcomes.pass} / <span class={e.outcomes.fail > 0 ? "error" : undefined}>{e.outcomes.fail}</span> /{" "}
                      {e.outcomes.not_applicable}
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
          </DataTable>
        )}
      </section>
    </>
  );
}

/** The adoption body drawn once per answer (the same object while nothing changed), window and order. */
const adoptionDrawn = new HtmlByObject<object, { days: number; sort: string; order: string }>(
  (a, b) => a.days === b.days && a.sort === b.sort && a.order === b.order,
);

export function orgInsightsPages(deps: CatalogDeps & JournalDeps) {
  const window = (query: Record<string, unknown>) => readWindow(query, deps.config.eventRetentionDays);
  const cap = dashboardReadCap(deps.database, deps.config.dashboardReadsPerUser);
  return new Elysia()
    .use(createPageGuard(deps))
    .get(
      "/org/insights",
      async ({ page: ctx, org, query, request }) => {
        const w = window(query);
        const projects = await listProjects(deps.database, org.id);
        // a heavy read, under the same per-user cap as the JSON routes (src/activity/readCap.ts)
        const d = await cap.run(ctx.session.user.id, request, async () => {
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
              What needs attention in the last {w.days} days: each item links to where it is fixed. See also{" "}
              <a href="/org/talent-adoption">talent adoption</a> and <a href={`/org/insights/rules?days=${w.days}`}>rules</a>.
            </p>
            <InsightsBody d={d} />
          </Layout>,
        );
      },
      { orgPage: EXPERTISES_ADMIN },
    )
    .get(
      "/org/talent-adoption",
      async ({ page: ctx, org, query, request }) => {
        const w = window(query);
        const projects = await listProjects(deps.database, org.id);
        const d = await cap.run(ctx.session.user.id, request, async () => {
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
              How the talents and expertises of {org.name} are used across its {projects.length} projects in the last {w.days} days. See
              also <a href="/org/insights">insights</a>.
            </p>
            {adoptionDrawn.render(d.talents, { days: d.days, sort, order }, () => (
              <AdoptionBody d={d} sort={sort} order={order} />
            ))}
          </Layout>,
        );
      },
      { orgPage: EXPERTISES_ADMIN },
    );
}
