import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TraceJournal } from "../../src/journal/journal";
import { createLogger } from "../../src/lib/log";
import { createKey, orgWithProject, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ AUTO_APPROVE_ORGS: "true" });
});
afterAll(() => env.close());

const event = (projectId: string, i: number) => ({
  projectId,
  kind: "catalog",
  via: "api" as const,
  authorType: "key" as const,
  authorId: "key_x",
  authorName: "bench",
  client: "test",
  talentsEntered: i % 2 ? [`t-${i}`] : [],
  status: 200,
  durationMs: i,
  resolutionId: i % 5 ? null : `res_${i}`,
  detail: i % 3 ? null : { i },
  arrival: { at: 1_700_000_000_000 + i, seq: i, n: 0 },
});

describe("activity journal writes (docs/api.md 'Trace events'; docs/design.md 'Writes')", () => {
  test("a batch of any size is written whole and in call order (rows are written 50, 10 and 1 per statement); events of a project deleted before the flush are dropped", async () => {
    const logs: string[] = [];
    const journal = new TraceJournal(
      env.database,
      createLogger("debug", (l) => logs.push(l)),
    );
    const live = await orgWithProject(env);
    const gone = await orgWithProject(env);
    for (let i = 0; i < 123; i++) journal.record(event(live.project.id, i));
    for (let i = 0; i < 7; i++) journal.record(event(gone.project.id, i));
    expect((await gone.owner.del(`/web/projects/${gone.project.id}`)).status).toBe(200);
    await journal.flush();
    const rows = (
      await env.database.client.execute({
        sql: "SELECT project_id, duration_ms, talents_entered, talents_left, resolution_id, detail FROM trace_events WHERE author_id = 'key_x' ORDER BY id",
      })
    ).rows;
    expect(rows.length).toBe(123);
    expect(rows.map((r) => Number(r.duration_ms))).toEqual(Array.from({ length: 123 }, (_, i) => i));
    expect(rows.every((r) => r.project_id === live.project.id)).toBe(true);
    // plain events (nothing entered, no detail, no resolution) and full ones, interleaved: each row as recorded
    expect(
      rows.map((r) => [
        JSON.parse(String(r.talents_entered)),
        JSON.parse(String(r.talents_left)),
        r.resolution_id,
        r.detail === null ? null : JSON.parse(String(r.detail)),
      ]),
    ).toEqual(Array.from({ length: 123 }, (_, i) => [i % 2 ? [`t-${i}`] : [], [], i % 5 ? null : `res_${i}`, i % 3 ? null : { i }]));
    expect(logs.filter((l) => l.includes("could not be written"))).toEqual([]);
  });

  test("events of several authors interleaved in one batch each keep their own author columns (an author's columns are bound once per statement)", async () => {
    const logs: string[] = [];
    const journal = new TraceJournal(
      env.database,
      createLogger("debug", (l) => logs.push(l)),
    );
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const authors = [
      {
        projectId: a.project.id,
        via: "api" as const,
        authorType: "key" as const,
        authorId: "key_mix1",
        authorName: "one",
        client: "curl/8",
      },
      {
        projectId: a.project.id,
        via: "mcp" as const,
        authorType: "key" as const,
        authorId: "key_mix1",
        authorName: "one",
        client: "claude-code",
      },
      {
        projectId: b.project.id,
        via: "api" as const,
        authorType: "token" as const,
        authorId: "tok_mix2",
        authorName: "two's",
        client: null,
      },
    ];
    // 61 events each (a 50, a 10 and a 1 statement per author), interleaved
    for (let i = 0; i < 183; i++)
      journal.record({
        ...event(a.project.id, i),
        ...authors[i % 3]!,
        kind: `k${i % 3}`,
        arrival: { at: 1_800_000_000_000 + i, seq: i, n: 0 },
      });
    await journal.flush();
    const rows = (
      await env.database.client.execute({
        sql: "SELECT project_id, via, author_type, author_id, author_name, client, kind, duration_ms, created_at FROM trace_events WHERE author_id IN ('key_mix1', 'tok_mix2') ORDER BY id",
      })
    ).rows;
    expect(rows.length).toBe(183);
    rows.forEach((r, i) => {
      const w = authors[i % 3]!;
      expect([
        r.project_id,
        r.via,
        r.author_type,
        r.author_id,
        r.author_name,
        r.client,
        r.kind,
        Number(r.duration_ms),
        Number(r.created_at),
      ]).toEqual([w.projectId, w.via, w.authorType, w.authorId, w.authorName, w.client, `k${i % 3}`, i, 1_800_000_000_000 + i]);
    });
    expect(logs.filter((l) => l.includes("could not be written"))).toEqual([]);
  });

  test("talent_client_days' served counts are written by the journal, one statement per author and batch: two prepare_task events count each talent twice, a failed one not at all, and a validate event of the same batch audits the rows", async () => {
    const o = await orgWithProject(env);
    const talents = ["typescript-strict", "javascript-base"];
    expect((await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents })).status).toBe(201);
    const key = (await createKey(o.owner, o.project.id, ["prepare_task"])).value;
    const prepare = async () => {
      const r = await withKey(env, key, "/api/prepare-task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talentIds: talents }),
      });
      expect(r.status).toBe(201);
      return ((await r.json()) as { resolutionId: string }).resolutionId;
    };
    const [a, b] = [await prepare(), await prepare()];
    const statements: string[] = [];
    const database = {
      ...env.database,
      writeJob: ((job) => {
        statements.push(...job.statements.map((s) => s.sql.slice(0, 30)));
        return env.database.writeJob(job);
      }) as typeof env.database.writeJob,
    };
    const journal = new TraceJournal(database, createLogger("error"));
    const at = Date.now();
    const call = (kind: string, resolutionId: string, status: number, seq: number) => ({
      ...event(o.project.id, seq),
      kind,
      client: "tool-x",
      resolutionId,
      status,
      arrival: { at, seq, n: 0 },
    });
    journal.record(call("prepare_task", a, 201, 1));
    journal.record(call("prepare_task", b, 201, 2));
    journal.record(call("prepare_task", a, 500, 3));
    journal.record(call("validate", a, 200, 4));
    await journal.flush();
    expect(statements.filter((s) => s.startsWith("INSERT INTO talent_client_days"))).toHaveLength(1);
    const rows = (
      await env.database.client.execute({
        sql: "SELECT talent_id, served, audited FROM talent_client_days WHERE project_id = ? AND client = 'tool-x' ORDER BY talent_id",
        args: [o.project.id],
      })
    ).rows.map((r) => [r.talent_id, Number(r.served), Number(r.audited)]);
    expect(rows).toEqual([
      ["javascript-base", 2, 1],
      ["typescript-strict", 2, 1],
    ]);
  });
});
