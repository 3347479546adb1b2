/**
 * The client's side of the project-key API (docs/design.md "The binary and its client"): the server and key from flags or the
 * environment, one request at a time with a timeout, and every failure turned into one line for
 * a person (CliError: exit 2). A hook never hangs on a server that does not answer, and never
 * lets a commit through silently because of one.
 */
import pkg from "../../package.json" with { type: "json" };
import { CliError } from "../cli/errors";
import { printable } from "../lib/controls";

export interface ServerOptions {
  url: string;
  key: string;
  timeoutMs: number;
  /** Which run calls (src/journal/clients.ts names it in the activity): a hook, CI, or a check by hand. */
  run?: "hook" | "ci" | "check";
  /** This run's id, sent as `X-Talentd-Run` on each of its calls: the Activity tab groups them by it. */
  runId: string;
}

export const DEFAULT_TIMEOUT_S = 10;
/** The largest answer the client reads (32 MiB): a playbook or a selection is a few hundred KiB at most. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * The run's tag. A hook says so: the script `talentd hook install` writes sets TALENTD_RUN=hook
 * (a hook written before it did is known by GIT_INDEX_FILE, which git sets for the commit hooks);
 * CI sets `CI`; any other check is one run by hand, whatever its flags.
 */
function runOf(flags: Record<string, unknown>, env: Record<string, string | undefined>, command?: string): ServerOptions["run"] {
  if (command === "check") {
    if (env.TALENTD_RUN === "hook") return "hook";
    if (env.GIT_INDEX_FILE && (flags.staged || flags["commit-msg"])) return "hook";
  }
  if (env.CI && env.CI !== "false") return "ci";
  return command === "check" ? "check" : undefined;
}

/** The base URL when `url` is a project's MCP URL (`…/mcp` or `…/mcp/<project>`), else null. */
export function mcpBase(url: URL): string | null {
  const m = /^(.*?)\/mcp(\/[^/]+)?\/?$/.exec(url.pathname);
  return m ? `${url.origin}${m[1]}` : null;
}

/** The server, key and timeout: flags first, then TALENTD_URL, TALENTD_KEY, TALENTD_TIMEOUT; `command` tags the run. */
export function serverOptions(flags: Record<string, unknown>, env: Record<string, string | undefined>, command?: string): ServerOptions {
  const url = (typeof flags.url === "string" ? flags.url : env.TALENTD_URL)?.trim();
  if (!url) throw new CliError("no server: set TALENTD_URL (e.g. export TALENTD_URL=https://talentd.example.com) or pass --url URL");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`TALENTD_URL: "${url}" is not a URL (e.g. https://talentd.example.com)`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new CliError(`TALENTD_URL: "${url}" must be an http:// or https:// URL`);
  const base = mcpBase(parsed);
  if (base !== null)
    throw new CliError(`TALENTD_URL: "${url}" is an MCP URL, for agents; the talentd client needs the server's own URL: ${base}`);
  const key = (typeof flags.key === "string" ? flags.key : env.TALENTD_KEY)?.trim();
  if (!key) throw new CliError("no key: set TALENTD_KEY to a project key (svc_pk_…; create one in the project's keys) or pass --key KEY");
  const rawTimeout = typeof flags.timeout === "string" ? flags.timeout : env.TALENTD_TIMEOUT;
  let timeoutS = DEFAULT_TIMEOUT_S;
  if (rawTimeout !== undefined && rawTimeout !== "") {
    timeoutS = Number(rawTimeout);
    if (!Number.isFinite(timeoutS) || timeoutS <= 0 || timeoutS > 600)
      throw new CliError(`TALENTD_TIMEOUT: "${rawTimeout}" is not a number of seconds from 0.1 to 600`);
  }
  const run = runOf(flags, env, command);
  // a command builds its server once: one run, whatever calls it makes
  const runId = crypto.randomUUID();
  return { url: url.replace(/\/+$/, ""), key, timeoutMs: Math.round(timeoutS * 1000), runId, ...(run ? { run } : {}) };
}

/** A request to the key API; resolves to the JSON body of a 2xx answer, else throws CliError. */
export async function call<T = any>(
  server: ServerOptions,
  method: "GET" | "POST" | "PUT",
  path: string,
  body?: unknown,
  /** `issues`: a refusal's issues (a 400's fields) are added to its line. */
  opts: { issues?: boolean } = {},
): Promise<T> {
  const target = server.url + path;
  let response: Response;
  try {
    response = await fetch(target, {
      method,
      headers: {
        authorization: `Bearer ${server.key}`,
        accept: "application/json",
        "user-agent": `talentd-client/${pkg.version}${server.run ? ` (${server.run})` : ""}`,
        "x-talentd-run": server.runId,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(server.timeoutMs),
      redirect: "error",
    });
  } catch (e) {
    throw new CliError(`cannot reach the talentd server at ${server.url}: ${reason(e, server.timeoutMs)}`);
  }
  const text = await readAnswer(response, server, method, path);
  let json: any;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    throw new CliError(
      `${server.url} did not answer ${method} ${pathOnly(path)} as a talentd server would (HTTP ${response.status}, not ` +
        `JSON): is TALENTD_URL right?`,
    );
  }
  if (response.ok && (json === null || typeof json !== "object" || Array.isArray(json))) {
    const where = `${method} ${pathOnly(path)}`;
    throw new CliError(
      `${server.url} did not answer ${where} as a talentd server would (HTTP ${response.status}, not a JSON object): is TALENTD_URL right?`,
    );
  }
  if (response.ok) return json as T;
  // the server's words reach a terminal: shown inert (printable) and short
  const code = json && typeof json.error === "string" ? shown(json.error, 80) : "";
  const message = json && typeof json.message === "string" ? shown(json.message, 500) : "";
  if (response.status === 401) {
    throw new CliError(
      `the server refused the key (401 ${code || "invalid_token"}): it is unknown, revoked or expired; create a new one and ` +
        `set TALENTD_KEY`,
    );
  }
  if (code === "insufficient_scope") {
    const scope = shown(String(json.requiredScope ?? "?"), 80);
    throw new CliError(
      `the key lacks the scope ${scope} that ${method} ${pathOnly(path)} needs (403 insufficient_scope): create a key with it`,
    );
  }
  const id = shown(response.headers.get("x-request-id") ?? "", 80);
  const issues =
    opts.issues && Array.isArray(json?.issues)
      ? (json.issues as { path?: unknown; message?: unknown }[])
          .slice(0, 5)
          .map((i) => ` ${shown(String(i.path ?? ""), 80)}: ${shown(String(i.message ?? ""), 300)};`)
          .join("")
      : "";
  throw new CliError(
    `${method} ${pathOnly(path)} failed: ${response.status} ` +
      `${code || "error"}${message ? `: ${message}` : ""}${issues}${response.status >= 500 && id ? ` (request id ${id})` : ""}`,
  );
}

const pathOnly = (path: string): string => path.split("?")[0]!;
const shown = (text: string, max: number): string => printable(text.length > max ? text.slice(0, max) + "…" : text);

/**
 * The answer's body as UTF-8 text, read as a stream and given up past MAX_ANSWER_BYTES (or a
 * Content-Length above it): a server that answers without end must not take the machine's
 * memory. Not UTF-8, cut off, too large: CliError (exit 2).
 */
async function readAnswer(response: Response, server: ServerOptions, method: string, path: string): Promise<string> {
  const what = `${method} ${pathOnly(path)}`;
  const tooLarge = (): CliError =>
    new CliError(
      `the answer of ${server.url} to ${what} is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB: not a talentd answer ` +
        "(is TALENTD_URL right?)",
    );
  const declared = Number(response.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const reader = response.body?.getReader();
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_ANSWER_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (e) {
    if ((e as Error)?.name === "CliError") throw e;
    throw new CliError(`the talentd server at ${server.url} stopped answering ${what}: ${reason(e, server.timeoutMs)}`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks, size));
  } catch {
    const status = response.status;
    throw new CliError(
      `${server.url} did not answer ${what} as a talentd server would (HTTP ${status}, not UTF-8 text): is TALENTD_URL right?`,
    );
  }
}

function reason(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; code?: string; message?: string };
  if (err?.name === "TimeoutError" || err?.name === "AbortError") return `no answer within ${timeoutMs / 1000} s (TALENTD_TIMEOUT)`;
  if (err?.code === "ConnectionRefused" || err?.code === "ECONNREFUSED")
    return "connection refused (is the server running, and TALENTD_URL right?)";
  return err?.message ?? String(e);
}
