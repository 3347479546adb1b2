/**
 * The discovery playbook (docs/api.md "The agent loop"): a procedure to pick talents for a codebase when
 * the selection is empty, and a compact index of the catalog to pick from. It activates nothing.
 */
import type { Catalog } from "../catalog/catalog";
import { rankByRelevance, type Relevance } from "../selection/relevance";

/** The playbook; the index lists relevant talents first (the project's relevance settings), each with why. */
export function discoveryPlaybook(catalog: Catalog, selection: { installed: number; active: number }, relevance: Relevance) {
  return {
    procedure: [
      "1. Survey the codebase without sending it anywhere: languages (file extensions), frameworks and tools (package.json, pyproject.toml, go.mod, Cargo.toml, Dockerfile, CI files, migrations/), and the kind of work the team does.",
      "2. Match what you found against the catalog index below: each entry's triggers (file globs and keywords) say when it applies; prefer talents whose file triggers match files that exist.",
      "3. Add the prerequisites of what you pick (requires), and never pick both sides of a conflict.",
      "4. Propose the list to the person you work for, with one line of why per talent. Install only with their consent: PATCH /api/projects/current/talents {talents: [...]} (scope install) or the dashboard.",
      "5. Then, for each task, designate only the talents the task touches (GET /api/prepare-task/designable, POST /api/prepare-task).",
    ],
    selection,
    catalog: {
      digest: catalog.digest,
      talents: rankByRelevance(catalog.list, (t) => t, relevance).map(({ item: t, relevant, why }) => ({
        id: t.id,
        title: t.title,
        summary: t.summary,
        languages: t.languages,
        triggers: t.triggers,
        requires: t.requires,
        conflicts: t.conflicts,
        relevant,
        why,
      })),
    },
    activatesNothing: true,
  };
}
