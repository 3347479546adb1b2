/**
 * Each connection line of the kit (docs/connection-kit.md, `GET /web/projects/:id/setup`) tried
 * with the real client, for every client published on npm: MCP Inspector's CLI, Claude Code and
 * Codex (pinned in .ci/agent-clients, installed by .ci/run; locally `npm ci --prefix
 * .ci/agent-clients`). Cursor, VS Code and Windsurf have no CLI on npm: their files are checked
 * against their documentation in connection-kit.test.ts. Each client runs with a home folder of its
 * own and talks to 127.0.0.1 only (its telemetry and updates turned off).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createKey, orgWithProject, tempDir } from "../helpers";
import { Browser, consentInBrowser, liveEnv, PASSWORD, type LiveEnv } from "../mcp-support";

const BIN = join(import.meta.dir, "../../.ci/agent-clients/node_modules/.bin");
const installed = ["mcp-inspector", "claude", "codex"].every((b) => existsSync(join(BIN, b)));
/** In CI the clients are installed by .ci/run: their absence is a failure there, a skip elsewhere. */
const run = installed || process.env.CI === "true";
if (!run) console.warn("real-clients: skipped, the clients are not installed (npm ci --prefix .ci/agent-clients)");

const QUIET = {
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  NO_UPDATE_NOTIFIER: "1",
  NO_COLOR: "1",
};

let live: LiveEnv;
const homes: { cleanup: () => void }[] = [];
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  for (const h of homes) h.cleanup();
  await live.close();
});

/** A fresh home folder: the client's configuration and credentials land there, nowhere else. */
function home(): string {
  const t = tempDir("talentd-client-home-");
  homes.push(t);
  return t.dir;
}

/** Splits a connection line into words (the kit's lines hold no quoted words). */
const words = (line: string) => line.split(/\s+/).filter(Boolean);

async function exec(cmd: string[], env: Record<string, string>, cwd: string, timeoutMs = 60_000) {
  const [bin, ...args] = cmd;
  if (!existsSync(join(BIN, bin!))) throw new Error(`${bin} is not installed: npm ci --prefix .ci/agent-clients`);
  const p = Bun.spawn([join(BIN, bin!), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...QUIET, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill(9), timeoutMs);
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  return { code, out, err };
}

async function project(tools = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog"]) {
  const o = await orgWithProject(live.env);
  const url = `${live.base}/mcp/${o.project.id}`;
  const key = await createKey(o.owner, o.project.id, tools);
  const kit = await o.owner.get(`/web/projects/${o.project.id}/setup`);
  const clients = new Map((kit.body.clients as { id: string; command?: string; content: string }[]).map((c) => [c.id, c]));
  return { o, url, key: key.value as string, clients };
}

describe.skipIf(!run)("the connection lines with the real clients", () => {
  test("MCP Inspector: the documented CLI line (with --transport http) lists the key's tools; without the flag it cannot connect", async () => {
    const { url, key } = await project(["prepare_task", "validate"]);
    const doc = readFileSync(join(import.meta.dir, "../../docs/connection-kit.md"), "utf8");
    const line = /`(npx @modelcontextprotocol\/inspector --cli URL[^`]*)`/.exec(doc)?.[1];
    expect(line).toBeDefined();
    // the documented line, with its placeholders filled: `--header "Authorization: Bearer $TALENTD_KEY"` is one argument
    const [head, header] = line!.split(/ --header /);
    const args = words(head!.replace(/^npx @modelcontextprotocol\/inspector/, "mcp-inspector").replace("URL", url));
    const headerValue = JSON.parse(header!).replace("$TALENTD_KEY", key);
    const listed = await exec([...args, "--header", headerValue], {}, home());
    expect({ code: listed.code, err: listed.err.slice(0, 300) }).toEqual({ code: 0, err: expect.any(String) });
    const tools = (JSON.parse(listed.out).tools as { name: string; annotations?: object }[]).map((t) => t.name).sort();
    expect(tools).toEqual(["svc_prepare_task", "svc_validate"]); // the key's two scopes, nothing more
    const called = await exec(
      [
        ...args.filter((a) => a !== "tools/list"),
        "tools/call",
        "--tool-name",
        "svc_prepare_task",
        "--tool-arg",
        "talentIds=[]",
        "--header",
        headerValue,
      ],
      {},
      home(),
    );
    expect(`${called.out}${called.err}`).toContain("designation_required");

    const withoutFlag = args.filter((a, i) => a !== "--transport" && args[i - 1] !== "--transport");
    const refused = await exec([...withoutFlag, "--header", headerValue], {}, home());
    expect(refused.code).not.toBe(0);
    expect(`${refused.out}${refused.err}`).toMatch(/Transport type not specified/);
  }, 120_000);

  test("Claude Code: the kit's `claude mcp add` line finds OAuth from the 401; with the key as a header it connects", async () => {
    const { url, key, clients } = await project();
    const claude = clients.get("claude-code")!;
    const h = home();
    const cwd = home();
    const env = { HOME: h };
    const added = await exec(words(claude.command!), env, cwd);
    expect(added.code).toBe(0);
    const withKey = await exec(
      ["claude", "mcp", "add", "--transport", "http", "talentd-key", url, "--header", `Authorization: Bearer ${key}`],
      env,
      cwd,
    );
    expect(withKey.code).toBe(0);
    const health = await exec(["claude", "mcp", "list"], env, cwd);
    expect(health.code).toBe(0);
    expect(health.out).toContain(`talentd: ${url} (HTTP) - ! Needs authentication`);
    expect(health.out).toContain(`talentd-key: ${url} (HTTP) - ✔ Connected`);
    // the project scope writes the very file the kit hands out
    const shared = await exec([...words(claude.command!), "--scope", "project"], env, cwd);
    expect(shared.code).toBe(0);
    expect(JSON.parse(readFileSync(join(cwd, ".mcp.json"), "utf8"))).toEqual(JSON.parse(claude.content));
  }, 120_000);

  test("Codex: the kit's `codex mcp add` line writes the kit's config.toml and signs in through the service's OAuth", async () => {
    const { o, url, clients } = await project();
    const codex = clients.get("codex")!;
    // Codex's own client id is a metadata document on chatgpt.com, which a test may not fetch; a
    // client registered here (RFC 7591, loopback redirect on any port) stands in for it.
    const reg = await fetch(`${live.base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Codex", redirect_uris: ["http://127.0.0.1/callback"], token_endpoint_auth_method: "none" }),
    });
    expect(reg.status).toBe(201);
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const codexHome = home();
    const env = { HOME: codexHome, CODEX_HOME: codexHome };
    const [bin, ...args] = [...words(codex.command!), "--oauth-client-id", clientId];
    const p = Bun.spawn([join(BIN, bin!), ...args], {
      cwd: codexHome,
      env: { PATH: process.env.PATH ?? "", ...QUIET, ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => p.kill(9), 60_000);
    // read until Codex prints the authorization URL it waits on
    let out = "";
    const reader = p.stdout.getReader();
    let authUrl: string | undefined;
    while (!authUrl) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
      authUrl = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(out)?.[1];
    }
    expect(authUrl).toBeDefined();
    const asked = new URL(authUrl!);
    expect(asked.searchParams.get("resource")).toBe(url);
    expect(asked.searchParams.get("client_id")).toBe(clientId);
    // the person signs in and consents; the browser follows the redirect to Codex's callback
    const { location, code } = await consentInBrowser(new Browser(live.base), authUrl!, { email: o.owner.email, password: PASSWORD });
    expect(code).toMatch(/^svc_ac_/);
    expect((await fetch(location)).status).toBeLessThan(400);
    const rest = new TextDecoder().decode((await reader.read()).value ?? new Uint8Array());
    expect(await p.exited).toBe(0);
    clearTimeout(timer);
    expect(out + rest).toMatch(/Successfully logged in/i);

    const config = Bun.TOML.parse(readFileSync(join(codexHome, "config.toml"), "utf8")) as { mcp_servers: Record<string, object> };
    expect(config.mcp_servers.talentd).toMatchObject(
      (Bun.TOML.parse(codex.content) as { mcp_servers: Record<string, object> }).mcp_servers.talentd!,
    );
    const listed = await exec(["codex", "mcp", "list", "--json"], env, codexHome);
    expect(listed.code).toBe(0);
    const entry = (JSON.parse(listed.out) as { name: string; auth_status?: string }[]).find((s) => s.name === "talentd");
    expect(entry?.auth_status).toBe("o_auth"); // signed in through OAuth (before the sign-in: "not_logged_in")
  }, 120_000);
});
