/**
 * Answers given after a commit (src/http/answer.ts): above 15,000 characters they leave as a
 * direct stream of 8 KB pieces (Bun's late path for a plain large body is 4–5× slower;
 * docs/performance.md). What a client receives must not change: the same status, headers and bytes, over HTTP/1.1
 * (chunked), HTTP/1.0 (the body ends with the connection) and through the MCP SDK client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { lateAnswer, lateJson } from "../../src/http/answer";
import { connectWithBearer, liveEnv, toolJson, type LiveEnv } from "../mcp-support";
import { createKey, orgWithProject } from "../helpers";

describe("lateAnswer: the same bytes, whatever the size", () => {
  // multi-byte characters across the pieces' boundaries (8,192 characters): the first piece would
  // end inside the surrogate pair of an emoji (index 8,191), the rest inside UTF-8 sequences
  const big = `{"t":"${"é😀—".repeat(5000)}"}`;
  test("a text above 15,000 characters, with multi-byte characters and a surrogate pair across the pieces' boundaries, reads back exactly (without a socket)", async () => {
    expect(big.charCodeAt(8191)).toBeGreaterThanOrEqual(0xd800); // the first piece's last unit: half a pair
    const r = lateAnswer(big, 201, { "content-type": "application/json" });
    expect(r.status).toBe(201);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(await r.text()).toBe(big);
  });

  test("over a socket: the large text arrives whole and exact (no half surrogate pair sent as U+FFFD), chunked; a small one keeps its Content-Length", async () => {
    const small = JSON.stringify({ ok: "ü".repeat(100) });
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      // a turn late, as after a commit on the writer thread
      fetch: (req) =>
        new Promise<Response>((resolve) =>
          setImmediate(() =>
            resolve(
              new URL(req.url).pathname === "/big"
                ? lateAnswer(big, 201, { "content-type": "application/json" })
                : lateJson(JSON.parse(small), 200),
            ),
          ),
        ),
    });
    try {
      const b = await fetch(`http://127.0.0.1:${server.port}/big`);
      expect(b.status).toBe(201);
      expect(b.headers.get("transfer-encoding")).toBe("chunked");
      expect(await b.text()).toBe(big);
      const s = await fetch(`http://127.0.0.1:${server.port}/small`);
      expect(s.headers.get("content-length")).toBe(String(Buffer.byteLength(small)));
      expect(await s.text()).toBe(small);
    } finally {
      server.stop(true);
    }
  });
});

describe("POST /api/prepare-task with a large answer, over a socket", () => {
  let live: LiveEnv;
  let key: string;
  let ids: string[];
  const prepare = (talentIds: string[]) =>
    fetch(`${live.base}/api/prepare-task`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ talentIds }),
    });

  beforeAll(async () => {
    live = await liveEnv();
    const { owner, project } = await orgWithProject(live.env);
    key = (await createKey(owner, project.id, ["catalog", "prepare_task", "validate"])).value;
    const catalog = (await (await fetch(`${live.base}/api/catalog?limit=12`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      talents: { id: string }[];
    };
    ids = catalog.talents.map((t) => t.id);
    expect(ids.length).toBe(12);
    expect((await owner.post(`/web/projects/${project.id}/talents`, { talents: ids })).status).toBe(201);
    // the twelve are served whole: a context budget above them (the default, 6,000 tokens, would list some by id)
    expect((await owner.patch(`/web/projects/${project.id}`, { contextBudget: 200_000 })).status).toBe(200);
  });
  afterAll(() => live.close());

  test("12 talents (over 15,000 characters): 201, application/json, the request id, the whole resolution, chunked", async () => {
    const r = await prepare(ids);
    expect(r.status).toBe(201);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.headers.get("x-request-id")).toMatch(/^[0-9A-Z]{26}$/);
    expect(r.headers.get("transfer-encoding")).toBe("chunked");
    const text = await r.text();
    expect(text.length).toBeGreaterThan(15_000);
    const body = JSON.parse(text);
    expect(body.talents.map((t: { id: string }) => t.id).sort()).toEqual([...ids].sort());
    // the frozen resolution serves the same talents again (the answer was the committed one)
    const again = await fetch(`${live.base}/api/validation/playbook?resolutionId=${body.resolutionId}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(again.status).toBe(200);
  });

  test("one talent (a small answer): a plain body with its Content-Length, as before", async () => {
    const r = await prepare(ids.slice(0, 1));
    expect(r.status).toBe(201);
    expect(r.headers.get("transfer-encoding")).toBeNull();
    const text = await r.text();
    expect(r.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
  });

  test("an error stays a plain JSON error (400 unknown talent), not a stream", async () => {
    const r = await prepare(["no-such-talent"]);
    expect(r.status).toBe(400);
    expect(r.headers.get("transfer-encoding")).toBeNull();
    expect((await r.json()).error).toBeString();
  });

  test("an HTTP/1.0 client (no chunked encoding) gets the whole answer, ended by the connection's close", async () => {
    const payload = JSON.stringify({ talentIds: ids });
    const { port } = new URL(live.base);
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          `POST /api/prepare-task HTTP/1.0\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
        );
      });
      socket.on("data", (d: Buffer) => parts.push(d));
      socket.on("end", () => resolve(Buffer.concat(parts)));
      socket.on("error", reject);
    });
    const split = raw.indexOf("\r\n\r\n");
    const head = raw.subarray(0, split).toString("latin1");
    expect(head).toMatch(/^HTTP\/1\.[01] 201/);
    expect(head.toLowerCase()).not.toContain("transfer-encoding");
    const body = JSON.parse(raw.subarray(split + 4).toString("utf8"));
    expect(body.talents.length).toBe(12);
  });

  test("through MCP (the SDK client, svc_prepare_task, the fast path's answer after the commit): the same resolution as the route gives, its next step worded for MCP", async () => {
    const client = await connectWithBearer(`${live.base}/mcp`, key);
    try {
      const result = await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: ids } });
      expect(result.isError).toBeFalsy();
      const body = toolJson(result);
      expect(body.talents.map((t: { id: string }) => t.id).sort()).toEqual([...ids].sort());
      const direct = await (await prepare(ids)).json();
      const same = (b: { resolutionId: string; createdAt?: string }) =>
        JSON.parse(JSON.stringify({ ...b, createdAt: "", attestation: "" }).replaceAll(b.resolutionId, "res_"));
      // wording follows the channel: the route names routes, the tool tools; the digests are the tool result's _meta
      // (docs/api-oauth-mcp.md "What a tool result carries"); all else is the same
      expect(body.next).toContain("svc_validate with resolutionId=");
      expect(direct.next).toContain("GET /api/validation/playbook?resolutionId=");
      const digests = Object.fromEntries(direct.talents.map((t: { id: string; digest: string }) => [t.id, t.digest]));
      expect(result._meta?.["talentd/digests"]).toEqual(digests);
      const talents = direct.talents.map(({ digest: _, ...t }: { digest: string }) => t);
      expect(same({ ...body, next: "" })).toEqual(same({ ...direct, talents, next: "" }));
    } finally {
      await client.close();
    }
  });
});
