/**
 * The SQL fragments of src/db/sqlDialect.ts give the same answers on SQLite and PostgreSQL: each
 * query is built with both dialects and run on a real libSQL file and a real PostgreSQL database.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { pageQuery } from "../../src/audit/export";
import { openDatabase } from "../../src/db/client";
import type { Database } from "../../src/db/database";
import { bothDialects, type SqlDialect } from "../../src/db/sqlDialect";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";
import { tempDir } from "../helpers";

const skip = pgUnavailable();

const DETAIL = JSON.stringify({
  summary: { fail: 2, pass: 0 },
  error: "not_found",
  talents: ["a", "b"],
  blocking: [
    { talent: "a", rule: "R-1", findings: 3 },
    { talent: "b", rule: "R-2", findings: 1 },
  ],
  notServed: ["x"],
});
const ROWS: [string, string | null, number][] = [
  ["e1", DETAIL, 200],
  ["e2", JSON.stringify({ talents: "not an array" }), 500],
  ["e3", null, 404],
];

/** Each query of the table, built for a dialect; the answers are compared as plain values. */
const QUERIES: Record<string, (d: SqlDialect) => string> = {
  "a text field, a nested number, an array field as JSON text, an absent field": (d) =>
    `SELECT id, ${d.jsonField("detail", ["error"])} AS error, ${d.jsonNumber("detail", ["summary", "fail"])} AS fail,
       ${d.jsonField("detail", ["notServed"])} AS cut, ${d.jsonField("detail", ["nope"])} AS nope FROM t ORDER BY id`,
  "a number compared, as the Activity tab's fail filter does": (d) =>
    `SELECT id FROM t WHERE ${d.jsonNumber("detail", ["summary", "fail"])} > 0 ORDER BY id`,
  "the elements of an array as text; a scalar is its one element, an absent field has none": (d) =>
    `SELECT t.id, e.value AS value FROM t, ${d.jsonEach("detail", "e", ["talents"])} ORDER BY t.id, e.value`,
  "the elements of an array of objects, their fields read and summed": (d) =>
    `SELECT ${d.jsonField("b.value", ["talent"])} AS talent, sum(${d.jsonNumber("b.value", ["findings"])}) AS findings
     FROM t, ${d.jsonEach("detail", "b", ["blocking"], "json")} GROUP BY talent ORDER BY talent`,
  "a bound JSON array's elements": (d) => `SELECT j.value AS value FROM ${d.jsonEach("?1", "j")} ORDER BY j.value`,
  "a string aggregate in a stated order, with a line feed between": (d) =>
    `SELECT ${d.stringAgg("id", d.newline, "id DESC")} AS ids FROM t`,
  "a condition as 0/1 and counted": (d) => `SELECT ${d.countWhere("status >= 400")} AS failed, sum(${d.flag("status = 200")}) AS ok FROM t`,
};
const ARGS: Record<string, unknown[]> = { "a bound JSON array's elements": ['["b","a"]'] };
const BUILT = Object.fromEntries(Object.entries(QUERIES).map(([name, q]) => [name, bothDialects(q)]));

const plain = (rows: Record<string, unknown>[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v])));

describe.skipIf(skip !== null)("sqlDialect: one answer on both engines", () => {
  const { dir, cleanup } = tempDir();
  let lite: Database;
  let pg: Database;
  let pgDb: PgDatabase;

  beforeAll(async () => {
    lite = await openDatabase(`file:${join(dir, "d.db")}`);
    pgDb = await pgDatabase("dialect");
    pg = await openDatabase(pgDb.url);
    for (const db of [lite, pg]) {
      await db.client.execute("CREATE TABLE t (id text PRIMARY KEY, detail text, status integer NOT NULL)");
      for (const r of ROWS) await db.client.execute({ sql: "INSERT INTO t (id, detail, status) VALUES (?, ?, ?)", args: r });
    }
  }, 60_000);
  afterAll(() => {
    lite?.close();
    pg?.close();
    pgDb?.drop();
    cleanup();
  });

  for (const name of Object.keys(QUERIES)) {
    test(name, async () => {
      const q = BUILT[name]!;
      const a = plain(await lite.all<Record<string, unknown>>(q.sqlite, (ARGS[name] ?? []) as never));
      const b = plain(await pg.all<Record<string, unknown>>(q.postgres, (ARGS[name] ?? []) as never));
      expect(a.length).toBeGreaterThan(0);
      expect(b).toEqual(a);
    });
  }

  test("the audit export's page: the same bytes from both engines (JSONL as SQLite's json_object writes it, CSV quoting, ISO times)", async () => {
    for (const db of [lite, pg]) {
      await db.client.execute(
        "CREATE TABLE audit_entries (id text PRIMARY KEY, organization_id text NOT NULL, at bigint NOT NULL, actor_kind text NOT NULL, " +
          "actor_id text NOT NULL, actor_label text NOT NULL, action text NOT NULL, object_kind text NOT NULL, object_id text NOT NULL, " +
          "before text, after text)",
      );
      await db.client.execute("CREATE INDEX audit_entries_org_idx ON audit_entries (organization_id, id)");
      for (const [i, label] of ['Ann "the admin", ops\r\nteam', "=HYPERLINK(x)", "Zoë \\ tab\there"].entries())
        await db.client.execute({
          sql: "INSERT INTO audit_entries VALUES (?, 'org', ?, 'user', 'usr_1', ?, 'member.added', 'member', 'usr_2', ?, ?)",
          args: [`aud_${i}`, 1_700_000_000_000 + i * 1001 + (i === 2 ? 7 : 0), label, i === 1 ? null : '{"role":"a, \\"b\\""}', '{"n":1}'],
        });
    }
    for (const format of ["jsonl", "csv"] as const) {
      const body = async (db: Database) => {
        const page = await db.get<{ body: Uint8Array | ArrayBuffer }>(pageQuery(format, "organization_id = ?", false, db.dialect), ["org"]);
        return new TextDecoder().decode(page!.body instanceof Uint8Array ? page!.body : new Uint8Array(page!.body));
      };
      const a = await body(lite);
      expect(a).toContain("aud_2"); // every entry of the page
      expect(await body(pg)).toBe(a);
    }
  });

  test("SQLite's text is the one written for it (json_extract, json_each, group_concat, sum of a comparison)", () => {
    expect(BUILT["a condition as 0/1 and counted"]!.sqlite).toBe("SELECT sum(status >= 400) AS failed, sum(status = 200) AS ok FROM t");
    expect(BUILT["a number compared, as the Activity tab's fail filter does"]!.sqlite).toContain(
      "json_extract(detail, '$.summary.fail') > 0",
    );
  });
});
