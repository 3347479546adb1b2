/**
 * Wording follows the channel (docs/api.md "Wording follows the channel"): the same operations,
 * walked over MCP with the real SDK clients (the v1 client, and SDK v2's client pinned to
 * 2026-07-28 and in its default 2025 handshake; the last also with an OAuth token a person granted
 * the same scopes on the consent page) and over the key API with the same keys — every
 * tool's happy path and every error the tools return (designation_required, unknown_talents, an
 * unknown resolution or talent, bad arguments, a submission conflict, a scope refused). Over MCP
 * no answer names a route, and every tool it names is one the key's scopes allow; over the key
 * API no answer names a tool, and every route it names is one the key's scopes allow. Talent
 * content (compact blocks, files, titles, checks) is the authors' text and is left out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { KEY_ROUTE_LIST } from "../../src/keyRoutes";
import { TOOLS, TOOLS_BY_NAME } from "../../src/mcp/tools";
import { createKey, orgWithProject, publishedExpertiseOf, talentMd } from "../helpers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import {
  Browser,
  CLIENT_INFO,
  connectWithBearer,
  consentInBrowser,
  liveEnv,
  MemoryOAuthProvider,
  PASSWORD,
  type LiveEnv,
} from "../mcp-support";

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
});

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];
/** Keys with every scope, with the two of a task (prepare, validate), and with prepare alone. */
const KEYS = [ALL, ["prepare_task", "validate"], ["prepare_task"]];

/** Fields whose text is a talent author's, not the service's wording. */
const AUTHORED = new Set(["compact", "content", "summary", "title", "check", "tests", "catalog", "triggers", "pass", "fail"]);

/** The service's own wording in an answer: every string outside authored fields (the raw text when it is not JSON). */
function wordingOf(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  const out: string[] = [];
  const walk = (v: unknown, key: string): void => {
    if (AUTHORED.has(key)) return;
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) for (const x of v) walk(x, key);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(body, "");
  return out.join("\n");
}

interface Step {
  tool: string;
  args: Record<string, unknown>;
  /** The error code expected when the key carries the tool's scope; undefined: a success. */
  error?: string;
  /** What the MCP answer says instead of the code, when the SDK refuses the arguments before any backend request. */
  mcpError?: string;
}

/** The walk: every tool's happy path and the errors the tools return. */
function walk(resolutionId: string, expertise: string): Step[] {
  const report = {
    submissionId: `sub-${resolutionId}`,
    resolutionId,
    expertiseResults: [{ id: expertise, verdict: "fail", evidence: ["src/payments/refund.ts:12"] }],
  };
  return [
    { tool: "svc_prepare_task", args: { talentIds: [] }, error: "designation_required" },
    { tool: "svc_prepare_task", args: { talentIds: ["no-such-talent"] }, error: "unknown_talents" },
    { tool: "svc_validate", args: {}, error: "validation_failed", mcpError: "Input validation error" },
    { tool: "svc_prepare_task", args: { talentIds: "typescript-strict" }, error: "validation_failed", mcpError: "Input validation error" },
    { tool: "svc_validate", args: { resolutionId } },
    { tool: "svc_validate", args: { resolutionId, talent: "typescript-strict" } },
    { tool: "svc_validate", args: { resolutionId: "res_01AAAAAAAAAAAAAAAAAAAAAAAA" }, error: "not_found" },
    { tool: "svc_validate", args: { resolutionId, talent: "no-such-talent" }, error: "not_found" },
    { tool: "svc_deepen", args: { uri: "talent://typescript-strict", resolutionId } },
    { tool: "svc_deepen", args: { query: "strict" } },
    { tool: "svc_deepen", args: {}, error: "validation_failed" },
    { tool: "svc_deepen", args: { uri: "talent://no-such-talent" }, error: "not_found" },
    { tool: "svc_record_validation", args: { ...report, expertiseResults: [] }, error: "validation_failed" },
    { tool: "svc_record_validation", args: report },
    {
      tool: "svc_record_validation",
      args: { ...report, expertiseResults: [{ id: expertise, verdict: "pass" }] },
      error: "submission_conflict",
    },
    // a talent without prerequisites: installing typescript-strict would bring javascript-base and heal what svc_doctor reports
    { tool: "svc_install_talents", args: { talent: "conventional-commits" } },
    { tool: "svc_install_talents", args: { talent: "no-such-talent" }, error: "unknown_talents" },
    { tool: "svc_doctor", args: {} },
    { tool: "svc_discover_codebase", args: {} },
  ];
}

/** A key-API answer as the walk reads it. */
async function overApi(key: string, projectId: string, tool: string, args: Record<string, unknown>) {
  const c = TOOLS_BY_NAME.get(tool)!.toRequest(args, projectId);
  const url = new URL(c.path, live.base);
  for (const [k, v] of Object.entries(c.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (c.body) headers["content-type"] = "application/json";
  const r = await fetch(url, { method: c.method, headers, body: c.body ? JSON.stringify(c.body) : undefined });
  return { status: r.status, text: await r.text() };
}

/** What the walk needs of an MCP client, whichever SDK it comes from. */
interface McpCaller {
  callTool(p: {
    name: string;
    arguments: Record<string, unknown>;
  }): Promise<{ content?: unknown; isError?: unknown; structuredContent?: unknown }>;
  close(): Promise<void>;
}

/** SDK v2's client over Streamable HTTP with a bearer: pinned to 2026-07-28, or its default 2025 handshake. */
async function v2Client(url: string, bearer: string, pin?: string): Promise<McpCaller> {
  const transport = new V2Transport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } });
  const client = new V2Client({ name: "v2-agent", version: "2.0.0" }, pin ? { versionNegotiation: { mode: { pin } } } : {});
  await client.connect(transport);
  return client as unknown as McpCaller;
}

/** The MCP clients the walk runs over, each through the same key. */
const CLIENTS: { name: string; connect(url: string, bearer: string): Promise<McpCaller> }[] = [
  { name: "SDK v1 client", connect: async (url, bearer) => (await connectWithBearer(url, bearer)) as unknown as McpCaller },
  { name: "SDK v2 client at 2026-07-28", connect: (url, bearer) => v2Client(url, bearer, "2026-07-28") },
  { name: "SDK v2 client in its 2025 handshake", connect: (url, bearer) => v2Client(url, bearer) },
];

/** The bearers the MCP walk runs with: a project key of those scopes on every client, an OAuth token of them on SDK v2 at 2026-07-28. */
const RUNS = [...CLIENTS.map((via) => ({ via, bearer: "a key" })), { via: CLIENTS[1]!, bearer: "an OAuth token" }];

/** An OAuth access token for the project's MCP URL with exactly `scopes`: the SDK's flow, a person unticking the rest. */
async function oauthToken(url: string, email: string, scopes: string[]): Promise<string> {
  const provider = new MemoryOAuthProvider("http://localhost:41234/cb", `Walk ${scopes.join("+")}`);
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await expect(new Client(CLIENT_INFO).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const untick = ALL.filter((x) => !scopes.includes(x));
  const { code } = await consentInBrowser(
    new Browser(live.base),
    provider.authorizationUrl!.toString(),
    { email, password: PASSWORD },
    { untick },
  );
  await first.finishAuth(code!);
  expect(provider.saved!.scope!.split(" ").sort()).toEqual([...scopes].sort());
  return provider.saved!.access_token;
}

/**
 * An MCP answer: the tool result's text and its structuredContent (wording too: a client may show either), or the
 * refusal's (an HTTP error the client throws).
 */
async function overMcp(client: McpCaller, tool: string, args: Record<string, unknown>) {
  try {
    const r = await client.callTool({ name: tool, arguments: args });
    const text = (r.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");
    const structured = r.structuredContent === undefined ? undefined : JSON.stringify(r.structuredContent);
    return { isError: r.isError === true, text, structured };
  } catch (e) {
    return { isError: true, text: String((e as Error).message), structured: undefined };
  }
}

/** `METHOD /path` in a text (a sentence's final period is not part of the path). */
const ROUTE_NAMED = /\b(GET|POST|PATCH|PUT|DELETE) (\/[^\s?{}(),]*[^\s?{}(),.])/g;
const keyRouteOf = (method: string, path: string) =>
  KEY_ROUTE_LIST.find((r) => r.method === method && r.path === path.replace(/\/current\//, "/:id/"));

describe("wording follows the channel", () => {
  let s: Awaited<ReturnType<typeof orgWithProject>> & { expertise: string };
  beforeAll(async () => {
    const o = await orgWithProject(live.env);
    const { ref } = await publishedExpertiseOf(o.owner, "payments", talentMd("payments", {}, "Refunds go through the ledger."));
    const r = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", ref] });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    s = { ...o, expertise: ref };
  });

  test("the channel is the adapter's in-process mark: a key-API caller sending the adapter's headers still reads routes", async () => {
    const key = (await createKey(s.owner, s.project.id, ALL)).value;
    const r = await fetch(`${live.base}/api/prepare-task`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "x-talentd-via": "mcp",
        "x-talentd-tool": "svc_prepare_task",
      },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    const body = await r.json();
    expect(body.next).toContain(`GET /api/validation/playbook?resolutionId=${body.resolutionId}`);
    expect(body.next).not.toContain("svc_");
  });

  for (const scopes of KEYS) {
    for (const { via, bearer } of RUNS)
      test(`over MCP (${via.name}), ${bearer} with ${scopes.join("+")}: no answer names a route, and every tool named is one the caller may call`, async () => {
        const url = `${live.base}/mcp/${s.project.id}`;
        const token =
          bearer === "a key" ? (await createKey(s.owner, s.project.id, scopes)).value : await oauthToken(url, s.owner.email, scopes);
        const client = await via.connect(url, token);
        const allowed = new Set(TOOLS.filter((t) => scopes.includes(t.scope)).map((t) => t.name));
        const prepared = await overMcp(client, "svc_prepare_task", { talentIds: ["typescript-strict", s.expertise] });
        expect(prepared.isError).toBe(false);
        // the same answer as structuredContent beside the text, walked too
        expect(prepared.structured === undefined ? undefined : JSON.parse(prepared.structured)).toEqual(JSON.parse(prepared.text));
        const resolutionId = JSON.parse(prepared.text).resolutionId as string;
        const answers = [{ tool: "svc_prepare_task", text: prepared.text }];
        if (prepared.structured !== undefined) answers.push({ tool: "svc_prepare_task", text: prepared.structured });
        for (const step of walk(resolutionId, s.expertise)) {
          const a = await overMcp(client, step.tool, step.args);
          const mayCall = allowed.has(step.tool);
          expect(`${step.tool} ${JSON.stringify(step.args)}: ${a.isError ? "error" : "ok"}`).toBe(
            `${step.tool} ${JSON.stringify(step.args)}: ${step.error || !mayCall ? "error" : "ok"}`,
          );
          if (mayCall && step.error) expect(a.text).toContain(step.mcpError ?? step.error);
          // the v1 client throws the 403's body; SDK v2's throws its InsufficientScopeError, read from the challenge
          if (!mayCall) expect(a.text).toMatch(/insufficient_scope|^Insufficient scope: required /);
          // the scope needed is named (an OAuth challenge lists it with the scopes held)
          if (!mayCall) expect(a.text).toMatch(new RegExp(`"(?:[a-z_]+ )*${TOOLS_BY_NAME.get(step.tool)!.scope}(?: [a-z_]+)*"`));
          answers.push({ tool: step.tool, text: a.text });
          if (a.structured !== undefined) answers.push({ tool: step.tool, text: a.structured });
        }
        for (const a of answers) {
          const words = wordingOf(a.text);
          expect(`${a.tool}: ${[...words.matchAll(ROUTE_NAMED)].map((m) => m[0]).join(", ")}`).toBe(`${a.tool}: `);
          expect(`${a.tool}: ${words.includes("/api/") ? words : ""}`).toBe(`${a.tool}: `);
          // a refusal names the tool it refused; anything else names only tools the key may call
          const named = [...words.matchAll(/\bsvc_[a-z_]+/g)].map((m) => m[0]).filter((t) => t !== a.tool || allowed.has(a.tool));
          expect(`${a.tool}: ${named.filter((t) => !allowed.has(t)).join(", ")}`).toBe(`${a.tool}: `);
        }
        // the loop is still told, in tools: audit after the work, and the detail of one talent
        const next = JSON.parse(prepared.text).next as string;
        if (allowed.has("svc_validate")) expect(next).toContain(`svc_validate with resolutionId=${resolutionId}`);
        if (scopes === ALL) {
          expect(next).toContain("svc_record_validation");
          const playbook = answers.find((a) => a.tool === "svc_validate" && a.text.includes('"procedure"'))!.text;
          expect(playbook).toContain(`svc_validate with resolutionId=${resolutionId}, talent=<id>`);
          const unknown = answers.find((a) => a.tool === "svc_prepare_task" && a.text.includes("unknown_talents"))!.text;
          expect(unknown).toContain("svc_install_talents");
          expect(answers.find((a) => a.tool === "svc_doctor")!.text).toContain("svc_install_talents with talents=[javascript-base]");
        }
        await client.close();
      });

    test(`over the key API, a key with ${scopes.join("+")}: no answer names a tool, and every route named is one the key may call`, async () => {
      const key = (await createKey(s.owner, s.project.id, scopes)).value;
      const prepared = await overApi(key, s.project.id, "svc_prepare_task", { talentIds: ["typescript-strict", s.expertise] });
      expect(prepared.status).toBe(201);
      const resolutionId = JSON.parse(prepared.text).resolutionId as string;
      const answers = [{ tool: "svc_prepare_task", text: prepared.text }];
      for (const step of walk(resolutionId, s.expertise)) {
        const a = await overApi(key, s.project.id, step.tool, step.args);
        const scope = TOOLS_BY_NAME.get(step.tool)!.scope;
        if (!scopes.includes(scope)) expect(`${step.tool}: ${a.status}`).toBe(`${step.tool}: 403`);
        else if (step.error) expect(a.text).toContain(step.error);
        else expect(`${step.tool}: ${a.status < 300}`).toBe(`${step.tool}: true`);
        answers.push({ tool: step.tool, text: a.text });
      }
      for (const a of answers) {
        const words = wordingOf(a.text);
        expect(`${a.tool}: ${[...words.matchAll(/\bsvc_[a-z_]+/g)].map((m) => m[0]).join(", ")}`).toBe(`${a.tool}: `);
        const refused = [...words.matchAll(ROUTE_NAMED)]
          .map((m) => ({ named: m[0], route: keyRouteOf(m[1]!, m[2]!) }))
          .filter((x) => !x.route || !scopes.includes(x.route.scope))
          .map((x) => x.named);
        expect(`${a.tool}: ${refused.join(", ")}`).toBe(`${a.tool}: `);
      }
      const next = JSON.parse(prepared.text).next as string;
      if (scopes.includes("validate")) expect(next).toContain(`GET /api/validation/playbook?resolutionId=${resolutionId}`);
      if (scopes === ALL)
        expect(answers.find((a) => a.tool === "svc_doctor")!.text).toContain(
          "PATCH /api/projects/current/talents {talents: [javascript-base]}",
        );
    });
  }
});
