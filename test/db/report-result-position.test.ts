/**
 * A report's results keep the order they were recorded in: `report_results.position` (SQLite's
 * migration 0030, PostgreSQL's 0005). Rows written before the column existed get their place from
 * the order they were inserted in (SQLite's rowid; PostgreSQL's physical order, as no result row is
 * ever updated), not from their key's order; rows written since carry it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { join } from "node:path";
import { migrations } from "../../migrations";
import { migrations as pgMigrations } from "../../migrations-pg";
import { migrate } from "../../src/db/migrate";
import { migratePg } from "../../src/db/migratePg";
import { numberPlaceholders } from "../../src/db/pgClient";
import { pgDatabase, pgUnavailable } from "../pg-support";
import { tempDir } from "../helpers";

const { dir, cleanup } = tempDir();
afterAll(cleanup);

/** Results inserted in an order that is not their key's (report_id, talent_id). */
const RECORDED = [
  ["rep_a", "zeta"],
  ["rep_a", "alpha"],
  ["rep_b", "mid"],
  ["rep_a", "beta"],
  ["rep_b", "able"],
] as const;
const EXPECTED = [
  { report_id: "rep_a", talent_id: "zeta", position: 0 },
  { report_id: "rep_a", talent_id: "alpha", position: 1 },
  { report_id: "rep_a", talent_id: "beta", position: 2 },
  { report_id: "rep_b", talent_id: "mid", position: 0 },
  { report_id: "rep_b", talent_id: "able", position: 1 },
];
const INSERT =
  "INSERT INTO report_results (report_id, talent_id, kind, verdict, evidence, missing, note) VALUES (?, ?, 'talent', 'pass', '[]', '[]', NULL)";

const before = (tag: string, list: { tag: string }[]) => {
  const i = list.findIndex((m) => m.tag === tag);
  expect(i).toBeGreaterThan(0);
  return i;
};

test("SQLite: migration 0030 numbers the results already recorded in the order they were inserted (rowid), per report", async () => {
  const client = createClient({ url: `file:${join(dir, "position.db")}` });
  try {
    const upTo = before("0030_report_result_position", migrations);
    await migrate(client, migrations.slice(0, upTo));
    await client.execute("PRAGMA foreign_keys = OFF"); // results without their reports: only their order is looked at
    for (const [report, talent] of RECORDED) await client.execute({ sql: INSERT, args: [report, talent] });
    await migrate(client, migrations);
    const rows = (await client.execute("SELECT report_id, talent_id, position FROM report_results ORDER BY report_id, position")).rows.map(
      (r) => ({ report_id: r.report_id, talent_id: r.talent_id, position: Number(r.position) }),
    );
    expect(rows).toEqual(EXPECTED);
  } finally {
    client.close();
  }
});

const skip = pgUnavailable();

describe.skipIf(skip !== null)("PostgreSQL", () => {
  test("migration 0005 numbers the results already recorded in the order they lie in the table, per report", async () => {
    const pg = await pgDatabase("position");
    const { SQL } = await import("bun");
    const sql = new SQL({ url: pg.url, max: 1 });
    try {
      const upTo = before("0005_report_result_position", pgMigrations);
      await migratePg(sql, pgMigrations.slice(0, upTo));
      // results without their reports (foreign keys and triggers off for this session): only their order is looked at
      await sql.begin(async (tx) => {
        await tx.unsafe("SET LOCAL session_replication_role = replica");
        for (const [report, talent] of RECORDED) await tx.unsafe(numberPlaceholders(INSERT), [report, talent]);
      });
      await migratePg(sql, pgMigrations);
      const rows = await sql.unsafe("SELECT report_id, talent_id, position FROM report_results ORDER BY report_id, position");
      expect(rows.map((r: Record<string, unknown>) => ({ ...r, position: Number(r.position) }))).toEqual(EXPECTED);
    } finally {
      await sql.close();
      pg.drop();
    }
  }, 60_000);
});
