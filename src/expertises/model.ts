/**
 * Request parsing and limits of the expertise routes. Bodies are checked here, by hand, so that
 * the handler can hide an expertise (404) from a member before any body rule is revealed
 * (docs/api-expertises.md, "Who"). Unknown fields are dropped.
 */
import { EXPERTISE_STATUSES, type ExpertiseStatus } from "../db/schema";
import { ID_PATTERN } from "../catalog/format";
import { validationFailed, type Issue } from "../http/errors";

export const SLUG_MAX = 64;
/** TALENT.md text and each further file: at most 256 KiB (the catalog loader's limit). */
export const MAX_CONTENT_BYTES = 256 * 1024;
export const MAX_FILE_BYTES = 256 * 1024;
export const MAX_FILES = 50;
/** Content and files together. */
export const MAX_TOTAL_BYTES = 2 * 1024 * 1024;
export const MAX_PATH_LENGTH = 200;
export const MAX_QUERY_LENGTH = 200;

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

function asObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) throw validationFailed([{ path: "", message: "the body must be a JSON object" }]);
  return body as Record<string, unknown>;
}

/** Why a further file path is refused, or null. */
export function filePathProblem(path: string): string | null {
  if (path.length === 0) return "must not be empty";
  if (path.length > MAX_PATH_LENGTH) return `too long (${path.length} > ${MAX_PATH_LENGTH} characters)`;
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "must be relative";
  if (path.includes("\\")) return "must use / as separator";
  if (/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(path)) return "must not contain control characters";
  const segments = path.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) return "must not contain empty, . or .. segments";
  if (path === "TALENT.md" || path === "SKILL.md") return "is the main file: send it as content";
  return null;
}

function readContent(v: unknown, issues: Issue[], required: boolean): string | undefined {
  if (v === undefined || v === null) {
    if (required) issues.push({ path: "content", message: "missing: the TALENT.md (or SKILL.md) text (it may be empty in a draft)" });
    return undefined;
  }
  if (typeof v !== "string") {
    issues.push({ path: "content", message: "must be a string (the TALENT.md or SKILL.md text)" });
    return undefined;
  }
  if (bytes(v) > MAX_CONTENT_BYTES) issues.push({ path: "content", message: `too large (${bytes(v)} bytes > ${MAX_CONTENT_BYTES})` });
  return v;
}

function readFiles(v: unknown, issues: Issue[]): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  // A form-encoded body can carry the map as JSON text.
  if (typeof v === "string") {
    if (v.trim() === "") return {};
    try {
      v = JSON.parse(v);
    } catch {
      issues.push({ path: "files", message: "must be an object mapping relative paths to text" });
      return undefined;
    }
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    issues.push({ path: "files", message: "must be an object mapping relative paths to text" });
    return undefined;
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_FILES) issues.push({ path: "files", message: `at most ${MAX_FILES} files (got ${entries.length})` });
  const out: Record<string, string> = {};
  for (const [path, content] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const problem = filePathProblem(path);
    if (problem) issues.push({ path: `files.${path}`, message: `path ${problem}` });
    if (typeof content !== "string") issues.push({ path: `files.${path}`, message: "must be text" });
    else if (bytes(content) > MAX_FILE_BYTES)
      issues.push({ path: `files.${path}`, message: `too large (${bytes(content)} bytes > ${MAX_FILE_BYTES})` });
    else if (content.includes("\u0000")) issues.push({ path: `files.${path}`, message: "must be text (contains a NUL character)" });
    if (!problem && typeof content === "string") out[path] = content;
  }
  return out;
}

function checkTotal(content: string | undefined, files: Record<string, string> | undefined, issues: Issue[]): void {
  const total = bytes(content ?? "") + Object.values(files ?? {}).reduce((n, c) => n + bytes(c), 0);
  if (total > MAX_TOTAL_BYTES)
    issues.push({ path: "", message: `content and files together are too large (${total} bytes > ${MAX_TOTAL_BYTES})` });
}

function readRevision(v: unknown, issues: Issue[], required: boolean): number | undefined {
  if (v === undefined || v === null || v === "") {
    if (required) issues.push({ path: "expectedRevision", message: "missing: the revision you edited (from the last read)" });
    return undefined;
  }
  const n = typeof v === "string" && /^\d{1,15}$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) {
    issues.push({ path: "expectedRevision", message: "must be a positive integer" });
    return undefined;
  }
  return n;
}

export interface CreateInput {
  slug: string;
  content: string;
  files: Record<string, string>;
}

/** `POST /web/orgs/current/expertises` `{slug, content, files?}`. */
export function parseCreate(body: unknown): CreateInput {
  const b = asObject(body);
  const issues: Issue[] = [];
  let slug = "";
  if (b.slug === undefined || b.slug === null || b.slug === "") issues.push({ path: "slug", message: "missing" });
  else if (typeof b.slug !== "string") issues.push({ path: "slug", message: "must be a string" });
  else if (b.slug.length > SLUG_MAX || !ID_PATTERN.test(b.slug)) {
    issues.push({
      path: "slug",
      message: `"${b.slug.slice(0, 80)}" is not a valid slug (1–${SLUG_MAX} chars, lower-case letters and digits separated by single -)`,
    });
  } else slug = b.slug;
  const content = readContent(b.content, issues, true);
  const files = readFiles(b.files, issues);
  checkTotal(content, files, issues);
  if (issues.length > 0) throw validationFailed(issues);
  return { slug, content: content!, files: files ?? {} };
}

export interface PatchInput {
  expectedRevision: number;
  content?: string;
  files?: Record<string, string>;
}

/** `PATCH …/:id` `{expectedRevision, content?, files?}`: at least one of content and files. */
export function parsePatch(body: unknown): PatchInput {
  const b = asObject(body);
  const issues: Issue[] = [];
  const expectedRevision = readRevision(b.expectedRevision, issues, true);
  const content = readContent(b.content, issues, false);
  const files = readFiles(b.files, issues);
  if (b.content === undefined && b.files === undefined)
    issues.push({ path: "", message: "nothing to change: send content, files, or both" });
  checkTotal(content, files, issues);
  if (issues.length > 0) throw validationFailed(issues);
  return { expectedRevision: expectedRevision!, content, files };
}

/** `POST …/:id/publish` `{expectedRevision?, serve?}`: `serve` (true, or "true"/"1"/"on" from a form) also serves it at once. */
export function parsePublish(body: unknown): { expectedRevision?: number; serve: boolean; acknowledgeContent: boolean } {
  const b = asObject(body);
  const issues: Issue[] = [];
  const expectedRevision = readRevision(b.expectedRevision, issues, false);
  /** A boolean of JSON or of a form (a checkbox's "on"). */
  const flag = (name: string): boolean => {
    const v = b[name];
    const yes = v === true || v === "true" || v === "1" || v === "on";
    if (!yes && v !== undefined && v !== null && v !== false && v !== "false" && v !== "0" && v !== "")
      issues.push({ path: name, message: "must be true or false" });
    return yes;
  };
  const serve = flag("serve");
  const acknowledgeContent = flag("acknowledgeContent");
  if (issues.length > 0) throw validationFailed(issues);
  return { expectedRevision, serve, acknowledgeContent };
}

/** `PUT …/:id/triggers` `{files?, keywords?, expectedRevision?}`; normalized by triggers.ts. From a form, each list is a text of lines. */
export function parseTriggersBody(body: unknown, fromForm = false): { files?: unknown; keywords?: unknown; expectedRevision?: number } {
  const b = asObject(body);
  const issues: Issue[] = [];
  const expectedRevision = readRevision(b.expectedRevision, issues, false);
  if (b.files === undefined && b.keywords === undefined) issues.push({ path: "", message: "send files (globs), keywords, or both" });
  if (issues.length > 0) throw validationFailed(issues);
  // a form (the dashboard) sends each list as text, one entry per line; JSON keeps its lists
  const lines = (v: unknown) =>
    fromForm && typeof v === "string"
      ? v
          .split(/\r?\n/)
          .map((x) => x.trim())
          .filter((x) => x !== "")
      : v;
  return { files: lines(b.files), keywords: lines(b.keywords), expectedRevision };
}

export interface ListFilter {
  statuses?: ExpertiseStatus[];
  text?: string;
  trigger?: string;
}

/** `GET /web/orgs/current/expertises?status=&text=&trigger=`. */
export function parseListQuery(query: Record<string, string | undefined>): ListFilter {
  const issues: Issue[] = [];
  const out: ListFilter = {};
  if (query.status !== undefined && query.status !== "") {
    const statuses = query.status
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = statuses.filter((s) => !(EXPERTISE_STATUSES as readonly string[]).includes(s));
    if (bad.length > 0)
      issues.push({
        path: "status",
        message: `unknown status ${bad.join(", ")}; one or more (comma-separated) of ${EXPERTISE_STATUSES.join(", ")}`,
      });
    else out.statuses = statuses as ExpertiseStatus[];
  }
  for (const k of ["text", "trigger"] as const) {
    const v = query[k];
    if (v === undefined || v.trim() === "") continue;
    if (v.length > MAX_QUERY_LENGTH) issues.push({ path: k, message: `too long (${v.length} > ${MAX_QUERY_LENGTH} characters)` });
    else out[k] = v.trim();
  }
  if (issues.length > 0) throw validationFailed(issues);
  return out;
}

/** Parses `:version` of the versions route; undefined when it is not a positive integer. */
export function parseVersionParam(v: string): number | undefined {
  return /^[1-9]\d{0,8}$/.test(v) ? Number(v) : undefined;
}
