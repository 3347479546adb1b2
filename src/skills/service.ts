/**
 * The backend of the MCP Skills extension (`io.modelcontextprotocol/skills`; docs/api.md "Skills",
 * docs/api-oauth-mcp.md "Skills"). Each active talent of a project is an Agent Skills folder:
 * a public talent at `skill://<id>/`, a private expertise of the project's organization, at
 * its published version, at `skill://~<org-slug>/<slug>/` (`~` cannot begin a talent id, so
 * the two never overlap). Every file is listed once with the `sha256:` digest and byte size of
 * exactly the text a read returns (catalog/skillFormat.ts builds the folder). Anything not
 * served to this project — another organization's expertise included — is the same 404 as a
 * URI that names nothing.
 */
import { SKILL_FILE, skillFolderOf, type SkillFile, type SkillFolder } from "../catalog/skillFormat";
import { AppError, notFound } from "../http/errors";
import { badCursor } from "../http/query";
import { decodeCursor, encodeCursor } from "../lib/cursor";
import { activeItems, type ProjectRef, type ServableItem, type SourceDeps } from "../selection/sources";

export const SKILL_SCHEME = "skill://";
/** The extension's per-skill limits: hosts must accept up to these; a skill over either is not served. */
export const SKILL_MAX_FILES = 512;
export const SKILL_MAX_BYTES = 16 * 1024 * 1024;
export const SKILLS_PAGE_DEFAULT = 50;
export const SKILLS_PAGE_MAX = 200;
export const DIRECTORY_PAGE_DEFAULT = 100;
export const DIRECTORY_PAGE_MAX = 500;
export const DIRECTORY_MIME = "inode/directory";

/** One skill served to a project. */
export interface ServedSkill {
  /** `<id>` or `~<org-slug>/<slug>`: the skill's place under `skill://`. */
  path: string;
  item: ServableItem;
  folder: SkillFolder;
}

/** A skill entry as the extension defines it (`Skill`). */
export interface SkillEntry {
  uri: string;
  frontmatter: SkillFolder["frontmatter"];
  resources: { uri: string; digest: string; size: number }[];
}

/** A `Resource` of a directory listing. */
export interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  description?: string;
  size?: number;
}

/** `skill://` + the skill path + the file path, each path segment percent-encoded. */
export function fileUri(skillPath: string, path: string): string {
  return `${SKILL_SCHEME}${skillPath}${path === "" ? "" : "/" + path.split("/").map(encodeURIComponent).join("/")}`;
}

/** The place of a talent under `skill://`: its id, or `~<org-slug>/<slug>` for an expertise `@org-slug/slug`. */
export function skillPathOf(item: Pick<ServableItem, "id" | "kind">): string {
  return item.kind === "expertise" ? `~${item.id.slice(1)}` : item.id;
}

const bytesOf = (folder: SkillFolder) => folder.files.reduce((n, f) => n + f.size, 0);

/** The project's skills (its active talents and expertises), by skill path. */
export async function projectSkills(deps: SourceDeps, project: ProjectRef): Promise<ServedSkill[]> {
  const items = await activeItems(deps, project);
  const out: ServedSkill[] = [];
  for (const item of items.values()) {
    const folder = skillFolderOf(item.talent);
    if (folder.files.length > SKILL_MAX_FILES || bytesOf(folder) > SKILL_MAX_BYTES) continue;
    out.push({ path: skillPathOf(item), item, folder });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The extension's entry of a served skill. */
export function skillEntry(s: ServedSkill): SkillEntry {
  return {
    uri: fileUri(s.path, SKILL_FILE),
    frontmatter: s.folder.frontmatter,
    resources: s.folder.files.map((f) => ({ uri: fileUri(s.path, f.path), digest: f.digest, size: f.size })),
  };
}

/** The position an opaque cursor of these routes carries; 400 for anything else. */
function afterOf(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  return decodeCursor("after", cursor) ?? badCursor();
}

/** One page of items sorted by `keyOf`, after `cursor`. */
function page<T>(
  sorted: readonly T[],
  keyOf: (x: T) => string,
  limit: number,
  cursor: string | undefined,
): { items: T[]; nextCursor: string | null } {
  const after = afterOf(cursor);
  const start = after === null ? 0 : sorted.findIndex((x) => keyOf(x) > after);
  const from = start < 0 ? sorted.length : start;
  const items = sorted.slice(from, from + limit);
  const more = from + limit < sorted.length;
  return { items, nextCursor: more && items.length > 0 ? encodeCursor("after", keyOf(items.at(-1)!)) : null };
}

/** `GET /api/skills`: one page of the project's skill entries. */
export async function listSkills(
  deps: SourceDeps,
  project: ProjectRef,
  limit: number,
  cursor?: string,
): Promise<{ skills: SkillEntry[]; nextCursor: string | null }> {
  const { items, nextCursor } = page(await projectSkills(deps, project), (s) => s.path, limit, cursor);
  return { skills: items.map(skillEntry), nextCursor };
}

/** Where a `skill://` URI points among the project's skills: a skill and a path in it ("" = its root), or null. */
export function locate(skills: readonly ServedSkill[], uri: string): { skill: ServedSkill; path: string } | null {
  if (!uri.startsWith(SKILL_SCHEME)) return null;
  let segments: string[];
  try {
    segments = uri.slice(SKILL_SCHEME.length).split("/").map(decodeURIComponent);
  } catch {
    return null;
  }
  const depth = segments[0]?.startsWith("~") ? 2 : 1;
  if (segments.length < depth) return null;
  const skillPath = segments.slice(0, depth).join("/");
  const skill = skills.find((s) => s.path === skillPath);
  if (!skill) return null;
  const rest = segments.slice(depth);
  if (rest.some((s) => s === "" || s === "." || s === "..")) return null;
  return { skill, path: rest.join("/") };
}

/** The same answer for every URI this project is not served, whatever else exists. */
const noSkill = (uri: string) => notFound(`No skill is served at ${uri.slice(0, 300)}.`);
const noFile = (uri: string) => notFound(`No skill file is served at ${uri.slice(0, 300)}.`);
const noDirectory = (uri: string) => notFound(`No directory resource is served at ${uri.slice(0, 300)}.`);

/** `GET /api/skills/entry?uri=`: the entry of the skill whose SKILL.md is `uri`. */
export async function getSkill(deps: SourceDeps, project: ProjectRef, uri: string): Promise<{ skill: SkillEntry }> {
  const at = locate(await projectSkills(deps, project), uri);
  if (!at || at.path !== SKILL_FILE) throw noSkill(uri);
  return { skill: skillEntry(at.skill) };
}

/** The MIME type of a skill file, by its name (every file of a talent is text). */
export function mimeTypeOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const ext = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1) : "";
  return MIME_TYPES[ext] ?? "text/plain";
}

const MIME_TYPES: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  xml: "application/xml",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/x-typescript",
  py: "text/x-python",
  sh: "text/x-shellscript",
  sql: "application/sql",
  svg: "image/svg+xml",
};

/** `GET /api/skills/file?uri=`: one file of a served skill, with the digest and size of exactly `text`. */
export async function readSkillFile(
  deps: SourceDeps,
  project: ProjectRef,
  uri: string,
): Promise<{ uri: string; mimeType: string; text: string; digest: string; size: number }> {
  const at = locate(await projectSkills(deps, project), uri);
  const file = at ? at.skill.folder.files.find((f) => f.path === at.path) : undefined;
  if (!at || !file) {
    if (at && directoriesOf(at.skill.folder).has(at.path)) {
      throw new AppError("not_found", `${uri.slice(0, 300)} is a directory resource: list it with resources/directory/read.`, {
        mimeType: DIRECTORY_MIME,
      });
    }
    throw noFile(uri);
  }
  return {
    uri: fileUri(at.skill.path, file.path),
    mimeType: mimeTypeOf(file.path),
    text: file.content,
    digest: file.digest,
    size: file.size,
  };
}

/** Every directory of a skill folder ("" = its root). */
function directoriesOf(folder: SkillFolder): Set<string> {
  const dirs = new Set<string>([""]);
  for (const f of folder.files) {
    const parts = f.path.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  return dirs;
}

/** The direct children of directory `dir` of a skill. */
function childrenOf(s: ServedSkill, dir: string): DirectoryChild[] {
  const prefix = dir === "" ? "" : dir + "/";
  const children = new Map<string, DirectoryChild>();
  for (const f of s.folder.files as SkillFile[]) {
    if (!f.path.startsWith(prefix)) continue;
    const rest = f.path.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash >= 0) {
      const name = rest.slice(0, slash);
      if (!children.has(name)) children.set(name, { uri: fileUri(s.path, prefix + name), name, mimeType: DIRECTORY_MIME });
    } else if (f.path === SKILL_FILE) {
      // the extension's resource metadata of a SKILL.md: the skill's name and description
      children.set(rest, {
        uri: fileUri(s.path, f.path),
        name: s.folder.frontmatter.name,
        description: s.folder.frontmatter.description,
        mimeType: "text/markdown",
        size: f.size,
      });
    } else {
      children.set(rest, { uri: fileUri(s.path, f.path), name: rest, mimeType: mimeTypeOf(f.path), size: f.size });
    }
  }
  // in URI order: the order pages are cut in
  return [...children.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}

/**
 * `GET /api/skills/directory?uri=`: the direct children of a directory resource — a skill's
 * root (`skill://<id>`), one of its folders, or an organization's prefix (`skill://~<org-slug>`,
 * whose children are its expertises' roots) — one page at a time.
 */
export async function readDirectory(
  deps: SourceDeps,
  project: ProjectRef,
  uri: string,
  limit: number,
  cursor?: string,
): Promise<{ uri: string; resources: DirectoryChild[]; nextCursor: string | null }> {
  const skills = await projectSkills(deps, project);
  let children: DirectoryChild[];
  const prefix = /^skill:\/\/(~[a-z0-9]+(?:-[a-z0-9]+)*)$/.exec(uri);
  if (prefix) {
    children = skills
      .filter((s) => s.path.startsWith(prefix[1] + "/"))
      .map((s) => ({ uri: fileUri(s.path, ""), name: s.folder.name, mimeType: DIRECTORY_MIME }))
      .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    if (children.length === 0) throw noDirectory(uri);
  } else {
    const at = locate(skills, uri);
    if (!at || !directoriesOf(at.skill.folder).has(at.path)) {
      if (at && at.skill.folder.files.some((f) => f.path === at.path)) throw notFound(`${uri.slice(0, 300)} is not a directory resource.`);
      throw noDirectory(uri);
    }
    children = childrenOf(at.skill, at.path);
  }
  const { items, nextCursor } = page(children, (c) => c.uri, limit, cursor);
  return { uri, resources: items, nextCursor };
}
