/**
 * "`GET /metrics` in the Prometheus text format (guarded by `METRICS_TOKEN` …):
 * requests by route and status, latency histograms per route, the write queue depth and commit
 * latency, database and WAL size, catalog size, active sessions, keys used in the last day.
 * Tested by parsing the output with a Prometheus text-format parser from npm and checking the
 * counters move." The parser is parse-prometheus-text-format (prom2json's output shape). It
 * checks every line and reads families and types; it folds a histogram's series into one only
 * when the histogram has no labels of its own, so the samples are read from a second parse with
 * the histograms' TYPE lines left out (each `_bucket`, `_sum`, `_count` is then a family of
 * labelled samples).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import parse from "parse-prometheus-text-format";
import { createKey, nextTurn, orgWithProject, runCli, testEnv, withKey, type TestEnv } from "../helpers";

const TOKEN = "metrics-token-0123456789abcdef";
let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ METRICS_TOKEN: TOKEN });
});
afterAll(() => env.close());

/** Scrapes /metrics (after the hooks of earlier requests ran) and parses it. */
async function scrape() {
  await nextTurn();
  await nextTurn();
  const r = await env.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await r.text();
  const families = parse(text);
  const family = (name: string) => families.find((f) => f.name === name);
  const flat = parse(text.replace(/^# TYPE \S+ histogram\n/gm, ""));
  // one histogram's series follow each other, so a name comes back once per series: gather them
  const series = (name: string) => flat.filter((x) => x.name === name).flatMap((x) => x.metrics);
  /** The value of the sample of `name` with these labels (a histogram's count for its family name), 0 when absent. */
  const value = (name: string, labels: Record<string, string> = {}): number => {
    const histogram = family(name)?.type === "HISTOGRAM";
    const m = series(histogram ? `${name}_count` : name).find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
    return m ? Number(m.value) : 0;
  };
  /** A histogram's buckets (le → cumulative count), sum and count for these labels. */
  const histogram = (name: string, labels: Record<string, string>) => {
    const match = (x: { labels?: Record<string, string> }) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v);
    const buckets = series(`${name}_bucket`)
      .filter(match)
      .map((x) => [x.labels!.le!, Number(x.value)] as const);
    return { buckets, sum: value(`${name}_sum`, labels), count: value(`${name}_count`, labels) };
  };
  return { text, families, family, value, histogram };
}

describe("GET /metrics", () => {
  // the families include the SQLite file's and WAL's sizes, which a PostgreSQL database has not
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "every family the issue lists is there, typed, and the whole output parses with a Prometheus text-format parser",
    async () => {
      const m = await scrape();
      const types = Object.fromEntries(m.families.map((f) => [f.name, f.type]));
      expect(types).toMatchObject({
        talentd_http_requests_total: "COUNTER",
        talentd_http_request_duration_seconds: "HISTOGRAM",
        talentd_db_write_queue_depth: "GAUGE",
        talentd_db_commit_duration_seconds: "HISTOGRAM",
        talentd_db_size_bytes: "GAUGE",
        talentd_db_wal_size_bytes: "GAUGE",
        talentd_catalog_talents: "GAUGE",
        talentd_sessions_active: "GAUGE",
        talentd_api_keys_used_last_day: "GAUGE",
        talentd_mail_outbox: "GAUGE",
        talentd_backups_total: "COUNTER",
        talentd_build_info: "GAUGE",
        process_resident_memory_bytes: "GAUGE",
      });
      expect(m.value("talentd_catalog_talents")).toBe(env.state.catalog!.list.length);
      expect(m.value("talentd_mail_outbox", { status: "failed" })).toBe(0);
      expect(m.value("talentd_db_size_bytes")).toBeGreaterThan(0);
      expect(m.value("talentd_db_wal_size_bytes")).toBeGreaterThanOrEqual(0);
      for (const line of m.text.trim().split("\n"))
        expect(line).toMatch(/^(# (HELP|TYPE) [a-z_]+ .+|[a-z_]+(\{[^}]*\})? (-?[0-9.e+-]+|\+Inf|NaN))$/);
    },
  );

  test('requests are counted by method, route pattern and status (`/web/projects/:id`, never the raw path); an unknown path is route="unmatched"', async () => {
    const { owner, project } = await orgWithProject(env);
    const before = await scrape();
    const route = { method: "GET", route: "/web/projects/:id", status: "200" };
    const n0 = before.value("talentd_http_requests_total", route);
    for (let i = 0; i < 3; i++) expect((await owner.get(`/web/projects/${project.id}`)).status).toBe(200);
    expect((await owner.get("/web/projects/prj_nope")).status).toBe(404);
    expect((await env.request("/no/such/path/12345")).status).toBe(404);
    const after = await scrape();
    expect(after.value("talentd_http_requests_total", route)).toBe(n0 + 3);
    expect(after.value("talentd_http_requests_total", { ...route, status: "404" })).toBe(
      before.value("talentd_http_requests_total", { ...route, status: "404" }) + 1,
    );
    expect(after.value("talentd_http_requests_total", { route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(after.text).not.toContain(project.id); // no raw path, no id in a label
    expect(after.text).not.toContain("/no/such/path");
    // the latency histogram of that route counted each request, its buckets are cumulative and end at +Inf = count
    const h = after.histogram("talentd_http_request_duration_seconds", { method: "GET", route: "/web/projects/:id" });
    expect(h.count).toBe(n0 + 3 + before.value("talentd_http_requests_total", { ...route, status: "404" }) + 1);
    expect(h.buckets.at(-1)).toEqual(["+Inf", h.count]);
    expect(h.buckets.length).toBe(15);
    for (let i = 1; i < h.buckets.length; i++) expect(h.buckets[i]![1]).toBeGreaterThanOrEqual(h.buckets[i - 1]![1]);
    expect(h.sum).toBeGreaterThan(0);
  });

  test("commit latency counts each write, the write queue is back to 0 once idle; active sessions and keys used in the last day move", async () => {
    const before = await scrape();
    const { owner, project } = await orgWithProject(env); // a sign-up (a session), an organization, a project: writes
    const key = await createKey(owner, project.id, ["doctor"]);
    const mid = await scrape();
    expect(mid.value("talentd_sessions_active")).toBe(before.value("talentd_sessions_active") + 1);
    expect(mid.value("talentd_db_commit_duration_seconds", { kind: "transaction" })).toBeGreaterThan(
      before.value("talentd_db_commit_duration_seconds", { kind: "transaction" }),
    );
    const used = mid.value("talentd_api_keys_used_last_day");
    expect((await withKey(env, key.value, "/api/doctor")).status).toBe(200); // the key's last use: a write job (group commit)
    await env.database.idle();
    const after = await scrape();
    expect(after.value("talentd_api_keys_used_last_day")).toBe(used + 1);
    expect(after.value("talentd_db_commit_duration_seconds", { kind: "batch" })).toBeGreaterThan(
      mid.value("talentd_db_commit_duration_seconds", { kind: "batch" }),
    );
    expect(after.value("talentd_db_write_queue_depth")).toBe(0);
  });

  test("the write queue depth counts writes not yet committed", async () => {
    let release!: () => void;
    const held = env.database.write(async () => new Promise<void>((r) => (release = r)));
    const queued = [env.database.write(async () => {}), env.database.write(async () => {})];
    const during = await scrape();
    expect(during.value("talentd_db_write_queue_depth")).toBe(3);
    release();
    await Promise.all([held, ...queued]);
    expect((await scrape()).value("talentd_db_write_queue_depth")).toBe(0);
  });
});

describe("/metrics is guarded by METRICS_TOKEN and off without it", () => {
  test("no Authorization, a wrong token, another scheme: 401 invalid_token with WWW-Authenticate, nothing of the metrics in the body", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer wrong-token-0123456789" },
      { authorization: `Basic ${btoa(`x:${TOKEN}`)}` },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: "Bearer" },
    ]) {
      const r = await env.request("/metrics", { headers });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      const body = (await r.json()) as { error: string };
      expect(body.error).toBe("invalid_token");
      expect(JSON.stringify(body)).not.toContain("talentd_");
    }
  });

  test("without METRICS_TOKEN /metrics does not exist (404 not_found, like any unknown path), whatever the Authorization", async () => {
    const off = await testEnv();
    try {
      const r = await off.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(r.status).toBe(404);
      expect(((await r.json()) as { error: string }).error).toBe("not_found");
    } finally {
      off.close();
    }
  });

  test("a METRICS_TOKEN shorter than 16 characters or with spaces stops the start with one line (exit 2)", async () => {
    for (const bad of ["short", "has a space in it 1234"]) {
      const r = await runCli(["serve", "--port", "0"], { env: { METRICS_TOKEN: bad, DATA_DIR: `${env.dir}/unused` } });
      expect({ code: r.code, stderr: r.stderr }).toEqual({
        code: 2,
        stderr: "talentd: config: METRICS_TOKEN: must be 16 to 256 printable characters without spaces (e.g. openssl rand -hex 32)\n",
      });
    }
  }, 30_000);
});
