/**
 * Skills (docs/api.md "Skills") through the real MCP SDK client over Streamable HTTP, with a project key
 * and with an OAuth access token: the Skills extension (`io.modelcontextprotocol/skills`,
 * sent as its stable specification defines the methods), every listed file read back with
 * `resources/read` and its digest and size recomputed, MCP errors (never an HTTP 500) for bad
 * cursors and URIs, another organization's expertise answered like a URI naming nothing, and
 * the loop's two prompts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { parseDocument } from "yaml";
import * as z from "zod";
import { splitFrontMatter } from "../../src/catalog/frontMatter";
import { sha256Hex } from "../../src/lib/crypto";
import { createKey, orgWithProject, publishedExpertiseOf, talentMd } from "../helpers";
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

// ---- the extension's result shapes (specification/stable/skills.mdx), checked by the client
const SkillResource = z
  .object({ uri: z.string(), digest: z.string().regex(/^sha256:[0-9a-f]{64}$/), size: z.number().int().nonnegative() })
  .strict();
const Skill = z
  .object({ uri: z.string(), frontmatter: z.looseObject({ name: z.string(), description: z.string() }), resources: z.array(SkillResource) })
  .strict();
const Cacheable = { ttlMs: z.number().int().nonnegative(), cacheScope: z.enum(["public", "private"]) };
const ListSkillsResult = z.looseObject({
  resultType: z.literal("complete"),
  skills: z.array(Skill),
  nextCursor: z.string().optional(),
  ...Cacheable,
});
const GetSkillResult = z.looseObject({ resultType: z.literal("complete"), skill: Skill, ...Cacheable });
const DirectoryResult = z.looseObject({
  resultType: z.literal("complete"),
  resources: z.array(z.looseObject({ uri: z.string(), name: z.string(), mimeType: z.string() })),
  nextCursor: z.string().optional(),
});
const ReadResult = z.looseObject({ contents: z.array(z.looseObject({ uri: z.string(), mimeType: z.string(), text: z.string() })) });

const listSkills = (c: Client, cursor?: string) =>
  c.request({ method: "skills/list", params: cursor === undefined ? {} : { cursor } }, ListSkillsResult);
const getSkill = (c: Client, uri: string) => c.request({ method: "skills/get", params: { uri } }, GetSkillResult);
const readDirectory = (c: Client, uri: string, cursor?: string) =>
  c.request({ method: "resources/directory/read", params: cursor === undefined ? { uri } : { uri, cursor } }, DirectoryResult);
const readFile = (c: Client, uri: string) => c.request({ method: "resources/read", params: { uri } }, ReadResult);

/** Every entry of skills/list, page by page. */
async function allSkills(c: Client): Promise<{ skills: z.infer<typeof Skill>[]; pages: number }> {
  const skills: z.infer<typeof Skill>[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await listSkills(c, cursor);
    expect(page).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    skills.push(...page.skills);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { skills, pages };
}

/** The MCP error a call rejects with. */
async function mcpError(p: Promise<unknown>): Promise<McpError> {
  const e = await p.then(
    () => null,
    (x) => x,
  );
  expect(e).toBeInstanceOf(McpError);
  return e as McpError;
}

/** An org with a project, the talents installed, an active expertise, and a key. */
async function setup(install: string[], opts: { tools?: string[]; expertise?: boolean } = {}) {
  const o = await orgWithProject(live.env);
  let ref: string | null = null;
  if (opts.expertise !== false) {
    ref = (
      await publishedExpertiseOf(
        o.owner,
        "payments",
        talentMd("payments", {}, `Refunds go through [the ledger](talent://@${o.org.slug}/payments/references/ledger.md) — “always”.`),
        {
          "references/ledger.md": "# Ledger\n\nPost twice. Ünïcode.\n",
        },
      )
    ).ref;
  }
  const talents = [...install, ...(ref ? [ref] : [])];
  if (talents.length > 0) {
    const r = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  }
  const key = (await createKey(o.owner, o.project.id, opts.tools ?? ["deepen", "prepare_task", "validate"])).value;
  return { ...o, key, ref, url: `${live.base}/mcp/${o.project.id}` };
}

/** Sign-in and consent in a browser through the SDK's OAuth client; a client connected with the token. */
async function oauthClient(url: string, who: { email: string }): Promise<Client> {
  const provider = new MemoryOAuthProvider();
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await new Client(CLIENT_INFO).connect(first).catch(() => undefined);
  const { code } = await consentInBrowser(new Browser(live.base), provider.authorizationUrl!.toString(), {
    email: who.email,
    password: PASSWORD,
  });
  await first.finishAuth(code!);
  const client = new Client(CLIENT_INFO);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  expect(provider.saved!.access_token).toMatch(/^svc_at_/);
  return client;
}

/** Reads every listed file with resources/read and checks it against its entry: digest, size, frontmatter. */
async function verifyEverySkill(c: Client, skills: z.infer<typeof Skill>[]): Promise<number> {
  let files = 0;
  for (const skill of skills) {
    // the final segment of the skill path is the skill's name
    expect(skill.uri.split("/").at(-2)).toBe(skill.frontmatter.name);
    expect(skill.resources.filter((r) => r.uri === skill.uri)).toHaveLength(1);
    expect(new Set(skill.resources.map((r) => r.uri)).size).toBe(skill.resources.length);
    for (const res of skill.resources) {
      const read = await readFile(c, res.uri);
      expect(read.contents).toHaveLength(1);
      const text = read.contents[0]!.text;
      expect(read.contents[0]!.uri).toBe(res.uri);
      expect(`sha256:${sha256Hex(text)}`).toBe(res.digest);
      expect(new TextEncoder().encode(text).length).toBe(res.size);
      if (res.uri === skill.uri) expect(parseDocument(splitFrontMatter(text)!.yaml).toJS()).toEqual(skill.frontmatter);
      files++;
    }
  }
  return files;
}

describe("the Skills extension with a project key", () => {
  test('skills/list (paged) lists "each active talent of the project" — every shipped talent and an expertise, 51 skills over two pages — and resources/read of every listed file matches its digest and size (recomputed)', async () => {
    const ids = live.env.state.catalog!.list.map((t) => t.id);
    const s = await setup(ids);
    const client = await connectWithBearer(s.url, s.key);
    const { skills, pages } = await allSkills(client);
    expect(pages).toBe(2);
    expect(skills.map((k) => k.uri)).toEqual([...ids.map((id) => `skill://${id}/SKILL.md`), `skill://~${s.org.slug}/payments/SKILL.md`]);
    const files = await verifyEverySkill(client, skills);
    expect(files).toBe(live.env.state.catalog!.list.reduce((n, t) => n + t.files.size, 0) + 2);
    await client.close();
  });

  test("skills/get answers the entry of a listed skill; resources/directory/read lists a skill's root, its folders and an organization's prefix", async () => {
    const s = await setup(["typescript-strict"]);
    const client = await connectWithBearer(s.url, s.key);
    const { skills } = await allSkills(client);
    for (const listed of skills) expect((await getSkill(client, listed.uri)).skill).toEqual(listed);
    const root = await readDirectory(client, "skill://typescript-strict");
    expect(root.resources.map((r) => [r.name, r.mimeType])).toEqual([
      ["typescript-strict", "text/markdown"],
      ["references", "inode/directory"],
    ]);
    const refs = await readDirectory(client, "skill://typescript-strict/references");
    expect(refs.resources.map((r) => r.uri)).toEqual([
      "skill://typescript-strict/references/narrowing.md",
      "skill://typescript-strict/references/strict-flags.md",
    ]);
    const org = await readDirectory(client, `skill://~${s.org.slug}`);
    expect(org.resources).toEqual([{ uri: `skill://~${s.org.slug}/payments`, name: "payments", mimeType: "inode/directory" }]);
    await client.close();
  });

  test("bad cursors, URIs and params are MCP errors -32602 (HTTP 200, never a 500)", async () => {
    const s = await setup(["typescript-strict"]);
    const client = await connectWithBearer(s.url, s.key);
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      ["skills/list bad cursor", () => listSkills(client, "not-a-cursor"), /^MCP error -32602: validation_failed: cursor/],
      [
        "skills/list cursor of another type",
        () => client.request({ method: "skills/list", params: { cursor: 5 } }, ListSkillsResult),
        /params\.cursor must be a string/,
      ],
      [
        "skills/get unknown",
        () => getSkill(client, "skill://sql-base/SKILL.md"),
        /not_found: No skill is served at skill:\/\/sql-base\/SKILL\.md/,
      ],
      [
        "skills/get of a file that is not SKILL.md",
        () => getSkill(client, "skill://typescript-strict/references/narrowing.md"),
        /not_found/,
      ],
      ["skills/get without uri", () => client.request({ method: "skills/get", params: {} }, GetSkillResult), /params\.uri is required/],
      ["directory of a file", () => readDirectory(client, "skill://typescript-strict/SKILL.md"), /is not a directory resource/],
      ["directory unknown", () => readDirectory(client, "skill://nope"), /No directory resource is served at skill:\/\/nope/],
      ["directory bad cursor", () => readDirectory(client, "skill://typescript-strict", "%%"), /validation_failed: cursor/],
      ["read of an unknown skill file", () => readFile(client, "skill://typescript-strict/nope.md"), /No skill file is served/],
      ["read of a directory", () => readFile(client, "skill://typescript-strict/references"), /is a directory resource/],
      ["read of an undecodable URI", () => readFile(client, "skill://typescript-strict/%E0%A4%A"), /No skill file is served/],
      [
        "read without a string uri",
        () => client.request({ method: "resources/read", params: { uri: 42 } }, ReadResult),
        /params\.uri must be a string/,
      ],
    ];
    for (const [name, call, message] of cases) {
      const e = await mcpError(call());
      expect(`${name}: ${e.code}`).toBe(`${name}: ${ErrorCode.InvalidParams}`);
      expect(e.message).toMatch(message);
    }
    // the wire: a JSON-RPC error in a 200, not an HTTP failure
    const raw = await fetch(s.url, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "resources/directory/read",
        params: { uri: "skill://typescript-strict/SKILL.md" },
      }),
    });
    expect(raw.status).toBe(200);
    expect((await raw.json()).error).toMatchObject({ code: -32602, data: { status: 404, error: "not_found" } });
    await client.close();
  });

  test('"another organization\'s expertise never listed or readable through any of these methods": its URIs get errors identical to unknown ones', async () => {
    const owner = await setup([]);
    const stranger = await setup(["typescript-strict"], { expertise: false });
    const client = await connectWithBearer(stranger.url, stranger.key);
    const listed = JSON.stringify(await allSkills(client));
    expect(listed).not.toContain("payments");
    expect(listed).not.toContain(owner.org.slug);
    const real = `skill://~${owner.org.slug}/payments`;
    const fake = `skill://~${owner.org.slug}/does-not-exist`;
    const asText = (e: McpError, uri: string) => JSON.stringify({ code: e.code, message: e.message, data: e.data }).replaceAll(uri, "URI");
    for (const [name, call] of [
      ["skills/get", (u: string) => getSkill(client, `${u}/SKILL.md`)],
      ["resources/read SKILL.md", (u: string) => readFile(client, `${u}/SKILL.md`)],
      ["resources/read a reference", (u: string) => readFile(client, `${u}/references/ledger.md`)],
      ["resources/directory/read", (u: string) => readDirectory(client, u)],
    ] as const) {
      const a = await mcpError(call(real));
      const b = await mcpError(call(fake));
      expect(`${name}: ${a.code}`).toBe(`${name}: ${ErrorCode.InvalidParams}`);
      expect(asText(a, real)).toBe(asText(b, fake));
    }
    // and its own organization's project reads it
    const ownClient = await connectWithBearer(owner.url, owner.key);
    expect((await readFile(ownClient, `${real}/SKILL.md`)).contents[0]!.text).toContain(
      "Refunds go through [the ledger](references/ledger.md)",
    );
    await client.close();
    await ownClient.close();
  });

  test("a key without deepen: the skills methods answer a JSON-RPC error -32600 carrying insufficient_scope and requiredScope deepen", async () => {
    const s = await setup(["typescript-strict"], { tools: ["prepare_task"] });
    const client = await connectWithBearer(s.url, s.key);
    for (const call of [
      () => listSkills(client),
      () => getSkill(client, "skill://typescript-strict/SKILL.md"),
      () => readDirectory(client, "skill://typescript-strict"),
      () => readFile(client, "skill://typescript-strict/SKILL.md"),
    ]) {
      const e = await mcpError(call());
      expect(e.code).toBe(ErrorCode.InvalidRequest);
      expect(e.data).toMatchObject({ status: 403, error: "insufficient_scope", requiredScope: "deepen" });
    }
    await client.close();
  });

  test("each skills call is traced like a tool call: via mcp, the client's name, the method", async () => {
    const s = await setup(["typescript-strict"]);
    const client = await connectWithBearer(s.url, s.key);
    await listSkills(client);
    await readFile(client, "skill://typescript-strict/SKILL.md");
    const events = (await s.owner.get(`/web/projects/${s.project.id}/traces`)).body.events as {
      kind: string;
      via: string;
      client: string;
    }[];
    expect(events.slice(0, 2).map((e) => `${e.kind} ${e.via} ${e.client}`)).toEqual([
      "skill_read mcp test-agent/1.2.3",
      "skills_list mcp test-agent/1.2.3",
    ]);
    await client.close();
  });
});

describe("the Skills extension with an OAuth access token", () => {
  test("a person's consent gives a token with which skills/list, skills/get, resources/directory/read and resources/read of every file work, digests recomputed", async () => {
    const s = await setup(["typescript-strict", "api-pagination"]);
    const client = await oauthClient(s.url, s.owner);
    expect(client.getServerCapabilities()?.extensions).toEqual({ "io.modelcontextprotocol/skills": { directoryRead: true } });
    const { skills } = await allSkills(client);
    expect(skills.map((k) => k.uri)).toEqual([
      "skill://api-pagination/SKILL.md",
      "skill://typescript-strict/SKILL.md",
      `skill://~${s.org.slug}/payments/SKILL.md`,
    ]);
    expect(await verifyEverySkill(client, skills)).toBe(2 + 3 + 2);
    expect((await getSkill(client, skills[2]!.uri)).skill).toEqual(skills[2]!);
    expect((await readDirectory(client, `skill://~${s.org.slug}/payments/references`)).resources.map((r) => r.name)).toEqual(["ledger.md"]);
    await client.close();
  });
});

describe("prompts: the loop, so clients that show prompts let a person start it", () => {
  test("prompts/list offers prepare_task (task, talents?) and audit_resolution (resolutionId, changes?) with described arguments", async () => {
    const s = await setup([], { expertise: false });
    const client = await connectWithBearer(s.url, s.key);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => [p.name, p.arguments!.map((a) => `${a.name}${a.required ? "" : "?"}`)])).toEqual([
      ["prepare_task", ["task", "talents?"]],
      ["audit_resolution", ["resolutionId", "changes?"]],
    ]);
    for (const p of prompts) {
      expect(p.title!.length).toBeGreaterThan(10);
      for (const a of p.arguments!) expect(a.description!.length).toBeGreaterThan(20);
    }
    await client.close();
  });

  test("prompts/get fills in the arguments: the designated ids for svc_prepare_task, the resolutionId for svc_validate and svc_record_validation", async () => {
    const s = await setup([], { expertise: false });
    const client = await connectWithBearer(s.url, s.key);
    const prep = await client.getPrompt({
      name: "prepare_task",
      arguments: { task: "add keyset pagination to GET /orders", talents: "api-pagination, typescript-strict" },
    });
    const prepText = (prep.messages[0]!.content as { text: string }).text;
    expect(prep.messages[0]!.role).toBe("user");
    expect(prepText).toContain("I am about to do this task: add keyset pagination to GET /orders");
    expect(prepText).toContain('Call svc_prepare_task with talentIds ["api-pagination","typescript-strict"].');
    const open = (await client.getPrompt({ name: "prepare_task", arguments: { task: "x" } })).messages[0]!.content as { text: string };
    expect(open.text).toContain("Find the talents this work touches");
    const audit = (
      await client.getPrompt({ name: "audit_resolution", arguments: { resolutionId: "res_01", changes: "the staged changes" } })
    ).messages[0]!.content as { text: string };
    expect(audit.text).toStartWith("Audit the staged changes against talentd resolution res_01:");
    expect(audit.text).toContain('svc_validate with resolutionId "res_01"');
    expect(audit.text).toContain("svc_record_validation");
    await client.close();
  });

  test("prompts/get of an unknown prompt or without a required argument → -32602", async () => {
    const s = await setup([], { expertise: false });
    const client = await connectWithBearer(s.url, s.key);
    expect((await mcpError(client.getPrompt({ name: "nope" }))).code).toBe(ErrorCode.InvalidParams);
    expect((await mcpError(client.getPrompt({ name: "audit_resolution", arguments: {} }))).code).toBe(ErrorCode.InvalidParams);
    await client.close();
  });
});
