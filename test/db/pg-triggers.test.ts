/**
 * The triggers' work, the same in both dialects: one scenario of writes (installs, resolutions,
 * trace events, reports) runs on a libSQL file and on PostgreSQL, statement by statement, and
 * every kept count — trace_hours, resolution_hours, talent_days, talent_client_days, a project's
 * selection_rev — must come out equal (and as expected).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Database, openDatabase } from "../../src/db/client";
import { migrateDatabase } from "../../src/db/migratePg";
import type { Statement } from "../../src/db/writeJob";
import { tempDir } from "../helpers";
import { type PgDatabase, pgDatabase, pgUnavailable } from "../pg-support";

const skip = pgUnavailable();
const DAY = 86_400_000;
const T = 20_000 * DAY + 5 * 3_600_000; // a fixed time: 05:00 on a day
const ins = (table: string, row: Record<string, string | number | null>): Statement => ({
  sql: `INSERT INTO ${table} (${Object.keys(row).join(", ")}) VALUES (${Object.keys(row)
    .map(() => "?")
    .join(", ")})`,
  args: Object.values(row),
});
const event = (id: string, kind: string, status: number, at: number, resolutionId: string | null, client: string | null) =>
  ins("trace_events", {
    id,
    project_id: "prj_1",
    kind,
    via: "api",
    author_type: "key",
    author_id: "key_1",
    author_name: "k",
    client,
    talents_entered: "[]",
    talents_left: "[]",
    resolution_id: resolutionId,
    status,
    duration_ms: 1,
    created_at: at,
  });
const report = (id: string, at: number) =>
  ins("reports", {
    id,
    project_id: "prj_1",
    resolution_id: "res_1",
    submission_id: id,
    payload_digest: "d",
    response: "{}",
    author_type: "key",
    author_id: "key_1",
    created_at: at,
  });
const result = (reportId: string, talentId: string, verdict: string) =>
  ins("report_results", { report_id: reportId, talent_id: talentId, kind: "talent", verdict, evidence: "[]", missing: "[]" });
const item = (position: number, talentId: string, version: string) =>
  ins("designation_items", {
    designation_id: "dsg_1",
    position,
    project_id: "prj_1",
    talent_id: talentId,
    kind: "talent",
    version,
    digest: "d",
    definition_digest: "d",
    files: "{}",
  });
const resolution = (id: string, at: number) =>
  ins("resolutions", {
    id,
    project_id: "prj_1",
    tokens: 1,
    catalog_digest: "c",
    author_type: "key",
    author_id: "key_1",
    via: "api",
    created_at: at,
    designation_id: "dsg_1",
  });
const installed = (talentId: string) =>
  ins("installed_talents", { project_id: "prj_1", talent_id: talentId, kind: "talent", installed_at: T, updated_at: T });

const SCENARIO: Statement[] = [
  ins("organizations", { id: "org_1", slug: "o", name: "O", created_at: T, updated_at: T }),
  ins("projects", { id: "prj_1", organization_id: "org_1", name: "P", created_at: T, updated_at: T }),
  installed("t1"),
  installed("t2"),
  installed("t3"),
  { sql: "UPDATE installed_talents SET updated_at = ? WHERE talent_id = ?", args: [T + 1, "t1"] },
  { sql: "DELETE FROM installed_talents WHERE talent_id = ?", args: ["t3"] },
  item(0, "t1", "1.0.0"),
  item(1, "t2", "2.0.0"),
  resolution("res_1", T),
  resolution("res_2", T + 3_600_000),
  ins("talent_client_days", { project_id: "prj_1", day: Math.floor(T / DAY), talent_id: "t1", client: "cli", served: 1 }),
  event("trc_1", "prepare_task", 201, T, "res_1", "cli"),
  event("trc_2", "validate", 200, T + 1, "res_1", "cli"), // the first successful playbook fetch: audited
  event("trc_3", "validate", 200, T + 2, "res_1", "cli"), // not again
  event("trc_4", "validate", 500, T + 3, "res_2", null), // a failure: not audited, failed in its hour
  event("trc_5", "catalog", 404, T + 3_600_000, null, null),
  report("rep_1", T + 10),
  result("rep_1", "t1", "pass"),
  result("rep_1", "t2", "fail"),
  report("rep_2", T + 20), // later: its verdict becomes the latest
  result("rep_2", "t1", "fail"),
  report("rep_0", T + 5), // earlier, arriving last: counted, never the latest
  result("rep_0", "t1", "not_applicable"),
];

const READS = {
  trace_hours: "SELECT project_id, hour, kind, client, client_null, events, failed FROM trace_hours ORDER BY hour, kind, client",
  resolution_hours: "SELECT project_id, hour, resolutions, reports, pass, fail, not_applicable FROM resolution_hours ORDER BY hour",
  talent_days:
    "SELECT talent_id, day, version, expertise_id, designated, audited, first_at, last_at, pass, fail, not_applicable, " +
    "latest_pass, latest_fail, latest_not_applicable FROM talent_days ORDER BY talent_id, version",
  talent_client_days: "SELECT talent_id, day, client, served, audited FROM talent_client_days ORDER BY talent_id, client",
  projects: "SELECT id, selection_rev FROM projects",
};

async function play(database: Database): Promise<Record<string, unknown[]>> {
  await migrateDatabase(database);
  for (const st of SCENARIO) await database.writeJob({ statements: [st] });
  const out: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(READS)) out[name] = await database.all(sql);
  return out;
}

describe.skipIf(skip !== null)("the triggers' work is the same on PostgreSQL as on SQLite", () => {
  let pg: PgDatabase;
  let lite: Database;
  let pgDb: Database;
  let cleanup: () => void;
  let a: Record<string, unknown[]>;
  let b: Record<string, unknown[]>;

  beforeAll(async () => {
    pg = await pgDatabase("triggers");
    const dir = tempDir();
    cleanup = dir.cleanup;
    lite = await openDatabase(`file:${join(dir.dir, "t.db")}`);
    pgDb = await openDatabase(pg.url);
    a = await play(lite);
    b = await play(pgDb);
  }, 60_000); // a cluster's start on a loaded machine
  afterAll(() => {
    lite?.close();
    pgDb?.close();
    cleanup?.();
    pg?.drop();
  });

  test("selection revision: every insert, update and delete of an installed talent moves its project's", () => {
    expect(a.projects).toEqual([{ id: "prj_1", selection_rev: 5 }]);
    expect(b.projects).toEqual(a.projects);
  });

  test("trace_hours: events and failures per hour, kind and client (no client kept apart from '')", () => {
    expect(a.trace_hours?.length).toBe(4);
    expect(b.trace_hours).toEqual(a.trace_hours);
  });

  test("resolution_hours: resolutions, reports and verdicts per hour", () => {
    expect(a.resolution_hours).toEqual([
      { project_id: "prj_1", hour: Math.floor(T / 3_600_000), resolutions: 1, reports: 3, pass: 1, fail: 2, not_applicable: 1 },
      { project_id: "prj_1", hour: Math.floor(T / 3_600_000) + 1, resolutions: 1, reports: 0, pass: 0, fail: 0, not_applicable: 0 },
    ]);
    expect(b.resolution_hours).toEqual(a.resolution_hours);
  });

  test("talent_days: designated per resolution, audited once per resolution, verdicts, and the latest report's verdict only", () => {
    const t1 = a.talent_days?.find((r) => (r as { talent_id: string }).talent_id === "t1");
    expect(t1).toMatchObject({ designated: 2, audited: 1, pass: 1, fail: 1, not_applicable: 1, latest_pass: 0, latest_fail: 1 });
    expect(b.talent_days).toEqual(a.talent_days);
  });

  test("talent_client_days: the first successful validate counts the served tool's row audited", () => {
    expect(a.talent_client_days).toEqual([{ talent_id: "t1", day: Math.floor(T / DAY), client: "cli", served: 1, audited: 1 }]);
    expect(b.talent_client_days).toEqual(a.talent_client_days);
  });
});
