/**
 * Rule-effectiveness figure (docs/performance.md), on the built binary over loopback: the Rules
 * view `/org/insights/rules` and its JSON and CSV (`GET /web/orgs/current/rules`) of the
 * organization of the organization-pages figure (bench/orgpages.ts: 200 projects, 50 expertises,
 * 1,000,000 trace events over 90 days), with detector findings reported on every project's every
 * day (four rules, two clients, served and not). Target: p99 < 50 ms at 10 connections, as the
 * insights pages. Measured: the first call after start, one sequential client, wrk -c10 spread over
 * ten admins (the dashboard reads are capped per user: DASHBOARD_READS_PER_USER of one person's
 * reads run at once, the rest queue; as on a team, ten people); then the
 * page while agents work (a commit every ~70 ms: the kept answer is read again after each).
 * BENCH_EVENTS, BENCH_PROJECTS, BENCH_SECONDS override.
 */
import Native from "libsql";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile, printTable, rssMiB, runWrk, seedProject, startBinaryIn } from "./lib";
import { agentsAtWork, seedExpertises, seedOrganization } from "./orgpages";

/** `count` sequential GETs: latencies in ms, sorted, and the statuses other than 200 (429 when the per-user read cap answered). */
async function sequential(url: string, cookie: string, count: number, accept: string): Promise<number[] & { refused?: number }> {
  const times: number[] & { refused?: number } = [];
  let refused = 0;
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const r = await fetch(url, { headers: { cookie, accept } });
    await r.arrayBuffer();
    if (r.status === 429) refused++;
    else if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  if (refused > 0) times.refused = refused;
  return times;
}

const DAY = 86_400_000;
const RULES: [string, string][] = [
  ["typescript-strict", "TS-002"],
  ["typescript-strict", "TS-005"],
  ["javascript-base", "JS-001"],
  ["typescript-strict", "TS-006"],
];
const CLIENTS = ["talentd-client/0.1.0 (hook)", "talentd-client/0.1.0 (ci)"];

/** Findings of every project on each of the 90 days: per rule, client and served. Returns the rows written. */
function seedFindings(dbPath: string): number {
  const db = new Native(dbPath);
  const projects = (db.prepare("SELECT id FROM projects").all() as { id: string }[]).map((p) => p.id);
  const insert = db.prepare(
    "INSERT INTO rule_finding_days (project_id, day, talent_id, rule_id, client, served, findings, reports) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const today = Math.floor(Date.now() / DAY);
  let rows = 0;
  db.transaction(() => {
    projects.forEach((p, k) => {
      for (let day = today - 89; day <= today; day++)
        for (const [t, r] of RULES)
          for (const client of CLIENTS) {
            insert.run(p, day, t, r, client, (k + day) % 3 === 0 ? 0 : 1, 1 + ((k + day) % 4), 2);
            rows++;
          }
    });
  })();
  db.close();
  return rows;
}

/**
 * `n` more admins of the organization, each signed in (their session cookies): the dashboard reads
 * are capped per user (src/activity/readCap.ts), so 10 connections are 10 people, as on a team.
 */
async function admins(base: string, ownerCookie: string, n: number): Promise<string[]> {
  const cookies: string[] = [];
  for (let k = 0; k < n; k++) {
    const email = `viewer-${k}-${Date.now()}@example.com`;
    const json = { "content-type": "application/json", origin: base };
    const inv = await fetch(`${base}/web/orgs/current/invitations`, {
      method: "POST",
      headers: { ...json, cookie: ownerCookie },
      body: JSON.stringify({ email, role: "admin" }),
    });
    if (inv.status !== 201) throw new Error(`invitation: ${inv.status} ${await inv.text()}`);
    const id = ((await inv.json()) as { id: string }).id;
    const up = await fetch(`${base}/api/auth/sign-up`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ email, password: "bench password 123" }),
    });
    const cookie = /talentd_session=[^;]+/.exec(up.headers.get("set-cookie") ?? "")![0];
    const ok = await fetch(`${base}/web/invitations/${id}/accept`, { method: "POST", headers: { ...json, cookie } });
    if (ok.status >= 300) throw new Error(`accept: ${ok.status} ${await ok.text()}`);
    cookies.push(cookie);
  }
  return cookies;
}

export async function benchRules(): Promise<void> {
  const events = Number(process.env.BENCH_EVENTS ?? 1_000_000);
  const projectCount = Number(process.env.BENCH_PROJECTS ?? 200);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const dir = mkdtempSync(join(tmpdir(), "talentd-rules-"));
  let server = await startBinaryIn(dir);
  try {
    const a = await seedProject(server.base);
    const h = { "content-type": "application/json", origin: server.base, cookie: a.cookie };
    const org = (await (await fetch(`${server.base}/web/orgs/current/status`, { headers: h })).json()) as {
      organization?: { slug: string };
      slug?: string;
    };
    const t0 = performance.now();
    const expertises = await seedExpertises(server.base, a.cookie, org.organization?.slug ?? org.slug!, 50);
    const viewers = [a.cookie, ...(await admins(server.base, a.cookie, 9))];
    await server.stop();
    const db = join(dir, "data", "talentd.db");
    const seeded = seedOrganization(db, a.projectId, expertises, projectCount, events);
    const findings = seedFindings(db);
    const seededS = (performance.now() - t0) / 1000;
    server = await startBinaryIn(dir);
    const rows: (string | number)[][] = [];
    const wrkCell = (w: { rps: number; p50: number; p99: number; non2xx: number }) =>
      `${w.rps.toFixed(0)} req/s, p50 ${w.p50.toFixed(1)}, p99 ${w.p99.toFixed(1)}${w.non2xx ? `, non-2xx ${w.non2xx}` : ""}`;
    for (const [name, path, accept] of [
      ["page /org/insights/rules", "/org/insights/rules", "text/html"],
      ["GET /web/orgs/current/rules", "/web/orgs/current/rules", "application/json"],
      ["GET /web/orgs/current/rules?format=csv", "/web/orgs/current/rules?format=csv", "text/csv"],
      ["GET /web/projects/:id/rules", `/web/projects/${a.projectId}/rules`, "application/json"],
      ["page /org/insights (for comparison, same conditions)", "/org/insights", "text/html"],
    ] as const) {
      const first = await sequential(server.base + path, a.cookie, 1, accept);
      const seq = await sequential(server.base + path, a.cookie, 100, accept);
      const w = await runWrk(
        server.base,
        viewers.map((cookie) => ({ method: "GET", path, headers: { cookie, accept } })),
        {
          dir,
          seconds,
          connections: 10,
          name: path.replace(/\W+/g, "-"),
        },
      );
      const refused = (first.refused ?? 0) + (seq.refused ?? 0);
      rows.push([
        name + (refused ? ` (${refused} refused by the read cap)` : ""),
        first[0]!.toFixed(1),
        percentile(seq, 50).toFixed(2),
        percentile(seq, 99).toFixed(2),
        wrkCell(w),
      ]);
      console.error(`${name}: first ${first[0]!.toFixed(1)} ms, p99 ${percentile(seq, 99).toFixed(2)} ms, wrk ${wrkCell(w)}`);
      await new Promise((r) => setTimeout(r, 3000)); // the cap's debt of this user repaid before the next route
    }
    const stop = agentsAtWork(server.base, a.key);
    await new Promise((r) => setTimeout(r, 500));
    const path = "/org/insights/rules";
    const seq = await sequential(server.base + path, a.cookie, 100, "text/html");
    const w = await runWrk(
      server.base,
      viewers.map((cookie) => ({ method: "GET", path, headers: { cookie, accept: "text/html" } })),
      {
        dir,
        seconds,
        connections: 10,
        name: "rules-agents",
      },
    );
    const agents = await stop();
    if (agents.failed > 0) throw new Error(`agents at work: ${agents.failed} of ${agents.calls} calls failed`);
    rows.push([
      `page /org/insights/rules, agents at work (${agents.calls} agent calls)`,
      "",
      percentile(seq, 50).toFixed(2),
      percentile(seq, 99).toFixed(2),
      wrkCell(w),
    ]);
    printTable(
      `Rule effectiveness: ${projectCount} projects, ${expertises.length} expertises, ${seeded.events.toLocaleString("en")} trace events over 90 days (${seeded.resolutions.toLocaleString("en")} resolutions), ${findings.toLocaleString("en")} finding rows; seeded in ${seededS.toFixed(0)} s; default 30-day window; target p99 < 50 ms`,
      ["request", "first call ms", "one client p50 ms", "one client p99 ms", `wrk -t1 -c10 -d${seconds}s, 10 admins`],
      rows,
    );
    printTable("Server memory", ["RSS after the run (MiB)"], [[rssMiB(server.pid).toFixed(1)]]);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
