/** @jsxImportSource hono/jsx */
/**
 * The project pages (docs/api.md "Pages"): `/projects/new` (pages/newProject.tsx), the two-step onboarding
 * (`/projects/:id/onboarding`: choose talents, then connect an agent), and `/projects/:id`
 * with its tabs (overview: talents, graph, connection, CI; activity; keys; settings). Pages
 * read everything without JavaScript; changes go to the `/web/*` routes (htmx swaps their
 * fragments, or the browser follows their 303 back here).
 */
import { Elysia } from "elysia";
import type { Child } from "hono/jsx";
import type { JournalDeps } from "../../journal/journal";
import type { CatalogDeps } from "../../catalog/state";
import { installedOverview } from "../installed";
import { listKeys } from "../keys";
import { getProject, type Project } from "../service";
import { connectionKit } from "../setup";
import { ConnectionKit, InstalledSection } from "../views";
import { KeysTab, keysPages } from "./keys";
import { AutomationKey } from "../views/automationKey";
import { hasAutomationKey } from "../automationKey";
import { automationKeyPages } from "./automationKey";
import { listSpecializations, type SpecializationView } from "../../specializations/service";
import { requiresClosure } from "../../catalog/graph";
import type { Talent } from "../../catalog/format";
import { createPageGuard } from "../../tenancy/pageSessions";
import { isOrgAdmin } from "../../ui/pageGuard";
import { ProjectHeader, TABS, type Tab } from "./header";
import { Settings, settingsHookRules, settingsPages } from "./settings";
import { newProjectPages } from "./newProject";
import { Layout, page, pageHtml, pageOfBytes } from "../../ui/layout";
import { HtmlMemo, KeptPages } from "../../ui/memo";
import { activityTabHtml } from "../activityTab";
import { loadActivity, readActivityQuery } from "../activityFilters";
import { bothDialects } from "../../db/sqlDialect";

/**
 * Where a specialization stands in a project: `applied` when every talent of its closure is
 * installed; `changed` when it was applied to the project (the activity journal says so) but
 * something of it is no longer installed (applying again installs what is missing); else `new`.
 */
export function specializationState(
  spec: { id: string; talents: readonly string[] },
  installed: ReadonlySet<string>,
  lookup: (id: string) => Talent | undefined,
  appliedBefore: ReadonlySet<string>,
): "applied" | "changed" | "new" {
  const closure = requiresClosure(spec.talents, lookup);
  const all = [...closure.ids, ...closure.missing];
  if (all.length > 0 && all.every((id) => installed.has(id))) return "applied";
  return appliedBefore.has(spec.id) ? "changed" : "new";
}

const APPLIED = bothDialects(
  (d) =>
    `SELECT DISTINCT ${d.jsonField("detail", ["specialization"])} AS id FROM trace_events
     WHERE project_id = ? AND kind = 'apply_specialization'`,
);

/** The specializations applied to a project, as its activity journal remembers (within its retention). */
async function appliedSpecializations(deps: JournalDeps & CatalogDeps, projectId: string): Promise<Set<string>> {
  await deps.journal.settle();
  const rows = await deps.database.all<{ id: string | null }>(APPLIED[deps.database.dialect], [projectId]);
  return new Set(rows.map((r) => r.id).filter((id): id is string => typeof id === "string"));
}

/** The specializations of the onboarding: each says Apply, Applied, or Apply again. */
function SpecList(props: {
  projectId: string;
  specs: SpecializationView[];
  installed: ReadonlySet<string>;
  lookup: (id: string) => Talent | undefined;
  appliedBefore: ReadonlySet<string>;
}) {
  const route = `/web/projects/${props.projectId}/apply-specialization`;
  return (
    <ul class="spec-list">
      {props.specs.map((s) => {
        const state = specializationState(s, props.installed, props.lookup, props.appliedBefore);
        return (
          <li>
            <form method="post" action={route} hx-post={route}>
              <input type="hidden" name="specializationId" value={s.id} />
              <input type="hidden" name="return" value={`/projects/${props.projectId}/onboarding`} />
              <strong>{s.name}</strong>
              {s.builtIn ? null : <span class="tag">custom</span>} <span class="muted small">{s.talents.join(", ")}</span>
              <div class="small">{s.description}</div>
              {state === "applied" ? (
                <button type="submit" class="small secondary" disabled>
                  Applied<span class="visually-hidden"> {s.name}</span>
                </button>
              ) : (
                <button type="submit" class="small">
                  {state === "changed" ? "Apply again" : "Apply"}
                  <span class="visually-hidden"> {s.name}</span>
                </button>
              )}
            </form>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * The connection kit's HTML by what it is made of (the base URL, the project's id and name):
 * several KB of configurations and the instruction stub, the same on every view of the page.
 */
const kits = new HtmlMemo(256);
/** The Activity tab's pages (ui/memo.ts KeptPages). */
const activityPages = new KeptPages(4 * 1024 * 1024);
function connectionKitHtml(baseUrl: string, project: Project) {
  return kits.render(`${baseUrl}\n${project.id}\n${project.name}`, () => {
    const kit = connectionKit(baseUrl, project);
    return <ConnectionKit mcpUrl={kit.mcpUrl} clients={kit.clients} instructions={kit.instructions} />;
  });
}

export function projectPages(deps: CatalogDeps & JournalDeps) {
  const catalog = () => deps.state.catalog!;

  return new Elysia()
    .use(createPageGuard(deps))
    .use(automationKeyPages(deps))
    .use(settingsPages(deps))
    .use(keysPages(deps))
    .use(newProjectPages(deps))
    .get(
      "/projects/:id/onboarding",
      async ({ page: ctx, org, params, query }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const step = query.step === "connect" ? "connect" : "talents";
        const steps = (
          <ol class="steps">
            <li aria-current={step === "talents" ? "step" : undefined}>
              <a href={`/projects/${project.id}/onboarding`}>Choose talents</a>
            </li>
            <li aria-current={step === "connect" ? "step" : undefined}>
              <a href={`/projects/${project.id}/onboarding?step=connect`}>Connect an agent</a>
            </li>
          </ol>
        );
        if (step === "connect") {
          return page(
            <Layout title={`Connect an agent · ${project.name}`} user={ctx.session.user} nav={ctx.nav}>
              <h1>{project.name}: connect an agent</h1>
              {steps}
              <section class="card">
                <h2>Interactive agents</h2>
                <p>Add this project to your agent; it opens a browser to sign in and allow it. Then ask it to follow AGENTS.md.</p>
                {connectionKitHtml(deps.config.baseUrl, project)}
              </section>
              <section class="card">
                <h2>Hooks and CI</h2>
                <p>They use the project's automation key with the key API (curl or the talentd client).</p>
                <AutomationKey
                  projectId={project.id}
                  exists={await hasAutomationKey(deps.database, project.id)}
                  returnTo={`/projects/${project.id}/onboarding?step=connect`}
                />
              </section>
              <p>
                <a class="button" href={`/projects/${project.id}`}>
                  Done: open the project
                </a>
              </p>
            </Layout>,
          );
        }
        const [overview, specs, appliedBefore] = await Promise.all([
          installedOverview({ database: deps.database, catalog: catalog() }, project),
          listSpecializations(deps.database, catalog(), project.organizationId),
          appliedSpecializations(deps, project.id),
        ]);
        return page(
          <Layout title={`Choose talents · ${project.name}`} user={ctx.session.user} nav={ctx.nav}>
            <h1>{project.name}: choose talents</h1>
            {steps}
            <section class="card">
              <h2>Start from a specialization</h2>
              <p class="muted">A bundle for a kind of codebase; its prerequisites come along. You can change everything later.</p>
              <SpecList
                projectId={project.id}
                specs={specs}
                installed={new Set(overview.talents.map((t) => t.id))}
                lookup={(id) => catalog().get(id)}
                appliedBefore={appliedBefore}
              />
              <p>
                Or <a href={`/catalog?project=${project.id}`}>pick single talents in the catalog</a>.
              </p>
            </section>
            <InstalledSection projectId={project.id} overview={overview} catalog={catalog()} />
            <p>
              <a class="button" href={`/projects/${project.id}/onboarding?step=connect`}>
                Next: connect an agent
              </a>
            </p>
          </Layout>,
        );
      },
      { orgPage: "member" },
    )
    .get(
      "/projects/:id",
      async ({ page: ctx, org, params, query }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const tab: Tab = (TABS as readonly string[]).includes(String(query.tab)) ? (query.tab as Tab) : "overview";
        let body: Child;
        if (tab === "activity") {
          const q = readActivityQuery(query);
          const a = await loadActivity(deps.database, deps.journal, project.id, q);
          // the whole page is kept while its kept read is the same object and nothing else it shows changed
          const key = JSON.stringify([ctx.session.user.email, ctx.nav, project, q]);
          const draw = () =>
            pageHtml(
              <Layout title={project.name} user={ctx.session.user} nav={ctx.nav}>
                <ProjectHeader project={project} tab={tab} />
                {activityTabHtml(a, project.id, q)}
              </Layout>,
            );
          return pageOfBytes(activityPages.bytes(key, [a], draw));
        } else if (tab === "keys") {
          body = <KeysTab project={project} keys={await listKeys(deps.database, project.id)} />;
        } else if (tab === "settings") {
          const hookRules = await settingsHookRules(deps, org.id, project.id);
          body = <Settings project={project} admin={isOrgAdmin(org)} hookRules={hookRules} />;
        } else {
          const overview = await installedOverview({ database: deps.database, catalog: catalog() }, project);
          body = (
            <>
              <InstalledSection projectId={project.id} overview={overview} catalog={catalog()} />
              <details class="card" id="connection">
                <summary>
                  <h2>Connect an agent</h2>
                </summary>
                {connectionKitHtml(deps.config.baseUrl, project)}
              </details>
              <details class="card" id="ci">
                <summary>
                  <h2>CI validation and hooks</h2>
                </summary>
                <p>
                  Hooks and CI call the key API with the project's automation key (<code>TALENTD_URL</code>, <code>TALENTD_KEY</code>).
                </p>
                <AutomationKey projectId={project.id} exists={await hasAutomationKey(deps.database, project.id)} />
                <pre>{connectionKit(deps.config.baseUrl, project).automation.hook}</pre>
              </details>
            </>
          );
        }
        return page(
          <Layout title={project.name} user={ctx.session.user} nav={ctx.nav}>
            <ProjectHeader project={project} tab={tab} />
            {body}
          </Layout>,
        );
      },
      { orgPage: "member" },
    );
}
