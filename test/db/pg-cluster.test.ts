import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";

const skip = pgUnavailable();

describe.skipIf(skip !== null)("the PostgreSQL test cluster", () => {
  let pg: PgDatabase;
  afterAll(() => pg?.drop());

  test("a throwaway cluster on 127.0.0.1 gives each test file its own empty database, reachable by Bun's SQL", async () => {
    pg = await pgDatabase("cluster");
    console.log(
      `PostgreSQL test cluster: started (template copied, or made by initdb on the first run) in ${pg.cluster.startupMs.toFixed(0)} ms on port ${pg.cluster.port}`,
    );
    expect(pg.url).toStartWith("postgres://postgres@127.0.0.1:");
    const sql = new SQL(pg.url);
    try {
      const [row] = await sql`SELECT current_database() AS db, current_setting('fsync') AS fsync`;
      expect(row).toEqual({ db: pg.name, fsync: "off" });
      const tables = await sql`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`;
      expect(tables[0].n).toBe(0);
    } finally {
      await sql.close();
    }
  }, 60_000); // a cluster's start on a loaded machine

  test("a second database on the same cluster is another, empty one", async () => {
    const other = await pgDatabase("cluster");
    try {
      expect(other.name).not.toBe(pg.name);
      expect(other.cluster.port).toBe(pg.cluster.port);
    } finally {
      other.drop();
    }
  });
});

test("without the server's binaries the PostgreSQL tests skip with the reason, but under CI=true they fail", () => {
  const saved = { root: process.env.PG_BIN_ROOT, ci: process.env.CI };
  try {
    process.env.PG_BIN_ROOT = "/nonexistent/postgresql";
    process.env.CI = "false";
    expect(pgUnavailable()).toContain("apt-get install -y postgresql");
    process.env.CI = "true";
    expect(() => pgUnavailable()).toThrow("CI=true: PostgreSQL's server binaries are absent");
  } finally {
    if (saved.root === undefined) delete process.env.PG_BIN_ROOT;
    else process.env.PG_BIN_ROOT = saved.root;
    if (saved.ci === undefined) delete process.env.CI;
    else process.env.CI = saved.ci;
  }
});
