/**
 * What a prepare-task designates: the body read and checked (designation_required, at most
 * MAX_DESIGNATED ids, the language), the prerequisites it leaves out and the conflicts within it.
 */
import type { Catalog } from "../catalog/catalog";
import { AppError, validationFailed } from "../http/errors";
import type { ServableItem } from "../selection/sources";

export interface PrepareInput {
  talentIds?: unknown;
  language?: unknown;
  maxTokens?: unknown;
}

/** The largest `maxTokens` an agent may ask for (far above any context budget). */
const MAX_TOKENS_CAP = 1_000_000;

export interface Prerequisite {
  id: string;
  requiredBy: string[];
  /** Whether the prerequisite is active in the project (designable right away). */
  active: boolean;
  /** What it means and what to do, in one sentence (prepare-task's answer). */
  note: string;
}

/** A conflict among the designated talents, with what to do in one sentence (prepare-task's answer). */
export interface DesignatedConflict {
  a: string;
  b: string;
  note: string;
}

export const MAX_DESIGNATED = 100;
/** The longest talent id a designation may name. */
const ID_MAX = 200;

/** Checks the body; returns the designated ids (deduplicated, in order) and the language. */
export function readDesignation(body: PrepareInput): { ids: string[]; language: string | null; maxTokens: number | null } {
  const raw = body.talentIds;
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) throw new AppError("designation_required");
  if (!Array.isArray(raw)) throw validationFailed([{ path: "talentIds", message: "must be a non-empty array of talent ids (strings)" }]);
  const bad = raw.findIndex((x) => typeof x !== "string" || x.trim() === "" || x.length > ID_MAX);
  if (bad >= 0) {
    const x = raw[bad];
    const what =
      typeof x !== "string"
        ? "must be a talent id (a string)"
        : x.trim() === ""
          ? "is empty"
          : `id too long (at most ${ID_MAX} characters)`;
    throw validationFailed([{ path: `talentIds[${bad}]`, message: what }]);
  }
  if (raw.length > MAX_DESIGNATED) throw validationFailed([{ path: "talentIds", message: `at most ${MAX_DESIGNATED} talents per task` }]);
  const language = body.language;
  if (language !== undefined && language !== null && (typeof language !== "string" || language.length > 50)) {
    throw validationFailed([{ path: "language", message: "must be a string of at most 50 characters" }]);
  }
  const cap = body.maxTokens;
  if (cap !== undefined && cap !== null && (typeof cap !== "number" || !Number.isInteger(cap) || cap < 1 || cap > MAX_TOKENS_CAP)) {
    throw validationFailed([{ path: "maxTokens", message: `must be a whole number from 1 to ${MAX_TOKENS_CAP}` }]);
  }
  return {
    ids: [...new Set((raw as string[]).map((s) => s.trim()))],
    language: (language as string | undefined) ?? null,
    maxTokens: typeof cap === "number" ? cap : null,
  };
}

/** Transitive `requires` of the designated talents that were not designated. */
export function missingPrerequisites(
  designated: ServableItem[],
  catalog: Catalog,
  active: ReadonlyMap<string, ServableItem>,
): Prerequisite[] {
  const chosen = new Set(designated.map((d) => d.id));
  const requiredBy = new Map<string, Set<string>>();
  const queue: { id: string; requires: string[] }[] = designated.map((d) => ({ id: d.id, requires: d.talent.requires }));
  const visited = new Set<string>();
  while (queue.length > 0) {
    const { id, requires } = queue.shift()!;
    for (const r of requires) {
      if (chosen.has(r)) continue;
      let set = requiredBy.get(r);
      if (!set) requiredBy.set(r, (set = new Set()));
      set.add(id);
      if (!visited.has(r)) {
        visited.add(r);
        queue.push({ id: r, requires: active.get(r)?.talent.requires ?? catalog.get(r)?.requires ?? [] });
      }
    }
  }
  return [...requiredBy.entries()].map(([id, by]) => ({
    id,
    requiredBy: [...by],
    active: active.has(id),
    note: active.has(id)
      ? `${id} is required by ${[...by].join(", ")} and was not designated: designate it too, so its rules are served with theirs.`
      : `${id} is required by ${[...by].join(", ")} but is not active in this project: it must be installed (or enabled) before ` +
        "it can be designated.",
  }));
}

/** The designated conflicts, each with its sentence: the two ask for opposite things, the task follows one. */
export function designatedConflicts(designated: ServableItem[]): DesignatedConflict[] {
  return conflictsAmong(designated).map(({ a, b }) => ({
    a,
    b,
    note: `${a} and ${b} conflict: they ask for opposite things, so designate only the one this task follows.`,
  }));
}

/** Pairs of talents (designated, or active for doctor) that declare a conflict (either side). */
export function conflictsAmong(designated: ServableItem[]): { a: string; b: string }[] {
  const out: { a: string; b: string }[] = [];
  for (let i = 0; i < designated.length; i++) {
    for (let j = i + 1; j < designated.length; j++) {
      const x = designated[i]!;
      const y = designated[j]!;
      if (x.talent.conflicts.includes(y.id) || y.talent.conflicts.includes(x.id)) {
        const [a, b] = [x.id, y.id].sort() as [string, string];
        out.push({ a, b });
      }
    }
  }
  return out;
}
