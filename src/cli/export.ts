/**
 * `talentd talents export DIR [--project ID]`: talents as Agent Skills folders
 * (docs/talent-format.md "Export"). Each talent becomes `DIR/<name>/` with its canonical
 * SKILL.md and its other files, the very bytes the MCP Skills extension serves
 * (catalog/skillFormat.ts). `--project` exports a project's active selection, read directly
 * from the local database (the server need not run): its enabled public talents and its
 * organization's active expertises at their published version.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Catalog } from "../catalog/catalog";
import type { Talent } from "../catalog/format";
import { skillFolderOf } from "../catalog/skillFormat";
import type { Database } from "../db/client";
import { activeItems } from "../selection/sources";
import { CliError } from "./errors";

/** The talents of the project's active selection, read from the database; CliError for an unknown project. */
export async function projectTalents(database: Database, catalog: Catalog, projectId: string): Promise<Talent[]> {
  const project = await database.get<{ id: string; organizationId: string }>(
    "SELECT id, organization_id AS organizationId FROM projects WHERE id = ?",
    [projectId],
  );
  if (!project) throw new CliError(`--project: no project ${JSON.stringify(projectId.slice(0, 80))} in this database`);
  const items = await activeItems({ database, catalog }, project);
  return [...items.values()].map((i) => i.talent);
}

/**
 * Writes each talent's folder under `dir` (new or empty: nothing is ever overwritten) and
 * returns the folders written. Two talents of one skill name (an expertise's slug equal to a
 * public id) cannot share a folder: refused before anything is written.
 */
export function writeSkillFolders(dir: string, talents: readonly Talent[]): string[] {
  const root = resolve(dir);
  if (existsSync(root)) {
    if (!statSync(root).isDirectory()) throw new CliError(`${dir}: exists and is not a folder`);
    if (readdirSync(root).length > 0) throw new CliError(`${dir}: is not empty (export writes into a new or empty folder)`);
  }
  const folders = talents.map((t) => ({ id: t.id, folder: skillFolderOf(t) }));
  const byName = new Map<string, string[]>();
  for (const { id, folder } of folders) byName.set(folder.name, [...(byName.get(folder.name) ?? []), id]);
  const clashes = [...byName.entries()].filter(([, ids]) => ids.length > 1);
  if (clashes.length > 0)
    throw new CliError(`two talents would share a folder: ${clashes.map(([name, ids]) => `${name} (${ids.join(", ")})`).join("; ")}`);
  mkdirSync(root, { recursive: true });
  const written: string[] = [];
  for (const { folder } of [...folders].sort((a, b) => (a.folder.name < b.folder.name ? -1 : 1))) {
    for (const file of folder.files) {
      const path = join(root, folder.name, ...file.path.split("/"));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.content);
    }
    written.push(join(dir, folder.name));
  }
  return written;
}
