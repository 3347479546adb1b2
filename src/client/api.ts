/**
 * The client's side of the project-key API (DESIGN §15): the server and key from flags or the
 * environment, one request at a time with a timeout, and every failure turned into one line for
 * a person (CliError: exit 2). A hook never hangs on a server that does not answer, and never
 * lets a commit through silently because of one.
 */
import pkg from "../../package.json" with { type: "json" };
import { CliError } from "../cli/errors";

export interface ServerOptions {
  url: string;
  key: string;
  timeoutMs: number;
}

export const DEFAULT_TIMEOUT_S = 10;

/** The server, key and timeout: flags first, then TALENTD_URL, TALENTD_KEY, TALENTD_TIMEOUT. */
export function serverOptions(flags: Record<string, unknown>, env: Record<string, string | undefined>): ServerOptions {
  const url = (typeof flags.url === "string" ? flags.url : env.TALENTD_URL)?.trim();
  if (!url) throw new CliError("no server: set TALENTD_URL (e.g. export TALENTD_URL=https://talentd.example.com) or pass --url URL");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`TALENTD_URL: "${url}" is not a URL (e.g. https://talentd.example.com)`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new CliError(`TALENTD_URL: "${url}" must be an http:// or https:// URL`);
  const key = (typeof flags.key === "string" ? flags.key : env.TALENTD_KEY)?.trim();
  if (!key) throw new CliError("no key: set TALENTD_KEY to a project key (svc_pk_…; create one in the project's keys) or pass --key KEY");
  const rawTimeout = typeof flags.timeout === "string" ? flags.timeout : env.TALENTD_TIMEOUT;
  let timeoutS = DEFAULT_TIMEOUT_S;
  if (rawTimeout !== undefined && rawTimeout !== "") {
    timeoutS = Number(rawTimeout);
    if (!Number.isFinite(timeoutS) || timeoutS <= 0 || timeoutS > 600) throw new CliError(`TALENTD_TIMEOUT: "${rawTimeout}" is not a number of seconds from 0.1 to 600`);
  }
  return { url: url.replace(/\/+$/, ""), key, timeoutMs: Math.round(timeoutS * 1000) };
}

/** A request to the key API; resolves to the JSON body of a 2xx answer, else throws CliError. */
export async function call<T = any>(server: ServerOptions, method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const target = server.url + path;
  let response: Response;
  try {
    response = await fetch(target, {
      method,
      headers: {
        authorization: `Bearer ${server.key}`,
        accept: "application/json",
        "user-agent": `talentd-client/${pkg.version}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(server.timeoutMs),
      redirect: "error",
    });
  } catch (e) {
    throw new CliError(`cannot reach the talentd server at ${server.url}: ${reason(e, server.timeoutMs)}`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (e) {
    throw new CliError(`the talentd server at ${server.url} stopped answering ${method} ${pathOnly(path)}: ${reason(e, server.timeoutMs)}`);
  }
  let json: any;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    throw new CliError(`${server.url} did not answer ${method} ${pathOnly(path)} as a talentd server would (HTTP ${response.status}, not JSON): is TALENTD_URL right?`);
  }
  if (response.ok) return json as T;
  const code = json && typeof json.error === "string" ? json.error : "";
  const message = json && typeof json.message === "string" ? json.message : "";
  if (response.status === 401) {
    throw new CliError(`the server refused the key (401 ${code || "invalid_token"}): it is unknown, revoked or expired; create a new one and set TALENTD_KEY`);
  }
  if (code === "insufficient_scope") {
    throw new CliError(`the key lacks the scope ${json.requiredScope ?? "?"} that ${method} ${pathOnly(path)} needs (403 insufficient_scope): create a key with it`);
  }
  const id = response.headers.get("x-request-id");
  throw new CliError(`${method} ${pathOnly(path)} failed: ${response.status} ${code || "error"}${message ? `: ${message}` : ""}${response.status >= 500 && id ? ` (request id ${id})` : ""}`);
}

const pathOnly = (path: string): string => path.split("?")[0]!;

function reason(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; code?: string; message?: string };
  if (err?.name === "TimeoutError" || err?.name === "AbortError") return `no answer within ${timeoutMs / 1000} s (TALENTD_TIMEOUT)`;
  if (err?.code === "ConnectionRefused" || err?.code === "ECONNREFUSED") return "connection refused (is the server running, and TALENTD_URL right?)";
  return err?.message ?? String(e);
}
