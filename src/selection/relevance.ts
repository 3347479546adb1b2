/**
 * Per-project relevance settings (docs/api.md "Relevance"):
 * `{languages, roles, paths, exclude}`. They rank the designable directory and the discovery
 * index (relevant first, each with `why`) and pre-filter the catalog in grouped install mode.
 * They never designate or serve anything (prepare-task serves exactly the designated talents): they only order and filter what
 * a person or an agent chooses from.
 *
 * A talent is relevant when it is not excluded and, for each dimension that is set (an empty
 * list says nothing): it names one of the languages (or no language at all: language-neutral
 * conventions such as commit messages suit every codebase), one of the roles, and a file type
 * of the paths. Paths are globs of where the codebase's code lives (`src/**\/*.ts`); a talent
 * matches them when its `triggers.files` globs name a file type (extension or exact file name)
 * that the paths name too: two globs cannot be intersected in general, their file types can.
 */
import { eq } from "drizzle-orm";
import type { Catalog } from "../catalog/catalog";
import type { Talent } from "../catalog/format";
import { globProblem } from "../catalog/validate";
import type { Database, Tx } from "../db/client";
import { keptGet } from "../db/versionMemo";
import { projectRelevance } from "../db/schema";
import { validationFailed, type Issue } from "../http/errors";
import { listInstalled } from "./service";
import { record, type AuditBy } from "../audit/record";

export interface Relevance {
  languages: string[];
  roles: string[];
  paths: string[];
  exclude: string[];
}

export const RELEVANCE_LIMITS = { languages: 20, roles: 20, paths: 50, exclude: 200, word: 40, glob: 200, id: 200 } as const;
const WORD = /^[a-z0-9][a-z0-9+#._-]*$/;

/** Whether `w` is a language or role word as relevance settings hold it (lower case, at most RELEVANCE_LIMITS.word). */
export function isRelevanceWord(w: string): boolean {
  return w.length <= RELEVANCE_LIMITS.word && WORD.test(w);
}

/** The stored settings of a project, or null (the row kept for the configuration epoch: project_relevance is one of its tables). */
export async function storedRelevance(database: Database, projectId: string): Promise<Relevance | null> {
  const row = await keptGet<{ settings: string }>(database, "SELECT settings FROM project_relevance WHERE project_id = ?", [projectId]);
  return row ? normalize(JSON.parse(row.settings) as Partial<Relevance>) : null;
}

/** Most languages a talent names and still says which languages a project is in (one naming more is cross-cutting). */
export const LANGUAGE_SPECIFIC_MAX = 2;

/**
 * The settings that apply to a project: the stored ones, or ones derived from its installed
 * talents: the languages of those specific to a language or two (a cross-cutting talent such as
 * structured logging names seven, and would let a TypeScript project's list take in Go; when
 * none is specific, every installed talent's), the union of their roles, no paths, nothing excluded.
 */
export async function relevanceOf(
  database: Database,
  catalog: Catalog,
  projectId: string,
): Promise<{ settings: Relevance; source: "stored" | "derived" }> {
  const stored = await storedRelevance(database, projectId);
  if (stored) return { settings: stored, source: "stored" };
  return { settings: await derivedRelevance(database, catalog, projectId), source: "derived" };
}

/** The settings derived from the project's installed talents (relevanceOf). */
async function derivedRelevance(database: Database, catalog: Catalog, projectId: string): Promise<Relevance> {
  const specific = new Set<string>();
  const every = new Set<string>();
  const roles = new Set<string>();
  for (const row of await listInstalled(database, projectId)) {
    const t = catalog.get(row.talentId);
    if (!t) continue;
    for (const l of t.languages) (t.languages.length <= LANGUAGE_SPECIFIC_MAX ? specific : every).add(l);
    for (const r of t.roles) roles.add(r);
  }
  const languages = specific.size > 0 ? specific : every;
  return { languages: [...languages].sort(), roles: [...roles].sort(), paths: [], exclude: [] };
}

/** The relevance the catalog narrows a project's cards by, and where its roles come from (null: no role narrows). */
export interface CatalogRelevance {
  settings: Relevance;
  source: "stored" | "derived";
  rolesFrom: "stored" | "derived" | null;
}

/**
 * What the catalog's filter narrows a project's cards by (docs/design.md "The catalog's roles are
 * the project's"): the project's relevance settings, whose roles are what the project says it is;
 * only when it names no role do the roles of its installed talents (their union) stand in — for a
 * project with stored settings too, whose other dimensions stay as stored. The relevance route,
 * the designable directory and the discovery index keep relevanceOf as it is.
 */
export async function catalogRelevance(database: Database, catalog: Catalog, projectId: string): Promise<CatalogRelevance> {
  const r = await relevanceOf(database, catalog, projectId);
  if (r.settings.roles.length > 0) return { ...r, rolesFrom: r.source };
  if (r.source === "derived") return { ...r, rolesFrom: null };
  const roles = (await derivedRelevance(database, catalog, projectId)).roles;
  return { settings: { ...r.settings, roles }, source: r.source, rolesFrom: roles.length > 0 ? "derived" : null };
}

/** Replaces the stored settings (PUT). */
export async function saveRelevance(tx: Tx, projectId: string, settings: Relevance, audit: AuditBy): Promise<void> {
  const before = await storedIn(tx, projectId);
  const now = Date.now();
  await tx
    .insert(projectRelevance)
    .values({ projectId, settings: { ...settings }, updatedAt: now })
    .onConflictDoUpdate({
      target: projectRelevance.projectId,
      set: { settings: { ...settings }, updatedAt: now },
    });
  await recordRelevance(tx, projectId, audit, before, { ...settings });
}

/** The stored settings as they are in this transaction (null: derived). */
async function storedIn(tx: Tx, projectId: string): Promise<Record<string, unknown> | null> {
  const rows = await tx.select({ s: projectRelevance.settings }).from(projectRelevance).where(eq(projectRelevance.projectId, projectId));
  return rows[0]?.s ?? null;
}

/** One entry for a change of the relevance settings (null: the derived ones). */
function recordRelevance(
  tx: Tx,
  projectId: string,
  audit: AuditBy,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Promise<void> {
  const wrap = (s: Record<string, unknown> | null) => ({ relevance: s ?? "derived" });
  return record(tx, {
    ...audit,
    action: "project.relevance_changed",
    object: { kind: "project", id: projectId },
    before: wrap(before),
    after: wrap(after),
  });
}

/** Forgets the stored settings (DELETE): the derived ones apply again. */
export async function resetRelevance(tx: Tx, projectId: string, audit: AuditBy): Promise<void> {
  const before = await storedIn(tx, projectId);
  await tx.delete(projectRelevance).where(eq(projectRelevance.projectId, projectId));
  if (before) await recordRelevance(tx, projectId, audit, before, null);
}

const lower = (xs: string[]) => [...new Set(xs.map((x) => x.trim().toLowerCase()).filter(Boolean))].sort();

function normalize(r: Partial<Relevance>): Relevance {
  return {
    languages: lower(r.languages ?? []),
    roles: lower(r.roles ?? []),
    paths: [...new Set((r.paths ?? []).map((p) => p.trim()).filter(Boolean))],
    exclude: [...new Set((r.exclude ?? []).map((x) => x.trim()).filter(Boolean))].sort(),
  };
}

/** Reads a PUT body: four arrays of strings within bounds, globs checked as the validator checks triggers; 400 otherwise. */
export function readRelevance(body: unknown): Relevance {
  const b = (body ?? {}) as Record<string, unknown>;
  const issues: Issue[] = [];
  if (typeof body !== "object" || body === null || Array.isArray(body))
    issues.push({ path: "", message: "must be an object {languages, roles, paths, exclude}" });
  const list = (name: keyof Relevance, max: number, itemMax: number, check?: (s: string) => string | null): string[] => {
    const v = b[name];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      issues.push({ path: name, message: "must be an array of strings" });
      return [];
    }
    if (v.length > max) issues.push({ path: name, message: `at most ${max} entries` });
    const out: string[] = [];
    v.forEach((x, i) => {
      if (typeof x !== "string" || x.trim() === "" || x.length > itemMax)
        issues.push({ path: `${name}.${i}`, message: `must be a non-empty string of at most ${itemMax} characters` });
      else {
        const problem = check?.(x.trim());
        if (problem) issues.push({ path: `${name}.${i}`, message: problem });
        else out.push(x);
      }
    });
    return out;
  };
  const word = (s: string) => (WORD.test(s.toLowerCase()) ? null : "must be a word of letters, digits and + # . _ -");
  for (const k of Object.keys(b))
    if (!["languages", "roles", "paths", "exclude"].includes(k))
      issues.push({ path: k, message: "is not a relevance setting (languages, roles, paths, exclude)" });
  const r = {
    languages: list("languages", RELEVANCE_LIMITS.languages, RELEVANCE_LIMITS.word, word),
    roles: list("roles", RELEVANCE_LIMITS.roles, RELEVANCE_LIMITS.word, word),
    paths: list("paths", RELEVANCE_LIMITS.paths, RELEVANCE_LIMITS.glob, globProblem),
    exclude: list("exclude", RELEVANCE_LIMITS.exclude, RELEVANCE_LIMITS.id),
  };
  if (issues.length > 0) throw validationFailed(issues);
  return normalize(r);
}

/** The file types a glob names in its last segment: `*.ts` → ts, `*.{ts,tsx}` → ts, tsx, `Dockerfile` → Dockerfile. */
export function fileTypes(glob: string): string[] {
  const last = glob.split("/").at(-1) ?? glob;
  const braces = /\{([^}]*)\}/.exec(last);
  const names = braces ? braces[1]!.split(",").map((alt) => last.replace(braces[0], alt)) : [last];
  return names
    .map((n) => {
      const dot = n.lastIndexOf(".");
      return dot >= 0 && !n.slice(dot + 1).includes("*") ? `.${n.slice(dot + 1).toLowerCase()}` : n.includes("*") ? "" : n;
    })
    .filter(Boolean);
}

/** Whether a talent is relevant to the settings, and why (the dimensions that matched). */
export function judge(t: Pick<Talent, "id" | "languages" | "roles" | "triggers">, r: Relevance): { relevant: boolean; why: string[] } {
  if (r.exclude.includes(t.id)) return { relevant: false, why: ["excluded"] };
  const why: string[] = [];
  let relevant = true;
  if (r.languages.length > 0) {
    const hit = t.languages.find((l) => r.languages.includes(l.toLowerCase()));
    if (hit) why.push(`language ${hit}`);
    else if (t.languages.length === 0) why.push("any language");
    else relevant = false;
  }
  if (r.roles.length > 0) {
    const hit = t.roles.find((x) => r.roles.includes(x.toLowerCase()));
    if (hit) why.push(`role ${hit}`);
    else relevant = false;
  }
  if (r.paths.length > 0) {
    const wanted = new Set(r.paths.flatMap(fileTypes));
    const hit = t.triggers.files.flatMap(fileTypes).find((f) => wanted.has(f));
    if (hit) why.push(`files ${hit.startsWith(".") ? `*${hit}` : hit}`);
    else relevant = false;
  }
  return { relevant, why: relevant ? why : [] };
}

/**
 * `items` with relevant ones first (stable order otherwise), each beside its `relevant` and
 * `why`. Items are wrapped, not copied: a lazy talent's heavy fields stay unread.
 */
export function rankByRelevance<T>(
  items: readonly T[],
  talentOf: (x: T) => Pick<Talent, "id" | "languages" | "roles" | "triggers">,
  r: Relevance,
): { item: T; relevant: boolean; why: string[] }[] {
  const judged = items.map((item) => ({ item, ...judge(talentOf(item), r) }));
  return [...judged.filter((x) => x.relevant), ...judged.filter((x) => !x.relevant)];
}
