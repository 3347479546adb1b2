/**
 * What an audit-log export may cost the server (docs/design.md "Exports share the thread"): each
 * page read in its own event-loop turn, pages read only as the client takes them, one export at
 * a time per organization (the next 429 rate_limited with Retry-After, another organization's
 * export unaffected), the slot given back when the client goes away mid-stream, the page query
 * on the (organization, id) index. Over a real HTTP server and a real libSQL file; the latency
 * beside other tenants is measured by bench/auditload.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { nextTurn, orgWithProject, queryPlan, signedUp, testEnv, type TestEnv, type WebClient } from "../helpers";
import { EXPORT_PAGE, exportStream, pageQuery } from "../../src/audit/export";
import { EXPORT_RETRY_AFTER_S, exportPause, type HeavyReads } from "../../src/audit/exportLimit";
import { whereOf } from "../../src/audit/query";
import type { Database } from "../../src/db/client";
import { dashboardReadCap } from "../../src/activity/readCap";

let env: TestEnv;
let base: string;
let owner: WebClient & { userId: string };
let orgId: string;
let other: WebClient;
const PAGES = 200;
const SEEDED = EXPORT_PAGE * PAGES;

/** `n` entries of `organization`, ids `aud_<prefix>…` in order, each line ~300 bytes. */
async function seed(organization: string, n: number, prefix: string, on: TestEnv = env): Promise<void> {
  await on.database.client.execute({
    sql: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
          INSERT INTO audit_entries (id, organization_id, at, actor_kind, actor_id, actor_label, action, object_kind, object_id, before, after)
          SELECT ${on.database.dialect === "sqlite" ? "printf('aud_%s%024d', ?, i)" : "'aud_' || ? || lpad(i::text, 24, '0')"}, ?, 1700000000000 + i * 1000, 'user', 'usr_x', 'someone.with.a.long.name@example.com',
                 'member.role_changed', 'member', 'usr_' || i, '{"role":"member"}', '{"role":"admin"}' FROM n`,
    args: [n, prefix, organization],
  });
  await nextTurn();
}

beforeAll(async () => {
  env = await testEnv();
  const a = await orgWithProject(env, "Exports A");
  const b = await orgWithProject(env, "Exports B");
  owner = a.owner;
  orgId = a.org.id;
  other = b.owner;
  await seed(orgId, SEEDED, "0");
  await seed(b.org.id, EXPORT_PAGE * 3, "1");
  env.app.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${env.app.server!.port}`;
}, 60_000);
afterAll(async () => {
  if (env.app.server) await env.app.stop(true);
  env.close();
});

const exportUrl = (format = "csv") => `${base}/web/orgs/current/audit-log/export?format=${format}`;
const exportOf = (c: WebClient, init: RequestInit = {}) => fetch(exportUrl(), { ...init, headers: { cookie: c.cookie! } });

/** The database with its page reads counted (the reads themselves go to the real file). */
function counted(database: Database): { database: Database; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(database, {
    get(target, key, receiver) {
      if (key === "get")
        return (sql: string, args?: unknown[]) => {
          reads++;
          return target.get(sql, args as never);
        };
      return Reflect.get(target, key, receiver);
    },
  });
  return { database: proxy, reads: () => reads };
}

/** `c`'s export once its organization's slot is free (an earlier test's cancelled body is let go a moment later): polled for up to 3 s. */
async function whenFree(c: WebClient, init: RequestInit = {}): Promise<Response> {
  const until = Date.now() + 3000;
  for (;;) {
    const r = await exportOf(c, init);
    if (r.status === 200 || Date.now() > until) return r;
    await r.arrayBuffer();
    await Bun.sleep(20);
  }
}

describe("an audit-log export shares the thread", () => {
  test("each page is read in its own event-loop turn: a macrotask queued while a fast reader drains the export runs between its pages", async () => {
    let turns = 0;
    let done = false;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const reader = exportStream(env.database, orgId, {}, "jsonl").getReader();
    let chunks = 0;
    while (!(await reader.read()).done) chunks++;
    done = true;
    expect(chunks).toBeGreaterThanOrEqual(PAGES);
    expect(turns).toBeGreaterThanOrEqual(PAGES - 1);
  });

  test("backpressure: a reader that stops taking pages stops the page reads (no page read ahead of the one it asked for)", async () => {
    const c = counted(env.database);
    const reader = exportStream(c.database, orgId, {}, "jsonl").getReader();
    await reader.read();
    await reader.read();
    for (let i = 0; i < 20; i++) await nextTurn();
    await Bun.sleep(20);
    expect(c.reads()).toBeLessThanOrEqual(3);
    await reader.cancel();
  });

  test("backpressure over HTTP: a client that stops reading its socket leaves most of the log unread", async () => {
    // the app's reads counted: its database's get wrapped for the test's length (the reads still go to the file)
    const original = env.database.get;
    let reads = 0;
    env.database.get = ((sql: string, args?: never) => {
      reads++;
      return original.call(env.database, sql, args);
    }) as typeof original;
    const socket = connect(env.app.server!.port!, "127.0.0.1");
    try {
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      socket.write(`GET /web/orgs/current/audit-log/export?format=csv HTTP/1.1\r\nhost: 127.0.0.1\r\ncookie: ${owner.cookie}\r\n\r\n`);
      await new Promise<void>((resolve) => socket.once("data", () => resolve()));
      socket.pause();
      // the server reads pages while the sockets' buffers take them, then waits for the client
      let read = -1;
      const until = Date.now() + 15_000; // a loaded machine fills the buffers slowly
      while (read !== reads && Date.now() < until) {
        read = reads;
        await Bun.sleep(300);
      }
      expect(reads).toBe(read); // stalled
      expect(read).toBeLessThan(PAGES * 0.75); // what the buffers hold, not the log
    } finally {
      env.database.get = original;
      socket.destroy();
    }
    const next = await whenFree(owner); // the connection closed: the slot was given back
    expect(next.status).toBe(200);
    await next.body!.cancel();
  });

  test("a /healthz sent while a fast client in another process drains a large export is answered before the export ends", async () => {
    await (await whenFree(owner)).body!.cancel(); // the slot free (given back a moment after the cancel)
    await Bun.sleep(50);
    const curl = Bun.spawn([
      "curl",
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code} %{size_download}",
      "-H",
      `cookie: ${owner.cookie}`,
      exportUrl(),
    ]);
    const exported = new Response(curl.stdout).text().then((out) => ({ out, at: performance.now() }));
    await Bun.sleep(100); // the export under way
    await (await fetch(`${base}/healthz`)).arrayBuffer();
    const health = performance.now();
    const { out, at } = await exported;
    const [status, size] = out.split(" ").map(Number);
    expect(status).toBe(200);
    expect(size).toBeGreaterThan(SEEDED * 100);
    expect(health).toBeLessThan(at);
  });

  test("one export at a time per organization, each one of its user's heavy reads while it streams: a second concurrent one → 429 rate_limited with Retry-After; another organization's export proceeds", async () => {
    const first = await whenFree(owner);
    expect(first.status).toBe(200);
    const reader = first.body!.getReader();
    await reader.read();
    const cap = dashboardReadCap(env.database, env.config.dashboardReadsPerUser);
    expect(cap.pending(owner.userId).running).toBe(1); // one of its user's heavy reads while it streams
    const second = await exportOf(owner);
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toBe(String(EXPORT_RETRY_AFTER_S));
    expect(await second.json()).toMatchObject({ error: "rate_limited", retryAfter: EXPORT_RETRY_AFTER_S });
    const elsewhere = await exportOf(other);
    expect(elsewhere.status).toBe(200);
    expect((await elsewhere.text()).split("\r\n").length).toBeGreaterThan(EXPORT_PAGE * 3 + 1); // the header and the seeded rows, at least
    let rest = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value.byteLength;
    expect(rest).toBeGreaterThan(0);
    expect(cap.pending(owner.userId).running).toBe(0);
    const after = await exportOf(owner); // the slot is given back once the body ended
    expect(after.status).toBe(200);
    await after.arrayBuffer();
  });

  test("a client gone mid-stream gives the organization's export slot back: the next export is answered 200", async () => {
    const abort = new AbortController();
    const first = await whenFree(owner, { signal: abort.signal });
    expect(first.status).toBe(200);
    await first.body!.getReader().read();
    expect((await exportOf(owner)).status).toBe(429);
    abort.abort();
    const next = await whenFree(owner);
    expect(next.status).toBe(200);
    await next.arrayBuffer();
  });

  test("a HEAD of the export holds no slot: the next export is answered 200", async () => {
    const head = await fetch(exportUrl(), { method: "HEAD", headers: { cookie: owner.cookie! } });
    await head.arrayBuffer();
    const next = await whenFree(owner);
    expect(next.status).toBe(200);
    await next.arrayBuffer();
  });

  test("pacing: past its first burst of reading, an export pauses between pages only while the thread is contended", async () => {
    let quiet = 0;
    const cap: HeavyReads = { run: (_u, _r, read) => read(), quietFor: () => quiet, limits: { quietMs: 1000, share: 0.1, burstMs: 25 } };
    /** Whether the pause after a page of `ms` outlasts the next event-loop turn. */
    const pauses = async (pause: (ms: number) => Promise<void>, ms: number) =>
      (await Promise.race([pause(ms).then(() => false), nextTurn().then(() => true)])) as boolean;
    const pause = exportPause(cap);
    expect(await pauses(pause, 10)).toBe(false); // contended, within the burst
    expect(await pauses(pause, 10)).toBe(false);
    expect(await pauses(pause, 10)).toBe(true); // contended, past the burst: 90 ms for the others
    quiet = 5000;
    expect(await pauses(pause, 10)).toBe(false); // no one else wants the thread
  });

  // SQLite's query plan (PostgreSQL plans its own way)
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "the page query walks the (organization, id) index from the last id, with any filter: no OFFSET, no sort",
    async () => {
      const { where, args } = whereOf(orgId, { action: "member.role_changed", from: 1700000000000, to: 1800000000000, actor: "usr_x" });
      for (const format of ["csv", "jsonl"] as const) {
        const plan = queryPlan(env.database, pageQuery(format, where, true), [...args, "aud_0"]).join("\n");
        expect(plan).toContain("USING INDEX audit_entries_org_idx (organization_id=? AND id>?)");
        expect(plan).not.toContain("TEMP B-TREE FOR ORDER BY"); // (the page's 500 lines are put in order by group_concat)
        expect(plan).not.toContain("SCAN audit_entries");
        expect(pageQuery(format, where, true)).not.toContain("OFFSET");
      }
    },
  );
});

describe("an audit-log export under the heavy-read cap", () => {
  test("an export is refused 429 by the cap while its user's heavy reads are all running (DASHBOARD_READS_PER_USER=1), and its organization's slot is given back", async () => {
    const own = await testEnv({ DASHBOARD_READS_PER_USER: "1" });
    try {
      const user = await signedUp(own);
      const orgs: string[] = [];
      for (const name of ["Capped A", "Capped B"]) {
        const org = (await user.post("/web/orgs", { name })).body.organization;
        await own.database.client.execute({ sql: "UPDATE organizations SET status = 'approved' WHERE id = ?", args: [org.id] });
        orgs.push(org.id);
      }
      await seed(orgs[0]!, EXPORT_PAGE * PAGES, "2", own);
      own.app.listen({ port: 0, hostname: "127.0.0.1" });
      const url = `http://127.0.0.1:${own.app.server!.port}/web/orgs/current/audit-log/export?format=csv`;
      const active = async (id: string) => expect((await user.post("/web/orgs/active", { organizationId: id })).status).toBe(200);
      await active(orgs[0]!);
      const first = await fetch(url, { headers: { cookie: user.cookie! } });
      expect(first.status).toBe(200);
      const reader = first.body!.getReader();
      await reader.read();
      await active(orgs[1]!);
      const refused = await fetch(url, { headers: { cookie: user.cookie! } }); // waits its turn (up to 2 s), then 429
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect((await refused.json()).error).toBe("rate_limited");
      while (!(await reader.read()).done) {}
      const next = await fetch(url, { headers: { cookie: user.cookie! } }); // B's slot was given back with the refusal
      expect(next.status).toBe(200);
      await next.arrayBuffer();
    } finally {
      if (own.app.server) await own.app.stop(true);
      own.close();
    }
  });
});
