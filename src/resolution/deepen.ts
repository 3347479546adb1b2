/**
 * Deepen (`svc_deepen`; docs/design.md "A resolution is frozen when it is prepared"): a literal
 * search that returns pointers only, and reads of talent files — the current bytes of an enabled public talent, or the pinned bytes of a
 * talent a given resolution served. Of a catalog talent that is neither, only its preview (the key
 * route's reads: what discovery proposes can be read before it is installed); an expertise's files
 * at its published version while the project has it enabled, else through a resolution that pinned it.
 */
import { searchTalents } from "../catalog/literalSearch";
import type { Talent } from "../catalog/format";
import { compactHeadings, compactSection, extractSection, markdownHeadings, type CompactParts } from "../catalog/sections";
import { splitFrontMatter } from "../catalog/validate";
import { getBlobs } from "../db/blobs";
import type { Database } from "../db/client";
import { AppError, validationFailed } from "../http/errors";
import { digestOf } from "../lib/crypto";
import { getExpertiseVersion, getServableExpertise } from "../expertises/servable";
import { listInstalled } from "../selection/service";
import { loadResolution, pinnedDefinition, type PinnedItem, type PinnedResolution } from "./pinned";
import { installedWithItems, type ProjectRef, type SourceDeps } from "../selection/sources";

export const SEARCH_SCOPES = ["catalog", "installed", "active", "resolution"] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];
export const SEARCH_K_DEFAULT = 10;
export const SEARCH_K_MAX = 50;
export const READ_MAX_URIS = 20;

/** Parses `talent://<id>[/<path>]` or `talent://@org/slug[/<path>]`. */
export function parseTalentUri(uri: string): { id: string; path: string | null } | null {
  if (typeof uri !== "string" || !uri.startsWith("talent://") || uri.length > 500) return null;
  const rest = uri.slice("talent://".length);
  const parts = rest.split("/");
  const idParts = rest.startsWith("@") ? 2 : 1;
  if (parts.length < idParts || parts.slice(0, idParts).some((p) => p === "")) return null;
  const id = parts.slice(0, idParts).join("/");
  const path = parts.slice(idParts).join("/");
  if (path.split("/").some((p) => p === ".." || p === ".")) return null;
  return { id, path: path === "" ? null : path };
}

/** Literal search within a scope; pointers only (id, uri, summary), never content. */
export async function search(
  deps: SourceDeps,
  project: ProjectRef,
  input: { query: string; k?: number; scope?: SearchScope; resolutionId?: string },
): Promise<{ results: { id: string; uri: string; summary: string }[]; scope: SearchScope }> {
  // a search that names a resolution searches what it served: scope=resolution is implied,
  // and another scope beside it is refused rather than silently ignoring one of the two
  if (input.resolutionId !== undefined && input.scope !== undefined && input.scope !== "resolution") {
    throw validationFailed([
      {
        path: "scope",
        message: `a search with resolutionId searches what that resolution served (scope=resolution); leave scope out, or leave resolutionId out to search scope=${input.scope}`,
      },
    ]);
  }
  const scope = input.scope ?? (input.resolutionId !== undefined ? "resolution" : "active");
  const k = input.k ?? SEARCH_K_DEFAULT;
  let candidates: Talent[] | null = null;
  let filter: ((t: Talent) => boolean) | undefined;
  if (scope === "catalog") {
    filter = undefined;
  } else if (scope === "resolution") {
    if (!input.resolutionId) throw validationFailed([{ path: "resolutionId", message: "is required with scope=resolution" }]);
    // what the resolution served: its public talents, and each expertise at the version it
    // pinned, whatever the expertise's state or selection is now
    const res = await loadResolution(deps.database, project.id, input.resolutionId);
    const publicTalents = res.items
      .filter((i) => i.kind === "talent")
      .map((i) => deps.catalog.get(i.talentId))
      .filter((t) => t !== undefined);
    const pinnedVersions = await Promise.all(
      res.items
        .filter((i) => i.kind === "expertise" && i.expertiseId !== null)
        .map((i) => getExpertiseVersion(deps.database, i.expertiseId!, Number(i.version), deps.catalog)),
    );
    candidates = [...publicTalents, ...pinnedVersions.filter((e) => e !== undefined).map((e) => e.talent)];
  } else {
    const all = await installedWithItems(deps, project);
    const items = all.filter((x) => x.item && (scope === "installed" || x.row.enabled)).map((x) => x.item!);
    const publicIds = new Set(items.filter((i) => i.kind === "talent").map((i) => i.id));
    filter = (t) => publicIds.has(t.id);
    const privates = items.filter((i) => i.kind === "expertise").map((i) => i.talent);
    if (privates.length > 0) candidates = [...deps.catalog.list.filter(filter), ...privates];
  }
  const hits = candidates ? searchTalents(candidates, input.query, k) : deps.catalog.search(input.query, k, filter);
  return { scope, results: hits.map(({ id, uri, summary }) => ({ id, uri, summary })) };
}

export interface ReadFile {
  uri: string;
  digest: string;
  content: string;
  pinned: boolean;
  section?: string;
  /** A catalog talent the project has not enabled: its preview (previewText), never its files. */
  preview?: true;
  /** Cut at the reader's maxTokens (deepenCap.ts): the file's first part; the rest is listed under notServed. */
  cut?: true;
}

/** One read, planned: `main` when the file is the talent's main file, whose sections are the compact block's headings. */
interface PlannedRead {
  uri: string;
  pinnedDigest?: string;
  live?: { content: string; digest: string };
  main?: { talent: Talent } | { item: PinnedItem };
  preview?: Talent;
}

/** What each uri reads (pinned bytes, live bytes, a preview), or 404 naming every uri that is not readable. */
async function planReads(
  deps: SourceDeps,
  project: ProjectRef,
  input: { uris: string[]; resolutionId?: string; section?: string; previews?: boolean },
): Promise<PlannedRead[]> {
  const res: PinnedResolution | null = input.resolutionId ? await loadResolution(deps.database, project.id, input.resolutionId) : null;
  const pinned = new Map(res?.items.map((i) => [i.talentId, i]) ?? []);
  let enabled: Set<string> | null = null;
  const unreadable: string[] = [];
  const planned: PlannedRead[] = [];
  const previewOnly: string[] = [];
  for (const uri of input.uris) {
    const parsed = parseTalentUri(uri);
    if (!parsed) throw validationFailed([{ path: "uri", message: `"${uri}" is not a talent:// uri` }]);
    const p = pinned.get(parsed.id);
    if (p) {
      const path = parsed.path ?? (p.files["TALENT.md"] ? "TALENT.md" : "SKILL.md");
      const digest = p.files[path];
      const main = (path === "TALENT.md" || path === "SKILL.md") && digest === p.definitionDigest;
      if (digest) planned.push({ uri, pinnedDigest: digest, main: main ? { item: p } : undefined });
      else unreadable.push(uri);
      continue;
    }
    // unpinned reads serve what the project has enabled: a public talent from the catalog, an expertise at its
    // published version (the version a task would be served now)
    enabled ??= new Set((await listInstalled(deps.database, project.id)).filter((r) => r.enabled).map((r) => r.talentId));
    const talent = !enabled.has(parsed.id)
      ? undefined
      : parsed.id.startsWith("@")
        ? (await getServableExpertise(deps.database, project.organizationId, parsed.id, deps.catalog))?.talent
        : deps.catalog.get(parsed.id);
    const candidate = talent || !input.previews ? undefined : deps.catalog.get(parsed.id);
    if (candidate) {
      // a catalog talent the project has not enabled (discovery proposes it, a catalog search points to it): its
      // preview, so an agent reads what it would propose; its files come with the install
      if ((parsed.path === null || parsed.path === candidate.mainFile) && input.section === undefined)
        planned.push({ uri, preview: candidate });
      else previewOnly.push(uri);
      continue;
    }
    const path = parsed.path ?? talent?.mainFile;
    const file = path === undefined ? undefined : talent?.files.get(path);
    if (file)
      planned.push({
        uri,
        live: { content: file.content, digest: file.digest },
        main: path === talent!.mainFile ? { talent: talent! } : undefined,
      });
    else unreadable.push(uri);
  }
  if (previewOnly.length > 0 && unreadable.length === 0) {
    throw new AppError(
      "not_found",
      `Not readable for this project: ${previewOnly.join(", ")}: the talent is not enabled in the project, so only its preview ` +
        "(its talent://<id> uri, without section) is readable; its files and sections are readable once it is installed.",
      { uris: previewOnly },
    );
  }
  unreadable.push(...previewOnly);
  if (unreadable.length > 0) {
    throw new AppError(
      "not_found",
      `Not readable for this project: ${unreadable.join(", ")} (a talent or expertise must be enabled in the project, or pinned by ` +
        "the given resolution).",
      { uris: unreadable },
    );
  }
  return planned;
}

/**
 * Reads 1..20 uris, all or nothing: with `resolutionId`, pinned talents read their pinned
 * bytes and others must be enabled in the project; without it, only what the project has enabled (an
 * expertise at its published version).
 * `previews`: a catalog talent's main uri (no section) that is neither reads as its preview.
 */
export async function readFiles(
  deps: SourceDeps,
  project: ProjectRef,
  input: { uris: string[]; resolutionId?: string; section?: string; previews?: boolean },
): Promise<ReadFile[]> {
  if (input.uris.length === 0) throw validationFailed([{ path: "uris", message: "give uri, or uris with 1 to 20 entries" }]);
  if (input.uris.length > READ_MAX_URIS) {
    throw validationFailed(
      [
        {
          path: "uris",
          message: `at most ${READ_MAX_URIS} uris per read (got ${input.uris.length}); send sequential batches of at most ${READ_MAX_URIS}`,
        },
      ],
      `One read carries at most ${READ_MAX_URIS} uris; send sequential batches of at most ${READ_MAX_URIS}.`,
    );
  }
  const planned = await planReads(deps, project, input);
  const blobs = await getBlobs(
    deps.database,
    planned.filter((x) => x.pinnedDigest).map((x) => x.pinnedDigest!),
  );
  const files: ReadFile[] = [];
  for (const x of planned) {
    if (x.preview) {
      const content = previewText(x.preview);
      files.push({ uri: x.uri, digest: digestOf(content), content, pinned: false, preview: true });
      continue;
    }
    const content = x.live ? x.live.content : blobs.get(x.pinnedDigest!)!;
    const digest = x.live ? x.live.digest : x.pinnedDigest!;
    if (input.section === undefined) {
      files.push({ uri: x.uri, digest, content, pinned: !x.live });
      continue;
    }
    let part: string | null;
    let headings: () => string[];
    if (x.main) {
      const parts = "talent" in x.main ? x.main.talent : await pinnedParts(deps.database, x.main.item, content);
      part = compactSection(parts, input.section);
      headings = () => compactHeadings(parts);
    } else {
      part = extractSection(content, input.section);
      headings = () => markdownHeadings(content);
    }
    if (part === null) throw sectionNotFound(x.uri, input.section, headings());
    files.push({ uri: x.uri, digest: digestOf(part), content: part, pinned: !x.live, section: input.section });
  }
  return files;
}

/** The compact parts of a pinned main file: rules and title as the playbook reads them, the body from the stored bytes. */
async function pinnedParts(database: Database, item: PinnedItem, content: string): Promise<CompactParts> {
  const def = await pinnedDefinition(database, item);
  return { title: def.title, summary: def.summary, rules: def.rules, body: splitFrontMatter(content)?.body.trim() ?? content.trim() };
}

const SECTIONS_LISTED = 50;

/** 404 for a heading a file does not have, naming the ones it has. */
function sectionNotFound(uri: string, section: string, headings: string[]): AppError {
  const listed =
    headings
      .slice(0, SECTIONS_LISTED)
      .map((h) => JSON.stringify(h))
      .join(", ") + (headings.length > SECTIONS_LISTED ? ", …" : "");
  const message =
    headings.length > 0
      ? `No section "${section}" in ${uri}. Its sections: ${listed}.`
      : `No section "${section}" in ${uri}: it has no headings; read it without section.`;
  return new AppError("not_found", message, { uri, sections: headings.slice(0, SECTIONS_LISTED) });
}

/**
 * What an agent may read of a catalog talent before it is installed: title, summary, what designates it, its links to
 * other talents and its rules (id, severity, title). Reading it installs, designates and serves nothing.
 */
export function previewText(t: Talent): string {
  const list = (xs: readonly string[]) => (xs.length > 0 ? xs.join(", ") : "none");
  return [
    `# ${t.title} (${t.id} ${t.version}): a preview, not installed in this project`,
    "",
    t.summary,
    "",
    `Designated by files: ${list(t.triggers.files)}; keywords: ${list(t.triggers.keywords)}; languages: ${list(t.languages)}.`,
    `Requires: ${list(t.requires)}. Conflicts with: ${list(t.conflicts)}.`,
    "",
    `Rules (${t.rules.length}):`,
    ...t.rules.map((r) => `- ${r.id} (${r.severity}): ${r.title}`),
    "",
    "Reading this preview installed, designated and served nothing. Installed in the project, the talent becomes designable " +
      "for a task, and its guidance, checks and files are served then.",
  ].join("\n");
}
