/**
 * A deepen read cut at the `maxTokens` an agent gave (docs/api.md "Reads"): over several uris, the files that fit in
 * the order asked (the first always served) and the rest listed by uri; a single file past the cap is served up to
 * the heading where it no longer fits (its first part always), the rest listed as sections to read with `section`.
 * The project's context budget does not apply to reads: the cap is the agent's own.
 */
import { estimateTokens } from "../catalog/format";
import { digestOf } from "../lib/crypto";
import type { ReadFile } from "./deepen";

/** What a capped read lists instead of serving: a file, or one section of a file. */
export interface NotRead {
  uri: string;
  section?: string;
  tokens: number;
}

const OVER =
  "Over the maxTokens you gave: what is under notServed was not put in this answer; read each by its uri (and section) when " +
  "the task reaches it.";

/** Reads cut at `maxTokens` (module comment); unchanged without one, or when everything fits. */
export function capReads(files: ReadFile[], maxTokens: number | undefined) {
  if (maxTokens === undefined) return { files };
  if (files.length === 1) {
    const cut = capFile(files[0]!, maxTokens);
    return cut ? { files: [cut.file], notServed: cut.rest, overBudget: OVER } : { files };
  }
  let tokens = 0;
  let count = 0;
  for (const f of files) {
    const t = estimateTokens(f.content);
    if (count > 0 && tokens + t > maxTokens) break;
    tokens += t;
    count++;
  }
  if (count === files.length) return { files };
  const notServed: NotRead[] = files.slice(count).map((f) => ({ uri: f.uri, tokens: estimateTokens(f.content) }));
  return { files: files.slice(0, count), notServed, overBudget: OVER };
}

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const FENCE = /^\s*(`{3,}|~{3,})/;

/** A file's headings outside fenced blocks and front matter: line index, level and text. */
function headingsOf(lines: string[]): { at: number; level: number; text: string }[] {
  let i = 0;
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((l, j) => j > 0 && l.trim() === "---");
    i = end < 0 ? 0 : end + 1;
  }
  const out: { at: number; level: number; text: string }[] = [];
  let fenced = false;
  for (; i < lines.length; i++) {
    if (FENCE.test(lines[i]!)) fenced = !fenced;
    const m = fenced ? null : HEADING.exec(lines[i]!);
    if (m) out.push({ at: i, level: m[1]!.length, text: m[2]! });
  }
  return out;
}

/** One file cut at a heading so that what is served fits `maxTokens` (its first part always); null when it fits whole. */
function capFile(f: ReadFile, maxTokens: number): { file: ReadFile; rest: NotRead[] } | null {
  if (estimateTokens(f.content) <= maxTokens) return null;
  const lines = f.content.split("\n");
  const headings = headingsOf(lines).filter((h) => h.at > 0);
  if (headings.length === 0) return null;
  // the part before each heading is a unit: serve units while they fit
  let cutAt = headings[0]!.at;
  for (const h of headings.slice(1)) {
    if (estimateTokens(lines.slice(0, h.at).join("\n")) > maxTokens) break;
    cutAt = h.at;
  }
  const served = lines.slice(0, cutAt).join("\n");
  // the sections left, each listed once: a heading inside a listed one's section comes with it
  const rest: NotRead[] = [];
  let listed: number | undefined;
  const remaining = headings.filter((h) => h.at >= cutAt);
  remaining.forEach((h, k) => {
    if (listed !== undefined && h.level > listed) return;
    listed = h.level;
    const end = remaining.slice(k + 1).find((x) => x.level <= h.level)?.at ?? lines.length;
    rest.push({ uri: f.uri, section: h.text, tokens: estimateTokens(lines.slice(h.at, end).join("\n")) });
  });
  return { file: { ...f, content: served, digest: digestOf(served), cut: true }, rest };
}
