/** @jsxImportSource hono/jsx */
/**
 * The HTML views of the project routes (docs/design.md "JSON by default, HTML when a browser asks": a resource's fragments beside its
 * routes): the installed-talent section (counts, graph, list with toggle and uninstall), the
 * keys section (a new key's value shown once), the automation key, and the connection kit.
 * The project page (src/projects/pages/project.tsx) renders the same components; after a change
 * through htmx the route answers the updated section (projectViews, in the routes' descriptors).
 */
import type { CatalogDeps } from "../catalog/state";
import type { ViewDeps } from "../deps";
import type { Catalog } from "../catalog/catalog";
import { AppError } from "../http/errors";
import { getProject } from "./service";
import { GraphSvg, type GraphEdgeView, type GraphNodeView } from "../ui/graph";
import { HtmlByObject } from "../ui/memo";
import { formReturn, returnPath, type RouteView, type ViewContext } from "../ui/views";
import { DataTable } from "../ui/layout";
import { AutomationKey } from "./views/automationKey";
import { KeysSection } from "./views/keys";
import { PROJECT_STATUSES } from "./statuses";
import { confirmations } from "../ui/confirmations";
import { dependentsWithin } from "../catalog/graph";
import { installedOverview, type InstalledTalentView } from "./installed";
import { listKeys, type KeyView } from "./keys";
import type { ClientConfig } from "./setup";

type Overview = Awaited<ReturnType<typeof installedOverview>>;

const talentHref = (id: string) => `/catalog/${id.startsWith("@") ? encodeURIComponent(id) : id}`;
const talentPath = (id: string) => (id.startsWith("@") ? encodeURIComponent(id) : id);

/** The installed talents and what they require, as graph nodes and edges. */
export function selectionGraph(o: Overview, catalog: Catalog): { nodes: GraphNodeView[]; edges: GraphEdgeView[] } {
  const nodes = new Map<string, GraphNodeView>();
  const edges: GraphEdgeView[] = [];
  for (const t of o.talents)
    nodes.set(t.id, { id: t.id, label: t.id, state: t.state === "active" ? "active" : "disabled", href: talentHref(t.id) });
  for (const t of o.talents) {
    for (const r of t.requires) {
      if (!nodes.has(r)) nodes.set(r, { id: r, label: r, state: "missing", href: catalog.get(r) ? talentHref(r) : undefined });
      edges.push({ from: t.id, to: r, type: "requires" });
    }
    for (const c of catalog.get(t.id)?.conflicts ?? []) if (nodes.has(c) && t.id < c) edges.push({ from: t.id, to: c, type: "conflicts" });
  }
  return { nodes: [...nodes.values()], edges };
}

function InstalledRow(props: { projectId: string; t: InstalledTalentView; setBy: string | null; neededBy: string[] }) {
  const { t, projectId } = props;
  const target = `/web/projects/${projectId}/talents/${talentPath(t.id)}`;
  return (
    <tr>
      <td>
        <a href={talentHref(t.id)}>{t.id}</a>
        {t.kind === "expertise" ? <span class="tag">expertise</span> : null}
        {t.requiredByPolicy ? (
          <span class="tag required" title="Required by the organization's policy">
            <svg aria-hidden="true" width="9" height="10" viewBox="0 0 16 18" fill="currentColor">
              <path d="M4 8V5a4 4 0 0 1 8 0v3h2v10H2V8h2zm2 0h4V5a2 2 0 0 0-4 0v3z" />
            </svg>{" "}
            required
          </span>
        ) : null}
        {t.title ? <div class="muted small">{t.title}</div> : null}
      </td>
      <td>{t.version ?? "—"}</td>
      <td>
        <span class={`state ${t.state}`}>{t.state}</span>
        {!t.servable ? <div class="error small">no longer servable</div> : null}
        {t.missingDependencies.length > 0 ? <div class="error small">needs {t.missingDependencies.join(", ")}</div> : null}
        {t.disabledDependencies.length > 0 ? <div class="small">needs enabled: {t.disabledDependencies.join(", ")}</div> : null}
      </td>
      <td class="actions">
        {t.requiredByPolicy ? (
          <p class="small muted policy-lock">
            Required by <a href="/org/policy">policy</a>
            {props.setBy ? `, set by ${props.setBy}` : ""}
          </p>
        ) : (
          <RowActions t={t} target={target} neededBy={props.neededBy} />
        )}
      </td>
    </tr>
  );
}

/**
 * Disable (or enable) and uninstall, for a talent the policy does not require. When enabled talents need it, neither
 * asks in the browser: the server's answer asks, naming them (routes/selection.ts), so the question is never stale.
 */
function RowActions(props: { t: InstalledTalentView; target: string; neededBy: string[] }) {
  const { t, target } = props;
  const ask = props.neededBy.length > 0 ? {} : { "hx-confirm": confirmations.uninstall(t.id).question };
  return (
    <div class="row-actions">
      <form method="post" action={`${target}?_method=PATCH`} hx-patch={target} hx-target="#installed" hx-swap="outerHTML">
        <input type="hidden" name="enabled" value={t.state === "active" ? "false" : "true"} />
        <button type="submit" class="secondary small">
          {t.state === "active" ? "Disable" : "Enable"}
          <span class="visually-hidden"> {t.id}</span>
        </button>
      </form>
      <form method="post" action={`${target}?_method=DELETE`} hx-delete={target} {...ask} hx-target="#installed" hx-swap="outerHTML">
        <button type="submit" class="danger small">
          Uninstall<span class="visually-hidden"> {t.id}</span>
        </button>
      </form>
    </div>
  );
}

/**
 * Counts, graph and the list, as one swappable section. Its HTML is a pure function of the
 * project id, the overview and the catalog (the graph reads conflicts from it), so it is kept
 * by those: a page view of an unchanged selection costs the data read, not the render
 * (~3.8 ms for 50 talents; docs/performance.md).
 */
export function InstalledSection(props: { projectId: string; overview: Overview; catalog: Catalog }) {
  return installedHtml.render(props.overview, { projectId: props.projectId, catalog: props.catalog }, () => (
    <InstalledSectionView {...props} />
  ));
}

/** The rendered section by overview object (installedOverview hands back the same one while nothing changed). */
const installedHtml = new HtmlByObject<Overview, { projectId: string; catalog: Catalog }>(
  (a, b) => a.projectId === b.projectId && a.catalog === b.catalog,
);

/** The enabled talents of the overview that need `id` (through the installed ones' requires). */
function neededBy(o: Overview, id: string): string[] {
  const requires = new Map(o.talents.map((t) => [t.id, t.requires]));
  const enabled = o.talents.filter((t) => t.state === "active").map((t) => t.id);
  return dependentsWithin(id, enabled, (x) => requires.get(x));
}

function InstalledSectionView(props: { projectId: string; overview: Overview; catalog: Catalog }) {
  const o = props.overview;
  const g = selectionGraph(o, props.catalog);
  return (
    <section id="installed" aria-labelledby="installed-h">
      <h2 id="installed-h">Talents</h2>
      <p class="counts">
        {o.talents.length > 0 ? (
          <a class="button" href={`/catalog?project=${props.projectId}`}>
            Add talents
          </a>
        ) : null}
        <span>
          <strong>{o.counts.installed}</strong> installed
        </span>
        <span>
          <strong>{o.counts.active}</strong> active
        </span>
        <span class={o.counts.missing > 0 ? "error" : ""}>
          <strong>{o.counts.missing}</strong> missing
        </span>
      </p>
      {o.talents.length === 0 ? (
        <div class="empty">
          <p>No talent is installed yet: agents of this project are served nothing.</p>
          <p>
            <a class="button" href={`/projects/${props.projectId}/onboarding`}>
              Choose talents
            </a>{" "}
            <a href={`/catalog?project=${props.projectId}`}>or pick them in the catalog</a>
          </p>
        </div>
      ) : (
        <>
          {o.missing.length > 0 ? (
            <form
              method="post"
              action={`/web/projects/${props.projectId}/talents`}
              hx-post={`/web/projects/${props.projectId}/talents`}
              hx-target="#installed"
              hx-swap="outerHTML"
              class="inline"
            >
              {o.missing.map((m) => (
                <input type="hidden" name="talents" value={m} />
              ))}
              <input type="hidden" name="return" value={`/projects/${props.projectId}`} />
              <span class="error">Missing prerequisites: {o.missing.join(", ")}.</span>{" "}
              <button type="submit" class="small">
                Install them
              </button>
            </form>
          ) : null}
          <DataTable caption="Installed talents" columns={["Talent", "Version", "State", "Actions"]}>
            {o.talents.map((t) => (
              <InstalledRow projectId={props.projectId} t={t} setBy={o.policy?.setBy ?? null} neededBy={neededBy(o, t.id)} />
            ))}
          </DataTable>
          <GraphSvg nodes={g.nodes} edges={g.edges} title="Installed talents and what they require" />
        </>
      )}
    </section>
  );
}

/** The connection kit: MCP URL, per-client configurations with copy buttons, the AGENTS.md stub. */
export function ConnectionKit(props: { mcpUrl: string; clients: ClientConfig[]; instructions: { file: string; content: string } }) {
  return (
    <div class="kit">
      <p>
        MCP URL (no secret: the agent signs in with OAuth): <code id="mcp-url">{props.mcpUrl}</code>{" "}
        <button type="button" class="secondary small" data-copy="#mcp-url">
          Copy<span class="visually-hidden"> the MCP URL</span>
        </button>
      </p>
      {props.clients.map((c) => (
        <details class="client" id={`client-${c.id}`}>
          <summary>{c.name}</summary>
          {c.command ? (
            <div class="copy-row">
              <code id={`cmd-${c.id}`}>{c.command}</code>{" "}
              <button type="button" class="secondary small" data-copy={`#cmd-${c.id}`}>
                Copy<span class="visually-hidden"> the {c.name} command</span>
              </button>
            </div>
          ) : null}
          <p class="small">
            Or in <code>{c.file}</code> (<a href={c.docs}>format</a>):
          </p>
          <pre id={`cfg-${c.id}`}>{c.content}</pre>
          <button type="button" class="secondary small" data-copy={`#cfg-${c.id}`}>
            Copy<span class="visually-hidden"> the {c.name} configuration</span>
          </button>
        </details>
      ))}
      <details class="client">
        <summary>Instructions for the agent ({props.instructions.file})</summary>
        <pre id="agents-md">{props.instructions.content}</pre>
        <button type="button" class="secondary small" data-copy="#agents-md">
          Copy<span class="visually-hidden"> {props.instructions.file}</span>
        </button>
      </details>
    </div>
  );
}

/**
 * The views of the project routes (their descriptors: projects/describe.ts), made from the app's deps when the app is
 * built; each also says what it did, in the layout's status line (statuses.ts).
 */
export function projectViews(deps: ViewDeps & CatalogDeps) {
  const catalog = () => deps.state.catalog!;
  const installed = async (_data: unknown, ctx: ViewContext) => {
    const project = await projectOf(deps, ctx);
    return (
      <InstalledSection
        projectId={project.id}
        overview={await installedOverview({ database: deps.database, catalog: catalog() }, project)}
        catalog={catalog()}
      />
    );
  };
  const keys = async (ctx: ViewContext, created?: { value: string; name: string }) => (
    <KeysSection projectId={ctx.params.id!} keys={await listKeys(deps.database, ctx.params.id!)} created={created} />
  );
  const settings = (_d: unknown, ctx: ViewContext) => `/projects/${ctx.params.id}?tab=settings`;
  return {
    install: { fragment: installed, status: PROJECT_STATUSES.install },
    toggle: { fragment: installed, status: PROJECT_STATUSES.toggle },
    uninstall: { fragment: installed, status: PROJECT_STATUSES.uninstall },
    apply: { redirect: (_d, ctx) => returnPath(ctx.request, `/projects/${ctx.params.id}`), status: PROJECT_STATUSES.apply },
    keyCreated: {
      fragment: (data, ctx) => {
        const d = data as { key: KeyView; value: string };
        return keys(ctx, { value: d.value, name: d.key.name });
      },
      status: PROJECT_STATUSES.keyCreated,
    },
    keyRevoked: { fragment: (_data, ctx) => keys(ctx), status: PROJECT_STATUSES.keyRevoked },
    token: {
      fragment: (data, ctx) => {
        const d = data as { value: string; revoked: string[] };
        const from = formReturn(ctx.request);
        return (
          <AutomationKey
            projectId={ctx.params.id!}
            exists
            returnTo={from}
            created={{ value: d.value, baseUrl: deps.config.baseUrl, replaced: d.revoked.length > 0 }}
          />
        );
      },
      status: PROJECT_STATUSES.token,
    },
    created: {
      redirect: (data) => `/projects/${(data as { project: { id: string } }).project.id}/onboarding`,
      status: PROJECT_STATUSES.created,
    },
    deleted: { redirect: () => "/", status: PROJECT_STATUSES.deleted },
    settings: { redirect: settings, status: PROJECT_STATUSES.settings },
    hookRules: { redirect: settings, status: PROJECT_STATUSES.hookRules },
  } satisfies Record<string, RouteView>;
}

/** The project of a route's `:id` (the route's guard and handler already checked it is the caller's). */
async function projectOf(deps: CatalogDeps, ctx: ViewContext) {
  const row = await deps.database.get<{ organizationId: string }>("SELECT organization_id AS organizationId FROM projects WHERE id = ?", [
    ctx.params.id!,
  ]);
  if (!row) throw new AppError("not_found", "No such project.");
  return getProject(deps.database, row.organizationId, ctx.params.id!);
}
