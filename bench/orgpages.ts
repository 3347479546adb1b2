/**
 * Organization-pages figure (docs/performance.md), on the built binary over loopback: the pages `/org/talent-adoption` and
 * `/org/insights` (and their JSON routes) of an organization with 200 projects, 50 active
 * published expertises and 1,000,000 trace events spread over the 90 days before now (a
 * resolution per 10 events designating a public talent and one of the expertises, half of them
 * audited, a report per 20 with a verdict per expertise, one in ten a fail; failed calls now and
 * then). Target: p99 < 50 ms. Seeding: the organization, its first project and the expertises
 * through the web routes, then the other projects, their selections and the whole history in
 * bulk SQL straight into the stopped server's database file. Measured: the first call after
 * start, one sequential client, and wrk -c10. BENCH_EVENTS, BENCH_PROJECTS, BENCH_SECONDS
 * override; BENCH_KEEP=1 keeps the folder (printed) for profiling. BENCH_PAGES=feed measures the
 * home feed (`/`) and the first project's Activity tab instead (with BENCH_PROJECTS=20
 * BENCH_EVENTS=200000: 10,000 events per project).
 */
import Native from "libsql";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { orderedId } from "../src/lib/ids";
import { percentile, printTable, rssMiB, runWrk, seedProject, startBinaryIn } from "./lib";

const DAY = 86_400_000;
const KINDS = ["search", "read", "doctor", "designable", "catalog", "read", "search", "discover"];
const CLIENTS = ["claude-code/1.0.33", "cursor/1.2.0", "codex-cli/0.9.1", "curl/8.5.0", null];
const PUBLIC = ["typescript-strict", "javascript-base"];

function expertiseMd(slug: string): string {
  return `---
id: ${slug}
title: Rules of ${slug}
summary: How we work in ${slug}. Designate for any change to ${slug} code.
version: 1.0.0
roles: [backend]
languages: [typescript]
requires: [typescript-strict]
budget: 800
rules:
  - { id: TM-001, severity: blocking, title: Amounts are integers in minor units., check: Look for floats holding money. }
  - { id: TM-002, severity: blocking, title: Every charge carries an idempotency key., check: Look for charge calls without idempotencyKey. }
  - { id: TM-003, severity: advisory, title: Log the payment id at each step., check: Look for log lines without paymentId. }
tests:
  - { rule: TM-001, pass: "amountCents: 1299", fail: "amount: 12.99" }
  - { rule: TM-002, pass: "charge({ idempotencyKey })", fail: "charge({})" }
---
Use the ledger for ${slug}.
`;
}

/** Creates, confirms, publishes and activates `n` expertises through the web routes; returns their ids and refs. */
export async function seedExpertises(base: string, cookie: string, orgSlug: string, n: number) {
  const h = { "content-type": "application/json", origin: base, cookie };
  const out: { id: string; ref: string }[] = [];
  for (let i = 0; i < n; i++) {
    const slug = `team-${String(i).padStart(2, "0")}`;
    const created = await fetch(`${base}/web/orgs/current/expertises`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ slug, content: expertiseMd(slug) }),
    });
    if (created.status !== 201) throw new Error(`expertise: ${created.status} ${await created.text()}`);
    const id = ((await created.json()) as { id: string }).id;
    const steps: [string, string, unknown][] = [
      ["PUT", "triggers", { files: [`src/${slug}/**`], keywords: [slug] }],
      ["POST", "publish", {}],
      ["POST", "activate", {}],
    ];
    for (const [method, op, body] of steps) {
      const r = await fetch(`${base}/web/orgs/current/expertises/${id}/${op}`, { method, headers: h, body: JSON.stringify(body) });
      if (r.status !== 200) throw new Error(`${op}: ${r.status} ${await r.text()}`);
    }
    out.push({ id, ref: `@${orgSlug}/${slug}` });
  }
  return out;
}

/** Writes the other projects, their selections and the history straight into the stopped server's database. */
export function seedOrganization(
  dbPath: string,
  firstProject: string,
  expertises: { id: string; ref: string }[],
  projects: number,
  n: number,
) {
  const db = new Native(dbPath);
  const p0 = db.prepare("SELECT * FROM projects WHERE id = ?").get(firstProject) as Record<string, unknown>;
  const pCols = (db.prepare("PRAGMA table_info(projects)").all() as { name: string }[]).map((c) => c.name);
  const insertProject = db.prepare(`INSERT INTO projects (${pCols.join(", ")}) VALUES (${pCols.map(() => "?").join(", ")})`);
  const installed = db.prepare(
    "INSERT OR IGNORE INTO installed_talents (project_id, talent_id, kind, enabled, installed_by, installed_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, ?)",
  );
  const ids = [firstProject];
  const now = Date.now() - 1000;
  db.transaction(() => {
    for (let k = 1; k < projects; k++) {
      const id = `prj_${orderedId(now - 100 * DAY, k)}`;
      ids.push(id);
      insertProject.run(
        ...(pCols.map((c) => (c === "id" ? id : c === "name" ? `service ${String(k).padStart(3, "0")}` : p0[c])) as never[]),
      );
    }
    ids.forEach((id, k) => {
      for (const t of PUBLIC) installed.run(id, t, "talent", 1, now - 100 * DAY, now - 100 * DAY);
      for (let j = 0; j < 3; j++)
        installed.run(
          id,
          expertises[(k + j * 17) % expertises.length]!.ref,
          "expertise",
          j === 2 && k % 5 === 0 ? 0 : 1,
          now - 100 * DAY,
          now - 100 * DAY,
        );
      if (k % 25 === 3) installed.run(id, "sql-base", "talent", 1, now - 100 * DAY, now - 100 * DAY); // some selections lack a prerequisite
    });
  })();
  const event = db.prepare(
    `INSERT INTO trace_events (id, project_id, kind, via, author_type, author_id, author_name, client, talents_entered, talents_left, resolution_id, status, duration_ms, detail, created_at)
     VALUES (?, ?, ?, 'api', 'key', 'key_bench', 'bench', ?, '[]', '[]', ?, ?, 1, ?, ?)`,
  );
  const resolution = db.prepare(
    `INSERT INTO resolutions (id, project_id, language, tokens, catalog_digest, author_type, author_id, via, created_at, designation_id) VALUES (?1, ?2, NULL, 900, 'sha256:bench', 'key', 'key_bench', 'api', ?3, ?1)`,
  );
  const item = db.prepare(
    `INSERT INTO designation_items (designation_id, position, project_id, talent_id, kind, version, digest, definition_digest, files, expertise_id) VALUES (?1, ?2, (SELECT project_id FROM resolutions WHERE id = ?1), ?3, ?4, ?5, 'sha256:c', 'sha256:d', '{}', ?6)`,
  );
  const report = db.prepare(
    `INSERT INTO reports (id, project_id, resolution_id, submission_id, payload_digest, response, author_type, author_id, created_at) VALUES (?, ?, ?, ?, 'x', '{}', 'key', 'key_bench', ?)`,
  );
  const result = db.prepare(
    `INSERT INTO report_results (report_id, talent_id, kind, verdict, evidence, missing, note) VALUES (?, ?, 'expertise', ?, ?, '[]', NULL)`,
  );
  const at = (i: number) => Math.floor(now - 90 * DAY + ((i + 1) * 90 * DAY) / n);
  const counts = { events: 0, resolutions: 0, audited: 0, reports: 0 };
  const last = new Map<string, { id: string; expertise: string }>();
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const t = at(i);
      const k = (Math.floor(i / 20) * 7919) % ids.length; // a block of 20 events (a task: prepare, audit, report…) per project
      const p = ids[k]!;
      const client = CLIENTS[(i >> 3) % CLIENTS.length] ?? null;
      let kind = KINDS[i % KINDS.length]!;
      let resolutionId: string | null = null;
      let status = 200;
      let detail: string | null = null;
      const m = i % 20;
      const prev = last.get(p);
      if (m === 0 || m === 10) {
        kind = "prepare_task";
        status = 201;
        resolutionId = `res_${orderedId(t, i)}`;
        const ex = expertises[(k + ((i >> 4) % 2) * 17) % expertises.length]!;
        last.set(p, { id: resolutionId, expertise: ex.ref });
        resolution.run(resolutionId, p, t);
        item.run(resolutionId, 0, PUBLIC[0], "talent", i < n / 2 ? "0.9.0" : "1.0.0", null);
        item.run(resolutionId, 1, ex.ref, "expertise", "1", ex.id);
        counts.resolutions++;
      } else if (m === 1 && prev) {
        kind = "validate";
        resolutionId = prev.id;
        counts.audited++;
      } else if (m === 2 && prev) {
        kind = "record_validation";
        status = 201;
        resolutionId = prev.id;
        const reportId = `rep_${orderedId(t, i)}`;
        report.run(reportId, p, prev.id, `bench-${i}`, t);
        const fail = i % 200 === 2;
        result.run(reportId, prev.expertise, fail ? "fail" : "pass", fail ? '["src/a.ts:1"]' : "[]");
        counts.reports++;
      } else if (i % 37 === 5) {
        status = i % 3 === 0 ? 401 : i % 2 ? 400 : 404;
        detail = JSON.stringify({ error: status === 401 ? "invalid_token" : status === 400 ? "validation_failed" : "not_found" });
      }
      event.run(`trc_${orderedId(t, i)}`, p, kind, client, resolutionId, status, detail, t);
      counts.events++;
    }
  });
  for (let i = 0; i < n; i += 50_000) batch(i, Math.min(n, i + 50_000));
  db.exec("ANALYZE");
  db.close();
  return counts;
}

/**
 * Agents at work while the pages are read: every 100 ms a prepare-task (a resolution committed at
 * once) and, for the one before, its playbook fetch (an audit, journalled and committed within
 * 250 ms) — about 14 commits a second, each one making the pages read their unsettled hours
 * again. Returns a function that stops it and tells how many calls were made.
 */
export function agentsAtWork(base: string, key: string): () => Promise<{ calls: number; failed: number }> {
  const h = { "content-type": "application/json", authorization: `Bearer ${key}` };
  let calls = 0;
  let failed = 0;
  let last: string | null = null;
  const inflight = new Set<Promise<void>>();
  const tick = async () => {
    const prepared = await fetch(`${base}/api/prepare-task`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    calls++;
    if (prepared.status !== 201) failed++;
    const body = (await prepared.json()) as { resolutionId?: string };
    if (last) {
      const audit = await fetch(`${base}/api/validation/playbook?resolutionId=${last}`, { headers: h });
      await audit.arrayBuffer();
      calls++;
      if (audit.status !== 200) failed++;
    }
    last = body.resolutionId ?? last;
  };
  const timer = setInterval(() => {
    const p = tick().catch(() => void failed++);
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  }, 100);
  return async () => {
    clearInterval(timer);
    await Promise.all(inflight);
    return { calls, failed };
  };
}

export async function sequential(url: string, cookie: string, count: number, accept: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const r = await fetch(url, { headers: { cookie, accept } });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

export async function benchOrgPages(): Promise<void> {
  const events = Number(process.env.BENCH_EVENTS ?? 1_000_000);
  const projectCount = Number(process.env.BENCH_PROJECTS ?? 200);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const dir = mkdtempSync(join(tmpdir(), "talentd-orgpages-"));
  let server = await startBinaryIn(dir);
  try {
    const a = await seedProject(server.base);
    const h = { "content-type": "application/json", origin: server.base, cookie: a.cookie };
    const org = (await (await fetch(`${server.base}/web/orgs/current/status`, { headers: h })).json()) as {
      organization?: { slug: string };
      slug?: string;
    };
    const orgSlug = org.organization?.slug ?? org.slug!;
    const t0 = performance.now();
    const expertises = await seedExpertises(server.base, a.cookie, orgSlug, 50);
    await server.stop();
    const seeded = seedOrganization(join(dir, "data", "talentd.db"), a.projectId, expertises, projectCount, events);
    const seededS = (performance.now() - t0) / 1000;
    server = await startBinaryIn(dir);
    const html = "text/html";
    const rows: (string | number)[][] = [];
    // BENCH_PAGES=feed: only the home feed and a project's Activity tab (docs/performance.md "Home feed and Activity")
    const feed = process.env.BENCH_PAGES === "feed";
    const pages: (readonly [string, string, string])[] = feed
      ? [
          ["page / (home feed)", "/", html],
          ["page /projects/:id?tab=activity", `/projects/${a.projectId}?tab=activity`, html],
        ]
      : [
          ["page /org/talent-adoption", "/org/talent-adoption", html],
          ["page /org/insights", "/org/insights", html],
          ["GET /web/orgs/current/talent-adoption", "/web/orgs/current/talent-adoption", "application/json"],
          ["GET /web/orgs/current/insights", "/web/orgs/current/insights", "application/json"],
        ];
    for (const [name, path, accept] of pages) {
      const first = await sequential(server.base + path, a.cookie, 1, accept);
      const seq = await sequential(server.base + path, a.cookie, 100, accept);
      const w = await runWrk(server.base, [{ method: "GET", path, headers: { cookie: a.cookie, accept } }], {
        dir,
        seconds,
        connections: 10,
        name: path.replace(/\W+/g, "-"),
      });
      rows.push([
        name,
        first[0]!.toFixed(1),
        percentile(seq, 50).toFixed(2),
        percentile(seq, 99).toFixed(2),
        `${w.rps.toFixed(0)} req/s, p50 ${w.p50.toFixed(1)}, p99 ${w.p99.toFixed(1)}${w.non2xx ? `, non-2xx ${w.non2xx}` : ""}`,
      ]);
    }
    // the same pages while agents work (commits every ~70 ms): what a view costs when the unsettled hours must be read again
    for (const [name, path] of feed
      ? ([
          ["page / (home feed), agents at work", "/"],
          // the agents work in this very project: its kept tab is read again after each of their commits
          ["page /projects/:id?tab=activity, agents at work", `/projects/${a.projectId}?tab=activity`],
        ] as const)
      : ([
          ["page /org/talent-adoption, agents at work", "/org/talent-adoption"],
          ["page /org/insights, agents at work", "/org/insights"],
        ] as const)) {
      const stop = agentsAtWork(server.base, a.key);
      await new Promise((r) => setTimeout(r, 500));
      const seq = await sequential(server.base + path, a.cookie, 100, html);
      const w = await runWrk(server.base, [{ method: "GET", path, headers: { cookie: a.cookie, accept: html } }], {
        dir,
        seconds,
        connections: 10,
        name: `${path.replace(/\W+/g, "-")}-agents`,
      });
      const agents = await stop();
      if (agents.failed > 0) throw new Error(`agents at work: ${agents.failed} of ${agents.calls} calls failed`);
      rows.push([
        `${name} (${agents.calls} agent calls)`,
        "",
        percentile(seq, 50).toFixed(2),
        percentile(seq, 99).toFixed(2),
        `${w.rps.toFixed(0)} req/s, p50 ${w.p50.toFixed(1)}, p99 ${w.p99.toFixed(1)}${w.non2xx ? `, non-2xx ${w.non2xx}` : ""}`,
      ]);
    }
    printTable(
      `Organization pages: ${projectCount} projects, ${expertises.length} expertises, ${seeded.events.toLocaleString("en")} trace events over 90 days (${seeded.resolutions.toLocaleString("en")} resolutions, ${seeded.reports.toLocaleString("en")} reports; seeded in ${seededS.toFixed(0)} s), ${feed ? "home feed and Activity; goal p99 < 15 ms" : "default 30-day window; target p99 < 50 ms"}`,
      ["request", "first call ms", "one client p50 ms", "one client p99 ms", `wrk -t1 -c10 -d${seconds}s`],
      rows,
    );
    printTable("Server memory", ["RSS after the run (MiB)"], [[rssMiB(server.pid).toFixed(1)]]);
  } finally {
    await server.stop();
    if (process.env.BENCH_KEEP === "1") console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
