/**
 * The official MCP conformance suite (the pinned @modelcontextprotocol/conformance) against a
 * running talentd (argument: its base URL, AUTO_APPROVE_ORGS on): signs up, creates an
 * organization, a project and a key, puts a small local proxy in front of `/mcp/<project>` that
 * adds the key's Authorization header (the suite sends none), then runs the scenarios below at
 * both protocol eras, then the suite's `authorization` run against the authorization server (a public
 * client registered for its callback; the signed-in person allows the consent page it prints). Every check must pass, except the ones the suite itself reports as
 * "Not testable" and the ones that call a fixture tool of the suite's reference server
 * (test_error_handling, json_schema_2020_12_tool), which talentd does not carry: both are listed
 * by name and docs/api-oauth-mcp.md gives the reason. Exit 1 otherwise.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const base: string = process.argv[2] ?? "";
if (!base) throw new Error("usage: bun scripts/conformance.ts BASE_URL [scenario…]");
const only = process.argv.slice(3);

const RUNS: { requirements: string; scenarios: string[] }[] = [
  {
    requirements: "2026-07-28",
    scenarios: [
      "server-stateless",
      "tools-list",
      "tools-call-error",
      "resources-list",
      "sep-2164-resource-not-found",
      "prompts-list",
      "caching",
      "http-header-validation",
      "http-custom-header-server-validation",
      "json-schema-2020-12",
    ],
  },
  {
    requirements: "2025-11-25",
    scenarios: ["server-initialize", "ping", "tools-list", "tools-call-error", "resources-list", "prompts-list"],
  },
];
/** The suite's scenarios for an authorization server: its metadata, and a code grant a person consents to. */
const AS_SCENARIOS = ["authorization-server-metadata-endpoint", "authorization-code-grant"];

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(base + path, {
    method,
    headers: { origin: base, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`conformance: ${method} ${path} answered ${r.status}: ${text.slice(0, 300)}`);
  return { headers: r.headers, body: JSON.parse(text) };
}

const email = `conformance-${Date.now()}@example.com`;
const up = await call("POST", "/api/auth/sign-up", { email, password: "conformance password 123" });
const cookie = /talentd_session=[^;]+/.exec(up.headers.get("set-cookie") ?? "")?.[0] ?? "";
const web = (m: string, p: string, b?: unknown) => call(m, p, b, { cookie });
await web("POST", "/web/orgs", { name: "Conformance" });
const pid = (await web("POST", "/web/projects", { name: "conformance" })).body.project.id as string;
await web("POST", `/web/projects/${pid}/talents`, { talents: ["typescript-strict", "javascript-base"] });
const tools = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "discover", "install"];
const key = (await web("POST", `/web/projects/${pid}/keys`, { name: "conformance", tools })).body.value as string;

// the proxy: the suite's requests, with the key, to the server's own host (BASE_URL's)
const target = new URL(base);
const proxy = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.delete("host");
    headers.set("authorization", `Bearer ${key}`);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    const res = await fetch(new URL(`/mcp/${pid}${url.search}`, target), { method: request.method, headers, body, redirect: "manual" });
    return new Response(res.body, { status: res.status, headers: res.headers });
  },
});

const bin = join(import.meta.dir, "../node_modules/@modelcontextprotocol/conformance/dist/index.js");
interface Check {
  id?: string;
  name?: string;
  status?: string;
  errorMessage?: string;
  details?: unknown;
}
const failures: string[] = [];
const notTestable: string[] = [];
const fixture: string[] = [];
/** A check that needs a tool only the suite's reference server has. */
const FIXTURE_TOOL = /Tool '?(test_error_handling|json_schema_2020_12_tool)'? not found/;
let passed = 0;

/** Counts one scenario's checks: passed, not testable, needing a fixture tool, or failed. */
function tally(label: string, checks: Check[], stdout: string, stderr: string): void {
  if (checks.length === 0) failures.push(`${label}: no checks recorded\n${stdout}\n${stderr}`.slice(0, 2000));
  for (const c of checks) {
    const name = `${label} ${c.id ?? c.name}`;
    if (c.status === "SUCCESS" || c.status === "INFO") {
      passed++;
      if (process.env.CONFORMANCE_VERBOSE) console.log(`conformance: passed ${name}`);
    } else if (/not testable/i.test(`${c.errorMessage ?? ""} ${c.name ?? ""}`) || c.status === "SKIPPED")
      notTestable.push(`${name}: ${c.errorMessage ?? ""}`);
    else if (c.status === "FAILURE" && FIXTURE_TOOL.test(c.errorMessage ?? "")) fixture.push(`${name}: ${c.errorMessage}`);
    else failures.push(`${name} ${c.status}: ${c.errorMessage ?? ""} ${JSON.stringify(c.details ?? "").slice(0, 400)}`);
  }
}

/** Runs the suite with `args` into a fresh output folder; `onLine` sees each line it prints. */
async function suite(label: string, args: string[], onLine?: (line: string) => Promise<void>): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), "talentd-conformance-"));
  const proc = Bun.spawn([process.execPath, bin, ...args, "-o", out], { stdout: "pipe", stderr: "pipe" });
  const errText = new Response(proc.stderr).text();
  let stdout = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
    const text = decoder.decode(chunk, { stream: true });
    const lines = (stdout.slice(stdout.lastIndexOf("\n") + 1) + text).split("\n").slice(0, -1);
    stdout += text;
    for (const line of lines) await onLine?.(line.trim());
  }
  await proc.exited;
  tally(label, readChecks(out), stdout, await errText);
  rmSync(out, { recursive: true, force: true });
}

// the scenarios are independent (each its own session through the proxy): a few run at once, as
// each run of the suite is a process that mostly waits on its start and on the server
const scenarios = RUNS.flatMap((run) => run.scenarios.map((scenario) => ({ requirements: run.requirements, scenario })));
const queue = scenarios.filter((s) => only.length === 0 || only.includes(s.scenario));
const AT_ONCE = 3;
await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const url = `http://127.0.0.1:${proxy.port}/mcp`;
      const args = ["server", "--url", url, "--scenario", next.scenario, "--force", "--spec-version", next.requirements];
      await suite(`${next.requirements} ${next.scenario}`, args);
    }
  }),
);

// the authorization server, with a public client registered beforehand for the suite's callback
const callbackPort = (() => {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
})();
const registered = await call("POST", "/oauth/register", {
  client_name: "MCP conformance suite",
  redirect_uris: [`http://127.0.0.1:${callbackPort}/callback`],
  token_endpoint_auth_method: "none",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
});
const clientId = registered.body.client_id as string;
// one run for both scenarios: the code grant reads the metadata the first one fetched
if (only.length === 0 || AS_SCENARIOS.some((a) => only.includes(a))) {
  const args = ["authorization", "--url", base, "--client-id", clientId, "--resource", `${base}/mcp/${pid}`];
  await suite("authorization", args.concat("--port", String(callbackPort)), async (line) => {
    if (line.startsWith(`${base}/oauth/authorize?`)) await consent(line);
  });
}

/** The signed-in person allows the request on the consent page; the redirect goes to the suite's callback. */
async function consent(url: string): Promise<void> {
  const page = await fetch(url, { headers: { cookie }, redirect: "manual" });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`conformance: the consent page answered ${page.status}: ${html.slice(0, 300)}`);
  const fields = new URLSearchParams();
  for (const m of html.matchAll(/<input\b([^>]*)>/g)) {
    const attr = (n: string) => new RegExp(`\\b${n}="([^"]*)"`).exec(m[1]!)?.[1]?.replaceAll("&amp;", "&").replaceAll("&quot;", '"');
    const type = attr("type") ?? "text";
    if (attr("name") && (type === "hidden" || (type === "checkbox" && /\bchecked\b/.test(m[1]!))))
      fields.set(attr("name")!, attr("value") ?? "on");
  }
  fields.set("decision", "allow");
  const posted = await fetch(`${base}/oauth/authorize`, {
    method: "POST",
    headers: { cookie, origin: base, "content-type": "application/x-www-form-urlencoded" },
    body: fields.toString(),
    redirect: "manual",
  });
  const location = posted.headers.get("location");
  if (posted.status !== 302 || !location)
    throw new Error(`conformance: consent answered ${posted.status}: ${(await posted.text()).slice(0, 300)}`);
  await fetch(location);
}
proxy.stop(true);

/** Every checks.json the suite wrote under `dir`. */
function readChecks(dir: string): Check[] {
  const found: Check[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...readChecks(path));
    else if (name === "checks.json") found.push(...(JSON.parse(readFileSync(path, "utf8")) as Check[]));
  }
  return found;
}

for (const n of notTestable) console.log(`conformance: not testable: ${n}`);
for (const n of fixture) console.log(`conformance: needs the suite's fixture tool: ${n}`);
for (const f of failures) console.log(`conformance: FAILED ${f}`);
console.log(
  `conformance: ${passed} checks passed, ${failures.length} failed, ${notTestable.length} not testable, ${fixture.length} need a fixture tool`,
);
process.exit(failures.length === 0 ? 0 : 1);
