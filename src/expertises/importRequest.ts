/**
 * The import request (`POST /web/orgs/current/expertises/import`): its body checked as a whole
 * before anything is written (docs/design.md "Importing rule files").
 */
import { checkContent } from "../catalog/contentCheck";
import { validationFailed, type Issue } from "../http/errors";
import { IMPORT_LIMITS, importPathProblem, normalizePath, type ImportFile } from "./imports";

/** Refusals of a character, which the person removes; the others (a line past the cap, the time budget) they fix. */
const UNSEEN_KINDS: ReadonlySet<string> = new Set(["invisible", "control"]);
const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const importRefused = (issues: Issue[]) =>
  validationFailed(issues, `Nothing was imported: ${issues.length} problem${issues.length === 1 ? "" : "s"} in the files sent.`);

/**
 * `{ files: [{ path, content }] }`, checked as a whole: at most 20 files, each at most 128 KiB,
 * 1 MiB together; a path relative; a text the content check refuses (invisible or control
 * characters, a line past its cap) refuses the request, naming the file, its line and column. Nothing is written
 * unless every file passes.
 */
export function parseImport(body: unknown): ImportFile[] {
  const b = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  if (!b || !Array.isArray(b.files) || b.files.length === 0) {
    throw importRefused([{ path: "files", message: "missing: a list of 1 to 20 files, each {path, content}" }]);
  }
  const issues: Issue[] = [];
  if (b.files.length > IMPORT_LIMITS.files)
    issues.push({ path: "files", message: `at most ${IMPORT_LIMITS.files} files (got ${b.files.length})` });
  const out: ImportFile[] = [];
  let total = 0;
  b.files.slice(0, IMPORT_LIMITS.files).forEach((raw, i) => {
    const f = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
    const at = `files[${i}]`;
    if (typeof f.path !== "string")
      issues.push({ path: `${at}.path`, message: "missing: the file's path, such as .cursor/rules/react.mdc" });
    if (typeof f.content !== "string") issues.push({ path: `${at}.content`, message: "missing: the file's text" });
    if (typeof f.path !== "string" || typeof f.content !== "string") return;
    const path = normalizePath(f.path.trim());
    const problem = importPathProblem(path);
    if (problem) issues.push({ path: `${at}.path`, message: `"${path.slice(0, 80)}" ${problem}` });
    const size = bytes(f.content);
    total += size;
    if (size > IMPORT_LIMITS.fileBytes)
      issues.push({ path: `${at}.content`, message: `${path}: too large (${size} bytes > ${IMPORT_LIMITS.fileBytes})` });
    else issues.push(...refusedContent(path, f.content, at));
    out.push({ path, content: f.content });
  });
  if (total > IMPORT_LIMITS.totalBytes)
    issues.push({ path: "files", message: `the files together are too large (${total} bytes > ${IMPORT_LIMITS.totalBytes})` });
  if (issues.length > 0) throw importRefused(issues);
  return out;
}

/** The content check's refusals of a file's text (invisible and control characters, a line past the cap), each an issue naming the file. */
function refusedContent(path: string, text: string, at: string): Issue[] {
  return checkContent(text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n"))
    .filter((f) => f.refused)
    .slice(0, 5)
    .map((f) => {
      const fix = UNSEEN_KINDS.has(f.kind) ? "remove it" : "fix it";
      return { path: `${at}.content`, message: `${path}: line ${f.line}, column ${f.column}: ${f.message}; ${fix} and import again` };
    });
}
