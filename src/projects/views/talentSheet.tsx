/** @jsxImportSource hono/jsx */
/** The talent sheet (`/catalog/<id>`, pages/catalog.tsx): what a talent is, what it needs, its rules, tests, served form and files. */
import type { MeasuredEffect } from "../measuredEffect";
import { MeasuredEffectBlock } from "./measuredEffect";
import type { talentSheet } from "../../catalog/people";
import type { Talent } from "../../catalog/format";
import { hookSays } from "../../catalog/hookWords";
import { detectorSeverity } from "../../catalog/measured";
import type { Project } from "../service";
import type { PageContext } from "../../tenancy/pageSessions";
import { GraphSvg, type GraphNodeView } from "../../ui/graph";
import { DataTable, Layout } from "../../ui/layout";
import { InlineMarkdown, plainInline } from "../../ui/markdown";
import { talentHref } from "./catalog";
import { InstallInto, ProjectStates, type ProjectWithState } from "./sheetProjects";
import { SheetByline, SheetFacts } from "./sheetFields";

/** What the hook does with a rule as shipped (catalog/hookWords.ts): "hook: blocks", "hook: advises (why)", or none without a detector. */
function hookOf(r: Talent["rules"][number] | undefined): string {
  if (!r?.detect?.length) return "hook: no detector (review only)";
  return `hook: ${hookSays({ shipped: r.severity, earned: detectorSeverity(r) === "blocking" })}`;
}

/** The talent sheet: graph, roles, triggers, budget, rules, conformance tests, compact preview, files, install into a project. */
export function TalentSheet(props: {
  ctx: PageContext;
  /** The version as the sheet says it (an expertise's: declared, with its publication). */
  version: string;
  t: Talent;
  sheet: ReturnType<typeof talentSheet>;
  nodes: GraphNodeView[];
  /** The organization's projects, each with the talent's state there. */
  projects: ProjectWithState[];
  /** The project whose states the graph shows. */
  chosen: Project | undefined;
  /** The latest uploaded eval's effect of this talent in the organization's projects. */
  measured: MeasuredEffect | null;
}) {
  const { ctx, t, sheet, nodes, projects } = props;
  return (
    <Layout title={plainInline(t.title)} user={ctx.session.user} nav={ctx.nav}>
      <p class="crumbs">
        <a href="/catalog">Catalog</a> /
      </p>
      <h1>
        <InlineMarkdown text={t.title} />
      </h1>
      <p>
        <code>{t.id}</code> · version {props.version}
        <SheetByline t={t} /> {t.kind === "expertise" ? <span class="tag">expertise</span> : null}
      </p>
      <p>
        <InlineMarkdown text={t.summary} />
      </p>
      <InstallInto id={t.id} rows={projects} />
      <ProjectStates id={t.id} href={talentHref(t.id)} rows={projects} chosen={props.chosen} />
      <GraphSvg
        nodes={nodes}
        edges={sheet.graph.edges}
        title={`What ${t.id} requires, what requires it, and what it conflicts with${props.chosen ? `, as installed in ${props.chosen.name}` : ""}`}
      />
      <SheetFacts t={t} />
      <MeasuredEffectBlock m={props.measured} />
      <h2>Rules</h2>
      <DataTable caption="Rules and how to check them" columns={["Rule", "Severity", "Rule and check"]}>
        {sheet.rules.map((r, i) => (
          <tr id={`rule-${r.id}`}>
            <td>
              <code class="rule-id">{r.id}</code>
            </td>
            <td>
              <span class={`severity ${r.severity}`}>{r.severity}</span>
              <div class="muted small">{hookOf(t.rules[i])}</div>
            </td>
            <td>
              <InlineMarkdown text={r.title} />
              <div class="muted small">
                Check: <InlineMarkdown text={r.check} />
              </div>
            </td>
          </tr>
        ))}
      </DataTable>
      {sheet.tests.length > 0 ? (
        <>
          <h2>Conformance tests</h2>
          <DataTable caption="Passing and failing samples per rule" columns={["Rule", "Passes", "Fails"]}>
            {sheet.tests.map((x) => (
              <tr>
                <td>
                  <code class="rule-id">{x.rule}</code>
                </td>
                <td>
                  <code>{x.pass}</code>
                </td>
                <td>
                  <code>{x.fail}</code>
                </td>
              </tr>
            ))}
          </DataTable>
        </>
      ) : null}
      <h2>What an agent is served</h2>
      <pre class="compact">{sheet.compact}</pre>
      <h2>Files</h2>
      <ul>
        {sheet.files.map((f) => (
          <li>
            <code>{f.path}</code>{" "}
            <span class="muted small">
              {f.size} bytes · {f.digest.slice(0, 19)}…
            </span>
          </li>
        ))}
      </ul>
    </Layout>
  );
}
