/**
 * The client in the binary (docs/design.md "The binary and its client"): prepare, playbook, check, hook install, lock and
 * ci verify against a real server on 127.0.0.1, in real git repositories, through the real CLI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, liveEnv, type LiveEnv } from "../mcp-support";
import { clientProject, gitAsync, gitIn, gitRepo, removeRepos, stage, talentd } from "../client-support";
import { talentMd, tempDir } from "../helpers";
import { REPORT_TIMEOUT_MS } from "../../src/client/findingsReport";

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
  removeRepos();
});

const json = (s: string): any => JSON.parse(s);
// detectors block only where earned on real history (TS-005: blocks, measured); TS-002 and TS-006 report as advisory
/** A rule blocking for review whose finding does not block says why, in the hook's words. */
const UNMEASURED = "advisory (hook: its detector is advisory until measured)";
const TS2 =
  "TS-002 advisory (hook: its detector is advisory until measured) Do not introduce any; use unknown and narrow it, or write the precise type or a generic.";
const TS5 = "TS-005 blocking Give every exported function and public method an explicit return type.";
const TS6 =
  "TS-006 advisory (hook: its detector is advisory until measured) Do not use @ts-ignore; if suppression is unavoidable use @ts-expect-error with a reason on the same line.";

describe("talentd prepare: designation from paths (triggers.files with picomatch) plus --talent; nothing else is guessed", () => {
  test("--staged designates the talents whose globs match the staged paths (`**`, `{ts,js}` braces), --talent adds one, the resolution is the server's", async () => {
    const p = await clientProject(live, [
      "typescript-strict",
      "javascript-base",
      "python-base",
      "sql-query-safety",
      "sql-base",
      "dockerfiles",
    ]);
    const repo = gitRepo();
    stage(repo, { "src/deep/a/b.ts": "export const a = 1;\n", "src/users.repository.js": "export {};\n", "README.md": "# x\n" });
    const r = await talentd(["prepare", "--staged", "--talent", "dockerfiles", "--json"], repo, p.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = json(r.stdout);
    expect(out.resolutionId).toMatch(/^res_/);
    expect(out.designated).toEqual(
      [
        { id: "typescript-strict", because: { path: "src/deep/a/b.ts", glob: "**/*.ts" } },
        { id: "javascript-base", because: { path: "src/deep/a/b.ts", glob: "**/*.ts" } },
        { id: "sql-query-safety", because: { path: "src/users.repository.js", glob: "**/*repository*.{ts,js,py,go,java,kt}" } },
        { id: "sql-base", because: { path: "src/users.repository.js", glob: "**/*repository*.{ts,js,py,go,java,kt}" } },
        { id: "dockerfiles", because: "--talent" },
      ].sort((a, b) => out.designated.findIndex((d: any) => d.id === a.id) - out.designated.findIndex((d: any) => d.id === b.id)),
    );
    expect(out.designated.map((d: { id: string }) => d.id).sort()).toEqual([
      "dockerfiles",
      "javascript-base",
      "sql-base",
      "sql-query-safety",
      "typescript-strict",
    ]);
    // python-base's **/*.py matches nothing: not designated, not served
    expect(out.talents.map((t: { id: string }) => t.id).sort()).toEqual([
      "dockerfiles",
      "javascript-base",
      "sql-base",
      "sql-query-safety",
      "typescript-strict",
    ]);
    const pb = await fetch(`${live.base}/api/validation/playbook?resolutionId=${out.resolutionId}`, {
      headers: { authorization: `Bearer ${p.key}` },
    });
    expect((await pb.json()).obligations.length).toBe(5);
  });

  test("PATH… arguments are resolved from the current folder to the repository root; text output names the resolution and why each talent was designated", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base", "dockerfiles"]);
    const repo = gitRepo();
    mkdirSync(join(repo, "src"), { recursive: true });
    const r = await talentd(["prepare", "app.ts", "../Dockerfile"], join(repo, "src"), p.env);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^res_[0-9A-Z]{26} \(3 talents, \d+ tokens\)$/);
    expect(
      lines
        .slice(1)
        .map((l) => l.trim().split(/\s+/)[0])
        .sort(),
    ).toEqual(["dockerfiles", "javascript-base", "typescript-strict"]);
    expect(r.stdout).toContain("src/app.ts matches **/*.ts");
    expect(r.stdout).toContain("Dockerfile matches **/Dockerfile");
    // `Dockerfile` at the root matches **/Dockerfile; a path the globs do not name designates nothing
    const none = await talentd(["prepare", "docs/notes.txt"], repo, p.env);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("nothing designated: no active talent's triggers.files or languages match the 1 path(s)\n");
  });

  test("designation by language: a .ts file outside every trigger glob designates the project's TypeScript talents; a vendored one does not", async () => {
    // concurrency-async-js's triggers.files name folders (services/, api/…) that lib/store.ts is not in; its languages name typescript
    const p = await clientProject(live, ["concurrency-async-js", "javascript-base", "python-base"]);
    const repo = gitRepo();
    const store =
      "export async function save(x: string): Promise<void> {\n  await db.put(x);\n}\nexport function run(): void {\n  save('a');\n}\n";
    stage(repo, { "lib/store.ts": store });
    const r = await talentd(["prepare", "--staged", "--json"], repo, p.env);
    expect(r.stderr).toBe("");
    const out = json(r.stdout);
    const byId = Object.fromEntries(out.designated.map((d: { id: string; because: unknown }) => [d.id, d.because]));
    expect(byId).toEqual({
      "concurrency-async-js": { path: "lib/store.ts", language: "typescript" },
      "javascript-base": { path: "lib/store.ts", glob: "**/*.ts" },
    });
    const text = await talentd(["prepare", "lib/store.ts"], repo, p.env);
    expect(text.stdout).toContain("lib/store.ts is typescript");
    // the check runs the talent's detectors on it: the floating save('a') is an advisory ASYNC-001 finding
    const check = await talentd(["check", "--staged", "--json"], repo, p.env);
    expect(check.code).toBe(0);
    expect(json(check.stdout).findings.map((f: any) => `${f.file}:${f.line} ${f.rule} ${f.severity}`)).toEqual([
      "lib/store.ts:5 ASYNC-001 advisory",
    ]);
    // a vendored TypeScript file is nobody's code to designate by: only its globs count
    const vendored = await talentd(["prepare", "vendor/pkg/index.ts", "--json"], repo, p.env);
    expect(json(vendored.stdout).designated.map((d: { id: string }) => d.id)).toEqual(["javascript-base"]);
  });

  test("a prerequisite that was not designated is listed, not served", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = gitRepo();
    const r = await talentd(["prepare", "tsconfig.json"], repo, p.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "prerequisite not designated: javascript-base (required by typescript-strict; active: add --talent javascript-base)",
    );
  });

  test("failure paths, each one line and exit 2: no repository, nothing staged, nothing to designate from, both --staged and PATHs, an id that is not active", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const { dir: plain, cleanup } = tempDir();
    try {
      const noRepo = await talentd(["prepare", "--staged"], plain, p.env);
      expect(noRepo.code).toBe(2);
      expect(noRepo.stderr).toBe(`talentd: prepare --staged needs a git repository: ${plain} is not inside one\n`);
      const repo = gitRepo();
      const nothing = await talentd(["prepare", "--staged"], repo, p.env);
      expect(nothing.code).toBe(2);
      expect(nothing.stderr).toBe("talentd: prepare --staged: nothing staged (git add some files, or name PATHs or --talent ID)\n");
      const bare = await talentd(["prepare"], repo, p.env);
      expect(bare.code).toBe(2);
      expect(bare.stderr).toContain("nothing to designate from");
      const both = await talentd(["prepare", "--staged", "a.ts"], repo, p.env);
      expect(both.code).toBe(2);
      expect(both.stderr).toBe("talentd: prepare: give --staged or PATHs, not both\n");
      const unknown = await talentd(["prepare", "--talent", "python-base"], repo, p.env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr.trim().split("\n")).toHaveLength(1);
      expect(unknown.stderr).toStartWith("talentd: POST /api/prepare-task failed: 400 unknown_talents");
    } finally {
      cleanup();
    }
  });
});

describe("connection and key failures: one line, exit 2, never a hang", () => {
  test("no TALENTD_URL, a malformed URL, no TALENTD_KEY", async () => {
    const repo = gitRepo();
    const noUrl = await talentd(["prepare", "a.ts"], repo, { TALENTD_KEY: "svc_pk_x" });
    expect([noUrl.code, noUrl.stderr]).toEqual([
      2,
      "talentd: no server: set TALENTD_URL (e.g. export TALENTD_URL=https://talentd.example.com) or pass --url URL\n",
    ]);
    const badUrl = await talentd(["prepare", "a.ts", "--url", "localhost:8787"], repo, { TALENTD_KEY: "svc_pk_x" });
    expect([badUrl.code, badUrl.stderr]).toEqual([2, 'talentd: TALENTD_URL: "localhost:8787" must be an http:// or https:// URL\n']);
    const noKey = await talentd(["lock"], repo, { TALENTD_URL: live.base });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toStartWith("talentd: no key: set TALENTD_KEY");
  });

  test("server down (nothing listens on the port) → `cannot reach … connection refused`", async () => {
    const port = freePort();
    const repo = gitRepo();
    stage(repo, { "a.ts": "const x: any = 1;\n" });
    const r = await talentd(["check", "--staged"], repo, { TALENTD_URL: `http://127.0.0.1:${port}`, TALENTD_KEY: "svc_pk_x" });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `talentd: cannot reach the talentd server at http://127.0.0.1:${port}: connection refused (is the server running, and TALENTD_URL right?)\n`,
    );
  });

  test("a server that accepts and never answers: the request times out (TALENTD_TIMEOUT), exit 2 well before the test's own limit", async () => {
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const repo = gitRepo();
      stage(repo, { "a.ts": "const x: any = 1;\n" });
      const started = Date.now();
      const r = await talentd(["check", "--staged"], repo, {
        TALENTD_URL: `http://127.0.0.1:${silent.port}`,
        TALENTD_KEY: "svc_pk_x",
        TALENTD_TIMEOUT: "0.5",
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `talentd: cannot reach the talentd server at http://127.0.0.1:${silent.port}: no answer within 0.5 s (TALENTD_TIMEOUT)\n`,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      const bad = await talentd(["lock", "--timeout", "never"], repo, { TALENTD_URL: live.base, TALENTD_KEY: "svc_pk_x" });
      expect(bad.stderr).toBe('talentd: TALENTD_TIMEOUT: "never" is not a number of seconds from 0.1 to 600\n');
    } finally {
      silent.stop(true);
    }
  });

  test("a revoked key → `the server refused the key`; a key without the scope → names the scope", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = gitRepo();
    stage(repo, { "a.ts": "const x: any = 1;\n" });
    expect((await p.owner.del(`/web/projects/${p.project.id}/keys/${p.keyId}`)).status).toBe(200);
    const revoked = await talentd(["check", "--staged"], repo, p.env);
    expect(revoked.code).toBe(2);
    expect(revoked.stderr).toBe(
      "talentd: the server refused the key (401 invalid_token): it is unknown, revoked or expired; create a new one and set TALENTD_KEY\n",
    );
    const narrow = await clientProject(live, ["typescript-strict", "javascript-base"], ["prepare_task"]);
    const noValidate = await talentd(["check", "--staged"], repo, narrow.env);
    expect(noValidate.code).toBe(2);
    expect(noValidate.stderr).toBe(
      "talentd: the key lacks the scope validate that GET /api/validation/playbook needs (403 insufficient_scope): create a key with it\n",
    );
  });
});

describe("talentd check: the served rules' detectors over the added lines, locally", () => {
  test("prints `file:line RULE-ID severity title` for added lines only; exit 1 on a blocking finding; `talentd-ignore RULE-ID` silences a line", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = gitRepo();
    stage(repo, { "src/old.ts": "export const legacy: any = 1;\n" });
    gitIn(repo, ["commit", "-q", "-m", "legacy"]);
    stage(repo, {
      "src/old.ts": "export const legacy: any = 1;\nexport const fresh = 2;\n",
      "src/new.ts":
        "const a = 1;\n// @ts-ignore\nlet b: any = a;\nconst c: any = b; // talentd-ignore TS-002: a vendored shape\nexport const d = (x: number) => x;\n",
      "notes.md": "this: any words\n",
    });
    const r = await talentd(["check", "--staged"], repo, p.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`src/new.ts:2 ${TS6}\nsrc/new.ts:3 ${TS2}\nsrc/new.ts:5 ${TS5}\n`);
    expect(r.stderr).toMatch(
      /^talentd check: talents javascript-base, typescript-strict\ntalentd check: 1 blocking, 2 advisory in 7 added line\(s\) of 3 file\(s\); \d+ rule\(s\) with detectors from 2 talent\(s\), resolution res_\w+\. Fix the blocking findings/,
    );
    const j = await talentd(["check", "--staged", "--json"], repo, p.env);
    expect(j.code).toBe(1);
    const out = json(j.stdout);
    expect([out.blocking, out.advisory]).toEqual([1, 2]);
    expect(out.findings[1]).toEqual({
      file: "src/new.ts",
      line: 3,
      rule: "TS-002",
      talent: "typescript-strict",
      severity: "advisory",
      title: TS2.slice(`TS-002 ${UNMEASURED} `.length),
      text: "let b: any = a;",
    });
    expect(out.checked).toMatchObject({ files: 3, lines: 7 });
  });

  test("talentd-ignore RULE reason on a comment line above (already committed) or on the same line: no finding, and --json prints each with its reason", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = gitRepo();
    stage(repo, { "src/sdk.ts": "// talentd-ignore TS-002: the SDK's own type is any\n" });
    gitIn(repo, ["commit", "-q", "-m", "marker"]);
    stage(repo, {
      "src/sdk.ts":
        "// talentd-ignore TS-002: the SDK's own type is any\nexport const sdk: any = load();\n" +
        "export const raw: any = sdk; /* talentd-ignore TS-002 — legacy shape */\n",
    });
    const j = await talentd(["check", "--staged", "--json"], repo, p.env);
    expect(j.stderr).toBe("");
    expect(j.code).toBe(0);
    const out = json(j.stdout);
    expect(out.findings).toEqual([]);
    expect(out.ignored).toEqual([
      { file: "src/sdk.ts", line: 2, rule: "TS-002", reason: "the SDK's own type is any" },
      { file: "src/sdk.ts", line: 3, rule: "TS-002", reason: "legacy shape" },
    ]);
    const text = await talentd(["check", "--staged"], repo, p.env);
    expect([text.code, text.stdout]).toEqual([0, ""]);
  });

  test("a clean change exits 0; an empty index needs no server (nothing staged: nothing to check); outside a repository is exit 2", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = gitRepo();
    stage(repo, { "src/a.ts": "export function one(): number {\n  return 1;\n}\n" });
    const clean = await talentd(["check", "--staged"], repo, p.env);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toBe("");
    expect(clean.stderr).toContain("talentd check: no finding in 3 added line(s) of 1 file(s)");
    gitIn(repo, ["commit", "-q", "-m", "one"]);
    const empty = await talentd(["check", "--staged"], repo, { TALENTD_URL: "http://127.0.0.1:1", TALENTD_KEY: "svc_pk_x" });
    expect([empty.code, empty.stderr]).toEqual([0, "talentd check: nothing staged: nothing to check\n"]);
    const { dir, cleanup } = tempDir();
    try {
      const outside = await talentd(["check", "--staged"], dir, p.env);
      expect([outside.code, outside.stderr]).toEqual([2, `talentd: check needs a git repository: ${dir} is not inside one\n`]);
    } finally {
      cleanup();
    }
  });

  test("the working tree against HEAD by default, --base REF for CI, and an explicit RESOLUTION is checked as served", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = gitRepo();
    stage(repo, { "a.ts": "export const a = 1;\n" });
    gitIn(repo, ["commit", "-q", "-m", "base"]);
    gitIn(repo, ["branch", "base"]);
    writeFileSync(join(repo, "a.ts"), "export const a = 1;\nexport const b = (x: number) => x as any;\n");
    const wt = await talentd(["check"], repo, p.env);
    expect([wt.code, wt.stdout]).toEqual([1, `a.ts:2 ${TS2}\na.ts:2 ${TS5}\n`]);
    gitIn(repo, ["commit", "-q", "-am", "b"]);
    const since = await talentd(["check", "--base", "base", "--json"], repo, p.env);
    expect(since.code).toBe(1);
    const rid = json(since.stdout).resolutionId;
    const pinned = await talentd(["check", "--base", "base", rid], repo, p.env);
    expect([pinned.code, pinned.stdout]).toEqual([1, `a.ts:2 ${TS2}\na.ts:2 ${TS5}\n`]);
    const missing = await talentd(["check", "--base", "no-such-ref"], repo, p.env);
    expect([missing.code, missing.stderr]).toEqual([
      2,
      "talentd: --base no-such-ref: no such commit in this repository (fetch it first, e.g. git fetch origin main)\n",
    ]);
    const two = await talentd(["check", "--staged", "--base", "base"], repo, p.env);
    expect([two.code, two.stderr]).toEqual([
      2,
      "talentd: check: give one of --staged, --base, --pre-push, --commit-msg (got --staged, --base)\n",
    ]);
  });

  test("the diff never leaves the machine: the server sees only talent ids (designable, prepare-task, playbook) and counts per rule (findings), no line and no path of the change", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const seen: { method: string; url: string; body: string; headers: string }[] = [];
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const body = await req.text();
        const url = new URL(req.url);
        seen.push({ method: req.method, url: url.pathname + url.search, body, headers: JSON.stringify([...req.headers]) });
        return fetch(live.base + url.pathname + url.search, { method: req.method, headers: req.headers, body: body || undefined });
      },
    });
    try {
      const repo = gitRepo();
      stage(repo, { "src/marker_path_7731.ts": "export const classify = (SECRET_MARKER_4412: any) => 'classified';\n" });
      const r = await talentd(["check", "--staged"], repo, { TALENTD_URL: `http://127.0.0.1:${proxy.port}`, TALENTD_KEY: p.key });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(`src/marker_path_7731.ts:1 ${TS2}\nsrc/marker_path_7731.ts:1 ${TS5}\n`);
      expect(seen.map((s) => `${s.method} ${s.url.split("?")[0]}`)).toEqual([
        "GET /api/prepare-task/designable",
        "POST /api/prepare-task",
        "GET /api/validation/playbook",
        "POST /api/findings",
      ]);
      for (const s of seen) {
        for (const secret of ["SECRET_MARKER_4412", "classified", "marker_path_7731", "4412: any"])
          expect(`${s.url} ${s.body} ${s.headers}`).not.toContain(secret);
      }
      expect(seen.map((s) => s.body)).toEqual(["", expect.any(String), "", expect.any(String)]);
      // every rule whose detectors ran, with its count (0: ran and found nothing)
      const report = JSON.parse(seen[3]!.body);
      expect(Object.keys(report)).toEqual(["counts"]);
      expect(report.counts["typescript-strict"]).toMatchObject({ "TS-002": 1, "TS-005": 1, "TS-006": 0 });
      expect(JSON.parse(seen[1]!.body).talentIds.sort()).toEqual(["javascript-base", "typescript-strict"]);
      expect(Object.keys(JSON.parse(seen[1]!.body))).toEqual(["talentIds"]);
    } finally {
      proxy.stop(true);
    }
  });

  test("the findings report is waited for at most REPORT_TIMEOUT_MS, not the server's timeout: a server that never answers it neither holds the commit nor changes the exit code", async () => {
    const p = await clientProject(live, ["typescript-strict"]);
    let held = 0;
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 60,
      async fetch(req) {
        const url = new URL(req.url);
        const body = await req.text();
        if (url.pathname === "/api/findings") {
          held++;
          return new Promise<Response>((resolve) => setTimeout(() => resolve(new Response("{}")), 30_000));
        }
        return fetch(live.base + url.pathname + url.search, { method: req.method, headers: req.headers, body: body || undefined });
      },
    });
    try {
      const repo = gitRepo();
      stage(repo, { "src/held.ts": "export const f = (x: any) => x;\n" });
      const env = { TALENTD_URL: `http://127.0.0.1:${proxy.port}`, TALENTD_KEY: p.key, TALENTD_TIMEOUT: "30" };
      const t0 = performance.now();
      const r = await talentd(["check", "--staged"], repo, env);
      const ms = performance.now() - t0;
      expect(held).toBe(1);
      expect(r.code).toBe(1); // TS-005 blocks, report or not
      expect(r.stdout).toContain("src/held.ts:1 TS-005 blocking");
      expect(r.stderr).toContain("the findings' counts were not reported");
      expect(ms).toBeLessThan(REPORT_TIMEOUT_MS + 8_000); // far below the 30 s the other calls may take
      // with --no-report nothing is sent, nothing waited for
      const off = await talentd(["check", "--staged", "--no-report"], repo, env);
      expect([off.code, held, off.stderr.includes("not reported")]).toEqual([1, 1, false]);
    } finally {
      proxy.stop(true);
    }
  });

  test("stdout is drained before the exit: a 1 MB --json read by a consumer that starts a second late arrives whole", async () => {
    const p = await clientProject(live, ["typescript-strict"]);
    const repo = gitRepo();
    stage(repo, { "src/many.ts": Array.from({ length: 3000 }, (_, i) => `const v${i}: any = ${i};`).join("\n") + "\n" });
    const main = join(import.meta.dir, "..", "..", "src", "main.ts");
    // the pipe's reader sleeps first: the writer's first 64 KiB fill the pipe and the rest waits in the process
    const proc = Bun.spawn(
      ["bash", "-c", 'set -o pipefail; "$0" "$1" check --staged --json --no-report | (sleep 1; cat)', process.execPath, main],
      {
        cwd: repo,
        env: { PATH: process.env.PATH ?? "", HOME: repo, GIT_CONFIG_NOSYSTEM: "1", ...p.env },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(stderr).toBe("");
    expect(stdout.length).toBeGreaterThan(256 * 1024);
    expect(JSON.parse(stdout).findings.length).toBe(3000);
    expect(code).toBe(0); // TS-002 is advisory
  });

  test("detectors of a private expertise work the same way (blocking and advisory, pinned to the resolution)", async () => {
    const p = await clientProject(live, []);
    const md = talentMd("ledger", {
      title: "Ledger rules",
      summary: "How we move money. Designate for any change to payment code.",
      rules: `
  - id: LEDG-001
    severity: blocking
    blocks: true
    measured: { findings: 24, precision: 0.96, commits: 310 }
    title: Amounts are integers in minor units.
    check: Look for floats holding money.
    detect:
      - pattern: '\\bamount\\s*[:=]\\s*\\d+\\.\\d+'
  - id: LEDG-002
    severity: advisory
    title: Log the payment id at each step.
    check: Look for log lines without paymentId.
    detect:
      - pattern: 'log\\.\\w+\\((?!.*paymentId)'
  - id: LEDG-003
    severity: advisory
    title: Name the currency.
    check: Look for amounts without currency.`,
      tests: `
  - { rule: LEDG-001, pass: "amountCents: 1299", fail: "amount: 12.99" }
  - { rule: LEDG-002, pass: "log.info({ paymentId }, 'charged')", fail: "log.info('charged')" }`,
    });
    const created = await p.owner.post("/web/orgs/current/expertises", { slug: "ledger", content: md });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(
      (await p.owner.put(`/web/orgs/current/expertises/${id}/triggers`, { files: ["src/payments/**"], keywords: ["payment"] })).status,
    ).toBe(200);
    expect((await p.owner.post(`/web/orgs/current/expertises/${id}/publish`)).status).toBe(200);
    expect((await p.owner.post(`/web/orgs/current/expertises/${id}/activate`)).status).toBe(200);
    const ref = `@${p.org.slug}/ledger`;
    expect((await p.owner.post(`/web/projects/${p.project.id}/talents`, { talent: ref })).status).toBe(201);
    const repo = gitRepo();
    stage(repo, {
      "src/payments/charge.js": "const fee = { amount: 12.5 };\nlog.info('charged');\n",
      "src/other/x.js": "const y = { amount: 1.5 };\n",
    });
    const r = await talentd(["check", "--staged"], repo, p.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      "src/payments/charge.js:1 LEDG-001 blocking Amounts are integers in minor units.\nsrc/payments/charge.js:2 LEDG-002 advisory Log the payment id at each step.\n",
    );
    stage(repo, { "src/payments/charge.js": "log.info('charged');\n" });
    gitIn(repo, ["rm", "-q", "--cached", "src/other/x.js"]);
    const advisory = await talentd(["check", "--staged"], repo, p.env);
    expect([advisory.code, advisory.stdout]).toEqual([0, "src/payments/charge.js:1 LEDG-002 advisory Log the payment id at each step.\n"]);
  });
});

describe("talentd hook install: a commit and a push go through the installed hook", () => {
  test("pre-commit: a blocking finding stops the commit (the finding printed), a clean one commits; an unreachable server stops it too, loudly", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = gitRepo();
    const inst = await talentd(["hook", "install"], repo, p.env);
    expect(inst.code).toBe(0);
    // calibration first (test/client/calibrate.test.ts), the install line last
    expect(inst.stdout).toEndWith("installed .git/hooks/pre-commit: runs talentd check --staged\n");
    const script = readFileSync(join(repo, ".git/hooks/pre-commit"), "utf8");
    expect(script).toStartWith("#!/bin/sh\n# installed by `talentd hook install pre-commit`");
    expect(script).not.toContain(p.key);
    stage(repo, { "src/a.ts": "export const x = (v: number) => v;\n" });
    const blocked = await gitAsync(repo, ["commit", "-m", "bad"], p.env);
    expect(blocked.code).not.toBe(0);
    expect(blocked.stdout + blocked.stderr).toContain(`src/a.ts:1 ${TS5}`);
    expect(gitIn(repo, ["rev-parse", "--verify", "-q", "HEAD"], { allowFail: true }).code).not.toBe(0);
    const down = await gitAsync(repo, ["commit", "-m", "bad"], { TALENTD_URL: "http://127.0.0.1:1", TALENTD_KEY: p.key });
    expect(down.code).not.toBe(0);
    expect(down.stderr).toContain("talentd: cannot reach the talentd server at http://127.0.0.1:1");
    stage(repo, { "src/a.ts": "export const x: number = 1;\n" });
    const ok = await gitAsync(repo, ["commit", "-m", "good"], p.env);
    expect(ok.code).toBe(0);
    expect(gitIn(repo, ["log", "--format=%s"]).stdout).toBe("good\n");
  });

  test("a hook talentd did not write is kept unless --force (then moved aside); reinstalling is idempotent; core.hooksPath is followed; an unknown hook is refused", async () => {
    const repo = gitRepo();
    writeFileSync(join(repo, ".git/hooks/pre-commit"), "#!/bin/sh\necho mine\n");
    const refused = await talentd(["hook", "install", "pre-commit"], repo, {});
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("talentd: hook install: .git/hooks/pre-commit exists and is not talentd's");
    const forced = await talentd(["hook", "install", "--force", "--url", live.base], repo, {});
    expect(forced.code).toBe(0);
    expect(readFileSync(join(repo, ".git/hooks/pre-commit.before-talentd"), "utf8")).toBe("#!/bin/sh\necho mine\n");
    expect(readFileSync(join(repo, ".git/hooks/pre-commit"), "utf8")).toContain(`: "\${TALENTD_URL:=${live.base}}"`);
    expect((await talentd(["hook", "install"], repo, {})).code).toBe(0);
    gitIn(repo, ["config", "core.hooksPath", ".githooks"]);
    const custom = await talentd(["hook", "install", "pre-push"], repo, {});
    expect([custom.code, existsSync(join(repo, ".githooks/pre-push"))]).toEqual([0, true]);
    const unknown = await talentd(["hook", "install", "post-merge"], repo, {});
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      'talentd: hook install: "post-merge" is not a hook talentd installs (pre-commit, pre-push or commit-msg)\n',
    ]);
  });

  test("commit-msg: the message is checked by the project's commit convention (conventional-commits, then git-commit-messages), in the rules' own words", async () => {
    const CC1 = `CC-001 ${UNMEASURED} Format every header as type(scope)!: description, using a type the project allows`;
    const CC4 = `CC-004 advisory Write the description in lower-case imperative mood, no trailing period, keeping the whole header at most 100`;
    const CC6 = `CC-006 advisory Explain why in a body separated by a blank line`;
    const p = await clientProject(live, ["conventional-commits", "typescript-strict", "javascript-base"]);
    const repo = gitRepo();
    const inst = await talentd(["hook", "install", "commit-msg"], repo, p.env);
    expect(inst.stdout).toEndWith('installed .git/hooks/commit-msg: runs talentd check --commit-msg "$1"\n');
    const commit = async (message: string) => {
      stage(repo, { "notes.txt": `${Math.random()}\n` });
      const r = await gitAsync(repo, ["commit", "-q", "-m", message], p.env);
      // git hands a commit-msg hook's output to its standard error
      return { code: r.code, lines: (r.stdout + r.stderr).split("\n").filter((l) => l.startsWith(".git/COMMIT_EDITMSG:")) };
    };
    const bad = await commit("Fixed the session cache.");
    expect(bad.lines).toHaveLength(1);
    expect(bad.lines[0]).toStartWith(`.git/COMMIT_EDITMSG:1 ${CC1}`);
    // advisory until measured on real history (docs/talent-format.md): printed, the commit goes through
    expect(bad.code).toBe(0);
    const header = `feat(api): ${"a".repeat(85)}`; // 96 characters: over commitlint's old 72, under config-conventional's 100
    expect((await commit(header)).lines).toEqual([]);
    const long = await commit(`feat(api): ${"a".repeat(95)}\nOffsets skipped rows.`);
    expect(long.lines.map((l) => l.slice(0, l.indexOf(" ", l.indexOf(" ") + 1 + 6) + 1))).toEqual([
      ".git/COMMIT_EDITMSG:1 CC-004 ",
      ".git/COMMIT_EDITMSG:2 CC-006 ",
    ]);
    expect(long.lines[0]).toStartWith(`.git/COMMIT_EDITMSG:1 ${CC4}`);
    expect(long.lines[1]).toStartWith(`.git/COMMIT_EDITMSG:2 ${CC6}`);
    // comment lines and what follows the scissors line are not the message
    const file = join(repo, "msg.txt");
    writeFileSync(
      file,
      "feat(api): page orders\n# Please enter the commit message\n# ------------------------ >8 ------------------------\nNot this\n",
    );
    const json_ = await talentd(["check", "--commit-msg", file, "--json"], repo, p.env);
    expect([json_.code, json(json_.stdout).findings]).toEqual([0, []]);
    // a project with the classic convention: its own rules, each in its words
    const classic = await clientProject(live, ["git-commit-messages"]);
    writeFileSync(file, "fix stuff\n");
    const c = json((await talentd(["check", "--commit-msg", file, "--json"], repo, classic.env)).stdout);
    expect(c.findings.map((f: { rule: string; title: string }) => `${f.rule} ${f.title.slice(0, 40)}`)).toEqual([
      "GIT-001 Write the subject in the imperative mood",
      "GIT-003 Make the message describe the change spe",
    ]);
    // no commit convention active: nothing to check, never a failed commit
    const none = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const n = await talentd(["check", "--commit-msg", file], repo, none.env);
    expect([n.code, n.stderr]).toEqual([
      0,
      "talentd check: no active talent's triggers.files name .git/COMMIT_EDITMSG (conventional-commits, git-commit-messages): no rule to check\n",
    ]);
  });

  test("pre-push: the commits being pushed are checked (a new branch from its first commit, then only what the remote lacks)", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const remote = gitRepo({ bare: true });
    const repo = gitRepo();
    gitIn(repo, ["remote", "add", "origin", remote]);
    expect((await talentd(["hook", "install", "pre-push"], repo, p.env)).code).toBe(0);
    stage(repo, { "a.ts": "export const a: number = 1;\n" });
    gitIn(repo, ["commit", "-q", "-m", "clean"]);
    const first = await gitAsync(repo, ["push", "-q", "origin", "main"], p.env);
    expect(first.code).toBe(0);
    stage(repo, { "b.ts": "export const b = (v: number) => v;\n" });
    gitIn(repo, ["commit", "-q", "-m", "bad"]);
    const second = await gitAsync(repo, ["push", "-q", "origin", "main"], p.env);
    expect(second.code).not.toBe(0);
    expect(second.stdout + second.stderr).toContain(`b.ts:1 ${TS5}`);
    expect(second.stdout + second.stderr).not.toContain("a.ts:");
    expect(gitIn(remote, ["log", "--format=%s", "main"]).stdout).toBe("clean\n");
  });
});

describe("the key API the client reads (docs/api.md)", () => {
  test("playbook include=detectors carries each rule's detectors with the globs they apply to; doctor include=selection the installed talents; any other include → 400", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const get = async (path: string) => {
      const r = await fetch(live.base + path, { headers: { authorization: `Bearer ${p.key}` } });
      return { status: r.status, body: await r.json() };
    };
    const prep = await fetch(`${live.base}/api/prepare-task`, {
      method: "POST",
      headers: { authorization: `Bearer ${p.key}`, "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    const rid = (await prep.json()).resolutionId;
    const plain = await get(`/api/validation/playbook?resolutionId=${rid}`);
    expect(plain.body.obligations[0].rules.some((r: { detect?: unknown }) => r.detect)).toBe(false);
    const withDetectors = await get(`/api/validation/playbook?resolutionId=${rid}&include=detectors`);
    const ts2 = withDetectors.body.obligations[0].rules.find((r: { id: string }) => r.id === "TS-002");
    expect(ts2.detect).toEqual([
      {
        severity: "advisory", // its findings do not block: TS-002 has not earned it (talents/typescript-strict measured)
        files: ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts", "tsconfig*.json"],
        pattern: live.env.state.catalog!.get("typescript-strict")!.rules[1]!.detect![0]!.pattern,
      },
    ]);
    expect(withDetectors.body.obligations[0].rules.find((r: { id: string }) => r.id === "TS-004").detect).toBeUndefined();
    const bad = await get(`/api/validation/playbook?resolutionId=${rid}&include=everything`);
    expect([bad.status, bad.body.error, bad.body.issues]).toEqual([
      400,
      "validation_failed",
      [{ path: "include", message: "include must be one of detectors" }],
    ]);
    const doctor = await get("/api/doctor?include=selection");
    expect(doctor.body.projectId).toBe(p.project.id);
    expect(doctor.body.talents.map((t: { id: string; state: string }) => `${t.id} ${t.state}`)).toEqual([
      "javascript-base active",
      "typescript-strict active",
    ]);
    expect((await get("/api/doctor")).body.talents).toBeUndefined();
    expect((await get("/api/doctor?include=talents")).status).toBe(400);
  });
});

describe("talentd playbook", () => {
  test("without RESOLUTION: the last one prepared in this repository; --talent shows the detail with detectors; an unknown one is exit 2", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = gitRepo();
    const none = await talentd(["playbook"], repo, p.env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no RESOLUTION given and none prepared in this repository yet");
    const prepared = json((await talentd(["prepare", "x.ts", "--json"], repo, p.env)).stdout);
    const pb = await talentd(["playbook"], repo, p.env);
    expect(pb.code).toBe(0);
    expect(pb.stdout).toStartWith(`Audit playbook of ${prepared.resolutionId}\n1. `);
    expect(pb.stdout).toContain("  [TS-002] blocking Do not introduce any;");
    const detail = await talentd(["playbook", prepared.resolutionId, "--talent", "typescript-strict"], repo, p.env);
    expect(detail.stdout).toContain(
      "    detect: /@ts-ignore\\b|@ts-expect-error\\s*(\\*/)?\\s*$/ in **/*.ts, **/*.tsx, **/*.mts, **/*.cts, tsconfig*.json",
    );
    const unknown = await talentd(["playbook", "res_00000000000000000000000000"], repo, p.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      "talentd: GET /api/validation/playbook failed: 404 not_found: No resolution res_00000000000000000000000000 in this project.\n",
    );
  });
});

describe("talentd lock and talentd ci verify", () => {
  test("lock writes .talentd/lock.json (selection, versions, digests, sorted; the same bytes when nothing changed); ci verify passes, then fails on every kind of drift", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = gitRepo();
    mkdirSync(join(repo, "sub"));
    const w = await talentd(["lock"], join(repo, "sub"), p.env);
    expect(w.code).toBe(0);
    expect(w.stdout).toBe(`wrote ../.talentd/lock.json: 2 talent(s) (2 active) of project ${p.project.id}; commit it\n`);
    const text = readFileSync(join(repo, ".talentd/lock.json"), "utf8");
    const lock = json(text);
    const catalog = live.env.state.catalog!;
    expect(lock).toEqual({
      lockfileVersion: 1,
      project: p.project.id,
      talents: ["javascript-base", "typescript-strict"].map((id) => ({
        id,
        kind: "talent",
        state: "active",
        version: catalog.get(id)!.version,
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      })),
      // the instance's public signing keys, for talentd verify offline
      signingKeys: await (await fetch(`${live.base}/.well-known/jwks.json`)).json(),
    });
    const again = await talentd(["lock"], repo, p.env);
    expect(again.stdout).toStartWith("unchanged .talentd/lock.json");
    expect(readFileSync(join(repo, ".talentd/lock.json"), "utf8")).toBe(text);
    const ok = await talentd(["ci", "verify"], repo, p.env);
    expect([ok.code, ok.stdout]).toEqual([
      0,
      "talentd ci verify: ok: 2 talent(s) match .talentd/lock.json; no missing prerequisite, no conflict\n",
    ]);

    // a talent installed since the lock
    expect((await p.owner.post(`/web/projects/${p.project.id}/talents`, { talent: "sql-base" })).status).toBe(201);
    const added = await talentd(["ci", "verify"], repo, p.env);
    expect(added.code).toBe(1);
    expect(added.stdout).toBe(
      `lock: sql-base: installed in the project (active, ${catalog.get("sql-base")!.version}) but not in the lock\n`,
    );
    expect(added.stderr).toContain("run talentd lock and commit the lock file");
    // disabled since, and a version the server no longer serves
    expect((await p.owner.patch(`/web/projects/${p.project.id}/talents/javascript-base`, { enabled: false })).status).toBe(200);
    const edited = json(text);
    edited.talents[1].version = "0.9.0";
    writeFileSync(join(repo, ".talentd/lock.json"), JSON.stringify(edited));
    const drift = await talentd(["ci", "verify", "--json"], repo, p.env);
    expect(drift.code).toBe(1);
    const d = json(drift.stdout);
    expect(d.ok).toBe(false);
    expect(d.doctor.problems).toEqual(["disabled prerequisite: javascript-base (required by typescript-strict)"]);
    expect(d.lock.differences).toEqual([
      "lock: javascript-base: active in the lock, disabled in the project",
      `lock: sql-base: installed in the project (active, ${catalog.get("sql-base")!.version}) but not in the lock`,
      `lock: typescript-strict: version 0.9.0 in the lock, ${catalog.get("typescript-strict")!.version} on the server`,
    ]);
  });

  test("verify: a resolution saved in a locked repository verifies offline with the lock's signing keys (no --keys, no server)", async () => {
    const p = await clientProject(live, ["typescript-strict"]);
    const repo = gitRepo();
    expect((await talentd(["lock"], repo, p.env)).code).toBe(0);
    const prepared = await fetch(`${live.base}/api/prepare-task`, {
      method: "POST",
      headers: { authorization: `Bearer ${p.env.TALENTD_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    writeFileSync(join(repo, "res.json"), await prepared.text());
    const ok = await talentd(["verify", "res.json"], repo, { PATH: process.env.PATH ?? "" }); // no TALENTD_URL, no key
    expect(ok.code).toBe(0);
    expect(ok.stdout).toStartWith("talentd verify: res.json: valid: resolution res_");
  });

  test("ci verify fails on a missing prerequisite and on a conflict (doctor), on a missing or unreadable lock, and names another project's lock", async () => {
    const p = await clientProject(live, ["typescript-strict", "git-commit-messages", "conventional-commits"]);
    const repo = gitRepo();
    const noLock = await talentd(["ci", "verify"], repo, p.env);
    expect(noLock.code).toBe(1);
    expect(noLock.stdout.split("\n")).toEqual([
      "missing prerequisite: javascript-base (required by typescript-strict)",
      expect.stringMatching(
        /^conflict: (git-commit-messages × conventional-commits|conventional-commits × git-commit-messages) are both active$/,
      ),
      "no lock file at .talentd/lock.json: run talentd lock and commit it",
      "",
    ]);
    mkdirSync(join(repo, ".talentd"));
    writeFileSync(join(repo, ".talentd/lock.json"), "{not json");
    const broken = await talentd(["ci", "verify", "--lock", ".talentd/lock.json"], repo, p.env);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(".talentd/lock.json is not valid JSON");
    const other = await clientProject(live, ["javascript-base"]);
    expect((await talentd(["lock"], repo, other.env)).code).toBe(0);
    const mismatch = await talentd(["ci", "verify"], repo, p.env);
    expect(mismatch.stdout).toContain(`lock: the lock is for project ${other.project.id}, the key's project is ${p.project.id}`);
    const down = await talentd(["ci", "verify"], repo, { TALENTD_URL: `http://127.0.0.1:${freePort()}`, TALENTD_KEY: p.key });
    expect(down.code).toBe(2);
  });
});
