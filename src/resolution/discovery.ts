/**
 * The discovery playbook (docs/api.md "The agent loop"): a procedure to pick talents for a codebase when
 * the selection is empty, and a compact index of the catalog to pick from. It activates nothing.
 */
import type { Catalog } from "../catalog/catalog";
import { discoveryProcedure, type Voice } from "../http/wording";
import { rankByRelevance, type Relevance } from "../projects/relevance";

/** The playbook (its procedure worded for `voice`); the index lists relevant talents first (the project's relevance settings), each with why. */
export function discoveryPlaybook(catalog: Catalog, selection: { installed: number; active: number }, relevance: Relevance, voice: Voice) {
  return {
    procedure: discoveryProcedure(voice),
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
