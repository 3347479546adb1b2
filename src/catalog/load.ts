/** Reads talent folders from disk (or from the files embedded in the binary) into TalentSources. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Finding, Talent } from "./format";
import { SUPPORT_FILE, supportFindings, utcDay } from "./support";
import type { TalentSource } from "./validate";
import { SPECIALIZATIONS_FOLDER, type SpecializationSource } from "./specializations";

/** Largest file read from a talent folder; bigger files are reported and skipped. */
export const MAX_TALENT_FILE_BYTES = 256 * 1024;

export interface ReadResult {
  sources: TalentSource[];
  findings: Finding[];
}

/**
 * Reads every sub-folder of `dir` as one talent. `labelRoot` prefixes file names in findings
 * (e.g. `talents`). Files that are not text or too large are reported, the rest still loads.
 */
export function readTalentDir(dir: string, labelRoot: string = dir): ReadResult {
  const sources: TalentSource[] = [];
  const findings: Finding[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (e) {
    findings.push({ file: labelRoot, field: "folder", problem: `cannot be read (${(e as NodeJS.ErrnoException).code ?? e})` });
    return { sources, findings };
  }
  for (const name of entries) {
    if (name.startsWith(".") || name.startsWith("_")) continue;
    const folder = join(dir, name);
    if (!statSync(folder).isDirectory()) continue;
    const files: Record<string, string> = {};
    for (const path of walk(folder)) {
      const rel = relative(folder, path).split(sep).join("/");
      const buf = readFileSync(path);
      if (buf.length > MAX_TALENT_FILE_BYTES) {
        findings.push({
          file: `${labelRoot}/${name}/${rel}`,
          field: "file",
          problem: `too large (${buf.length} bytes > ${MAX_TALENT_FILE_BYTES})`,
        });
        continue;
      }
      if (buf.includes(0)) {
        findings.push({ file: `${labelRoot}/${name}/${rel}`, field: "file", problem: "is not a text file" });
        continue;
      }
      files[rel] = buf.toString("utf8");
    }
    sources.push({ folder: name, files, label: (p) => `${labelRoot}/${name}/${p}` });
  }
  return { sources, findings };
}

function* walk(dir: string): Generator<string> {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith(".")) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* walk(path);
    else if (e.isFile()) yield path;
  }
}

/**
 * Groups a flat `<folder>/<path>` → content map (the embedded catalog) into TalentSources.
 * Folders starting with `_` or `.` are not talents (as in readTalentDir): `_specializations`.
 */
export function sourcesFromFlat(flat: Record<string, string>, labelRoot = "talents"): TalentSource[] {
  const byFolder = new Map<string, Record<string, string>>();
  for (const [key, content] of Object.entries(flat)) {
    const slash = key.indexOf("/");
    if (slash < 0 || key.startsWith("_") || key.startsWith(".")) continue;
    const folder = key.slice(0, slash);
    let files = byFolder.get(folder);
    if (!files) byFolder.set(folder, (files = {}));
    files[key.slice(slash + 1)] = content;
  }
  return [...byFolder.keys()].sort().map((folder) => ({
    folder,
    files: byFolder.get(folder)!,
    label: (p: string) => `${labelRoot}/${folder}/${p}`,
  }));
}

/** The specialization files of a folder (`<dir>/_specializations/*.yaml`), as sources; none when there is no such folder. */
export function readSpecializationDir(dir: string, labelRoot: string = dir): SpecializationSource[] {
  const folder = join(dir, SPECIALIZATIONS_FOLDER);
  let names: string[];
  try {
    names = readdirSync(folder)
      .filter((n) => n.endsWith(".yaml"))
      .sort();
  } catch {
    return [];
  }
  return names.map((n) => ({
    id: n.slice(0, -".yaml".length),
    content: readFileSync(join(folder, n), "utf8"),
    label: `${labelRoot}/${SPECIALIZATIONS_FOLDER}/${n}`,
  }));
}

/**
 * `talents lint DIR`'s review checks (docs/talent-format.md "Review: reviewed and covers"): a
 * `reviewed` day after today, and, when DIR holds `_support.yaml`, its malformed rows and each
 * covered version past its end of support.
 */
export function supportLint(dir: string, labelRoot: string, sources: TalentSource[], get: (id: string) => Talent | undefined): Finding[] {
  let table: { text: string; label: string } | null = null;
  try {
    table = { text: readFileSync(join(dir, SUPPORT_FILE), "utf8"), label: `${labelRoot}/${SUPPORT_FILE}` };
  } catch {
    // no support table: only the reviewed days are checked
  }
  const talents = sources.flatMap((s) => {
    const t = get(s.folder);
    return t ? [{ id: t.id, file: s.label(t.mainFile), covers: t.covers, reviewed: t.reviewed }] : [];
  });
  return supportFindings(table, talents, utcDay());
}
