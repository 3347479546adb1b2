/**
 * The README's first steps work word for word. This runs the README's own text —
 * `npm start`, the readiness check, every ```sh block of "First steps" in order, in one shell
 * — against a fresh server. The only change made to the words is the port: the server listens
 * on a free one, so `localhost:8787` becomes `127.0.0.1:<port>`; the setting itself comes from
 * the environment (PORT, HOST, BASE_URL, DATA_DIR), as the README's configuration table says.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../helpers";
import { freePort } from "../mcp-support";
import { waitReady } from "../proc";

const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The ```sh blocks of a section of the README, dedented, in order. */
function shellBlocks(section: string): string[] {
  const start = README.indexOf(`## ${section}`);
  const end = README.indexOf("\n## ", start + 1);
  const text = README.slice(start, end === -1 ? undefined : end);
  return [...text.matchAll(/^( *)```sh\n([\s\S]*?)^ *```$/gm)].map((m) =>
    m[2]!
      .split("\n")
      .map((line) => line.slice(m[1]!.length))
      .join("\n"),
  );
}

const { dir, cleanup } = tempDir();
const port = freePort();
const base = `http://127.0.0.1:${port}`;
const local = (text: string) => text.replaceAll("http://localhost:8787", base).replaceAll("localhost:8787", `127.0.0.1:${port}`);
const env = {
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/tmp",
  PORT: String(port),
  HOST: "127.0.0.1",
  BASE_URL: base,
  DATA_DIR: join(dir, "data"),
  LOG_FORMAT: "json",
};
let server: ReturnType<typeof Bun.spawn>;

/** Runs shell text with bash (errexit, pipefail) in `cwd`; returns exit code and output. */
async function sh(script: string, cwd = dir) {
  const p = Bun.spawn(["bash", "-euo", "pipefail", "-c", script], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, out, err };
}

beforeAll(async () => {
  // "Run it": the README's line, started from the checkout
  const runLine = /^ {4}(npm ci && npm start)$/m.exec(README)?.[1];
  expect(runLine).toBe("npm ci && npm start");
  server = Bun.spawn(["bash", "-c", "exec npm start"], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
  await waitReady(base, 30_000);
}, 60_000);
afterAll(async () => {
  server.kill("SIGTERM");
  await server.exited;
  cleanup();
});

describe("the README's first steps, word for word", () => {
  test('"Run it": the readiness check the README gives answers ready', async () => {
    const check = /`(curl localhost:8787\/readyz)`/.exec(README)?.[1];
    expect(check).toBeDefined();
    const r = await sh(local(check!));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).status).toBe("ready");
  });

  test("every ```sh block of First steps, in order, in one shell: the administrator, the organization, project, talents and key, then the key API answers with a resolution", async () => {
    const blocks = shellBlocks("First steps");
    expect(blocks.length).toBe(3);
    // the administrator is created from the checkout, as the README says (npm run -s talentd -- …)
    const admin = await sh(blocks[0]!, ROOT);
    expect({ code: admin.code, err: admin.err }).toEqual({ code: 0, err: "" });
    expect(admin.out).toContain("platform admin you@example.com created");

    const rest = await sh(local(blocks.slice(1).join("\n")));
    expect({ code: rest.code, err: rest.err }).toEqual({ code: 0, err: "" });
    const lines = rest.out.trim().split("\n");
    expect(JSON.parse(lines[0]!).user.email).toBe("you@example.com"); // sign-in
    expect(JSON.parse(lines[1]!).organization.status).toBe("approved"); // the administrator's organization
    expect(JSON.parse(lines[2]!).installed).toBeDefined(); // the talents
    const mcp = /^MCP URL for interactive agents: (\S+)$/.exec(lines[3]!)?.[1];
    expect(mcp).toMatch(new RegExp(`^${base}/mcp/prj_`));
    const served = JSON.parse(lines[4]!);
    expect(served.resolutionId).toMatch(/^res_/);
    expect(served.talents.map((t: { id: string }) => t.id).sort()).toEqual(["javascript-base", "typescript-strict"]);

    // the MCP URL is where an interactive agent starts: 401 with the OAuth metadata to discover
    const r = await fetch(mcp!, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp/`);
  }, 60_000);
});
