/**
 * The audit log's export at scale: 1,000,000 entries of one organization, seeded in one
 * statement through a native connection, exported by dist/talentd over HTTP (JSONL, then CSV)
 * with the body read to its end, while the server's RSS (/proc/<pid>/status VmRSS) is sampled
 * every 10 ms. Target (docs/performance.md "Audit export"): peak RSS < 150 MB.
 * AUDIT_ROWS overrides the count; AUDIT_BINARY runs another build.
 */
import LibsqlDatabase from "libsql";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, printTable, rssMiB, seedProject, startBinaryIn } from "./lib";

const ROWS = Number(process.env.AUDIT_ROWS ?? 1_000_000);
const BIN = process.env.AUDIT_BINARY ?? BINARY;

/**
 * Inserts `n` entries for `orgId` in one transaction (a recursive CTE: no row crosses into JS); returns the time and the organization's
 * count. `idPrefix` (one digit after `aud_`) keeps the ids of two seeded organizations apart.
 */
export function seed(dbPath: string, orgId: string, n: number, idPrefix = "aud_0"): { ms: number; total: number } {
  const t0 = performance.now();
  const conn = new LibsqlDatabase(dbPath, { timeout: 30_000 } as ConstructorParameters<typeof LibsqlDatabase>[1]);
  conn.exec("BEGIN IMMEDIATE");
  conn
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO audit_entries (id, organization_id, at, actor_kind, actor_id, actor_label, action, object_kind, object_id, before, after)
       SELECT printf('%s%025d', ?, i), ?, 1700000000000 + i * 1000, 'user', 'usr_bench', 'someone.with.a.long.name@example.com',
              'member.role_changed', 'member', printf('usr_%026d', i % 5000), '{"role":"member"}', '{"role":"admin, with \\"quotes\\""}'
       FROM n`,
    )
    .run(n, idPrefix, orgId);
  conn.exec("COMMIT");
  const ms = performance.now() - t0;
  // the seed's own changes (organization, project, key) are in the log too
  const total = (conn.prepare("SELECT count(*) AS n FROM audit_entries WHERE organization_id = ?").get(orgId) as { n: number }).n;
  conn.close();
  return { ms, total };
}

/** Exports once, reading the body to its end, sampling the server's RSS; returns the figures. */
async function exportOnce(base: string, cookie: string, pid: number, format: "jsonl" | "csv") {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 10);
  const t0 = performance.now();
  const res = await fetch(`${base}/web/orgs/current/audit-log/export?format=${format}`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  let bytes = 0;
  let lines = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    for (let i = 0; i < value.length; i++) if (value[i] === 10) lines++;
  }
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, rssMiB(pid));
  const rows = format === "csv" ? lines - 1 : lines;
  return { format, rows, bytes, ms, peak, after: rssMiB(pid) };
}

export async function benchAuditExport(): Promise<void> {
  if (!(await Bun.file(BIN).exists())) throw new Error(`${BIN} is missing: run \`bun run build\` first`);
  const dir = mkdtempSync(join(tmpdir(), "talentd-bench-"));
  const server = await startBinaryIn(dir, {}, BIN);
  try {
    const s = await seedProject(server.base);
    const status = (await (await fetch(`${server.base}/web/orgs/current/status`, { headers: { cookie: s.cookie } })).json()) as {
      organization: { id: string };
    };
    const dbPath = join(server.dir, "data", "talentd.db");
    const seeded = seed(dbPath, status.organization.id, ROWS);
    await Bun.sleep(2000); // the idle server's baseline, after start-up and the seed's requests settle
    const baseline = rssMiB(server.pid);
    const runs = [];
    for (const format of ["jsonl", "csv"] as const) runs.push(await exportOnce(server.base, s.cookie, server.pid, format));
    printTable(
      `Audit export: ${ROWS.toLocaleString("en")} entries seeded in ${(seeded.ms / 1000).toFixed(1)} s; idle server RSS ${baseline.toFixed(1)} MiB (target: peak < 150 MB)`,
      ["format", "rows", "MiB sent", "seconds", "rows/s", "peak RSS MiB", "RSS after MiB", "verdict"],
      runs.map((r) => [
        r.format,
        r.rows.toLocaleString("en"),
        (r.bytes / 1048576).toFixed(1),
        (r.ms / 1000).toFixed(1),
        Math.round(r.rows / (r.ms / 1000)).toLocaleString("en"),
        r.peak.toFixed(1),
        r.after.toFixed(1),
        r.peak * 1048576 < 150e6 ? "met" : "NOT MET",
      ]),
    );
    for (const r of runs) if (r.rows !== seeded.total) throw new Error(`${r.format}: ${r.rows} rows exported, ${seeded.total} expected`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
