/** @jsxImportSource hono/jsx */
/**
 * What a talent's sheet (pages/catalog.tsx) shows of the organization's projects: the talent's
 * state in each (installed and active, installed but disabled, not installed), the project whose
 * state the prerequisites graph shows, and "Install into" offered only for projects without it.
 */
import type { GraphNode, ProjectState } from "../../catalog/people";
import type { GraphNodeView } from "../../ui/graph";
import { DataTable } from "../../ui/layout";
import type { Project } from "../service";

/** A project of the organization and a talent's state there. */
export interface ProjectWithState {
  project: Project;
  state: ProjectState;
}

export const STATE_WORDS: Record<ProjectState, string> = {
  active: "installed, active",
  disabled: "installed, disabled",
  not_installed: "not installed",
};

/**
 * How a graph node is drawn in the chosen project: the sheet's own talent; one that is not in
 * the catalog (missing); else its state there (a prerequisite not installed is "missing", any
 * other node not installed is "other"). Without a project every node but the sheet's is "other".
 */
export function nodeState(n: GraphNode, state: ((id: string) => ProjectState) | null): GraphNodeView["state"] {
  if (n.relation === "self") return "self";
  if (n.missing) return "missing";
  const s = state?.(n.id) ?? "not_installed";
  if (s === "active" || s === "disabled") return s;
  return state && n.relation === "requires" ? "missing" : "other";
}

/** The talent's state in each project, and the choice of the project the graph shows. */
export function ProjectStates(props: { id: string; href: string; rows: ProjectWithState[]; chosen: Project | undefined }) {
  const { id, rows, chosen } = props;
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="where-h">
      <h2 id="where-h">In your projects</h2>
      <DataTable caption={`Where ${id} is installed`} columns={["Project", "State"]}>
        {rows.map((r) => (
          <tr>
            <td>
              <a href={`/projects/${r.project.id}`}>{r.project.name}</a>
            </td>
            <td>
              <span class={`state ${r.state}`}>{STATE_WORDS[r.state]}</span>
            </td>
          </tr>
        ))}
      </DataTable>
      {rows.length > 1 && chosen ? (
        <form method="get" action={props.href} class="inline">
          <label for="graph-project">Show the graph's states in</label>{" "}
          <select id="graph-project" name="project">
            {rows.map((r) => (
              <option value={r.project.id} selected={r.project.id === chosen.id}>
                {r.project.name}
              </option>
            ))}
          </select>{" "}
          <button type="submit" class="small">
            Show
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** "Install into": only the projects that do not have the talent yet (the next step picks its prerequisites). */
export function InstallInto(props: { id: string; rows: ProjectWithState[] }) {
  const { id, rows } = props;
  if (rows.length === 0) return null;
  const without = rows.filter((r) => r.state === "not_installed");
  if (without.length === 0) return <p class="muted small">Installed in every project of this organization.</p>;
  return (
    <form method="get" action="/catalog" class="card sub inline">
      <input type="hidden" name="select" value={id} />
      <label for="install-project">Install into</label>{" "}
      <select id="install-project" name="project">
        {without.map((r) => (
          <option value={r.project.id}>{r.project.name}</option>
        ))}
      </select>{" "}
      <button type="submit">Install…</button> <span class="muted small">(with its prerequisites, next step)</span>
    </form>
  );
}
