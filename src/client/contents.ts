/**
 * The checked version of the changed files, for the detectors' context (a block comment opened
 * above an added line, a `#[cfg(test)]` module, a CREATE TABLE earlier in a migration): the index
 * for --staged, HEAD for --base, the pushed commit for --pre-push, the working tree otherwise. One
 * `git cat-file --batch` reads them all; nothing leaves the machine.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AddedFile, DiffSource } from "./git";

/** Files larger than this are checked on their added lines alone. */
const CONTENT_MAX = 1024 * 1024;

/** The object name of a path's checked version in git (null: the working tree). */
function revisionOf(source: DiffSource): string | null {
  switch (source.kind) {
    case "staged":
      return "";
    case "base":
      return "HEAD";
    case "pre-push": {
      // the last pushed ref's commit; with several refs, their files may differ and the added lines decide
      const shas = source.stdin
        .split("\n")
        .map((l) => l.trim().split(/\s+/)[1] ?? "")
        .filter((s) => s && !/^0+$/.test(s));
      return shas.at(-1) ?? null;
    }
    case "worktree":
      return null;
  }
}

/** The text of each file at the checked version, by path (absent: unreadable, too large or binary). */
export async function checkedContents(root: string, source: DiffSource, files: readonly AddedFile[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const rev = revisionOf(source);
  if (files.length === 0) return out;
  if (rev === null) {
    for (const f of files) {
      try {
        const path = join(root, f.path);
        if (statSync(path).size <= CONTENT_MAX) out.set(f.path, readFileSync(path, "utf8"));
      } catch {
        // deleted or unreadable since the diff: the added lines stand alone
      }
    }
    return out;
  }
  const blobs = await blobsAt(
    root,
    files.map((f) => `${rev}:${f.path}`),
  );
  for (const f of files) {
    const text = blobs.get(`${rev}:${f.path}`);
    if (text !== undefined) out.set(f.path, text);
  }
  return out;
}

/**
 * Texts of git objects by name (`<rev>:<path>`), one `git cat-file --batch` for all of them; absent: missing,
 * too large or binary (`talentd check`'s context, and `talentd calibrate`'s files as each commit left them).
 */
export async function blobsAt(root: string, names: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (names.length === 0) return out;
  let bytes: Uint8Array;
  try {
    const proc = Bun.spawn(["git", "cat-file", "--batch"], {
      cwd: root,
      stdin: new TextEncoder().encode(names.join("\n") + "\n"),
      stdout: "pipe",
      stderr: "ignore",
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
    });
    bytes = new Uint8Array(await new Response(proc.stdout).arrayBuffer());
    await proc.exited;
  } catch {
    return out; // context is a refinement: without it, the added lines stand alone
  }
  const decoder = new TextDecoder();
  let at = 0;
  for (const name of names) {
    const nl = bytes.indexOf(10, at);
    if (nl < 0) break;
    const header = decoder.decode(bytes.subarray(at, nl));
    at = nl + 1;
    const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
    if (!m) continue; // `<name> missing`
    const size = Number(m[2]);
    const body = bytes.subarray(at, at + size);
    at += size + 1;
    if (m[1] === "blob" && size <= CONTENT_MAX && !body.includes(0)) out.set(name, decoder.decode(body));
  }
  return out;
}
