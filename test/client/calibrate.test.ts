/**
 * `talentd calibrate` and the calibration `talentd hook install` runs first (docs/design.md "What blocks a
 * commit"), against a real server on 127.0.0.1, in real git repositories, through the real CLI: a rule the
 * history shows the team does not follow (≥ 3 commits and ≥ 5% of those it ran on) is proposed as advise and,
 * with --apply, becomes the project's hook rule, so `talentd check` prints its findings without blocking;
 * security rules are never relaxed; rules followed keep blocking.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { liveEnv, type LiveEnv } from "../mcp-support";
import { clientProject, gitIn, gitRepo, removeRepos, stage, talentd } from "../client-support";

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
  removeRepos();
});

const TALENTS = ["typescript-strict", "javascript-base", "open-redirect"];
/** An exported function without a return type: TS-005, which blocks (earned by its measured figure). */
const untyped = (i: number) => `export function add${i}(a: number) {\n  return a + ${i};\n}\n`;

/** A repository whose `n` commits each add one file made by `content`. */
function history(n: number, content: (i: number) => string, name = (i: number) => `src/f${i}.ts`): string {
  const repo = gitRepo();
  for (let i = 1; i <= n; i++) {
    stage(repo, { [name(i)]: content(i) });
    gitIn(repo, ["commit", "-q", "-m", `commit ${i}`]);
  }
  return repo;
}

async function hookRules(base: string, key: string) {
  const r = await fetch(`${base}/api/hook-rules`, { headers: { authorization: `Bearer ${key}` } });
  return ((await r.json()) as { rules: { rule: string; security: boolean; choice: string | null; effective: string }[] }).rules;
}

describe("talentd calibrate: the project's habits become advisory, the rest keeps blocking", () => {
  test("12 commits each adding an exported function without a return type: TS-005 blocks a 13th until calibrate --apply makes it advise; the finding is still printed", async () => {
    const p = await clientProject(live, TALENTS);
    const repo = history(12, untyped);
    stage(repo, { "src/f13.ts": untyped(13) });

    const before = await talentd(["check", "--staged", "--no-report"], repo, p.env);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain("src/f13.ts:1 TS-005 blocking");

    const proposed = await talentd(["calibrate", "--history", "50", "--json"], repo, p.env);
    expect(proposed.code).toBe(0);
    const doc = JSON.parse(proposed.stdout);
    expect(doc).toMatchObject({ commits: 12, designations: 1, proposals: { "TS-005": "advise" }, applied: false });
    expect(doc.rules.find((r: { rule: string }) => r.rule === "TS-005")).toMatchObject({
      talent: "typescript-strict",
      findings: 12,
      blocked: 12,
      ranOn: 12,
      now: "blocking",
      proposal: "advise",
    });
    // without --apply nothing changed
    expect((await hookRules(live.base, p.key)).every((r) => r.choice === null)).toBe(true);

    const text = await talentd(["calibrate", "--history", "50"], repo, p.env);
    expect(text.stdout).toContain("TS-005");
    expect(text.stdout).toContain("proposal: TS-005 → advise");
    expect(text.stdout).toContain("talentd calibrate --apply");

    const applied = await talentd(["calibrate", "--history", "50", "--apply"], repo, p.env);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("applied: TS-005 now advises (1 change(s)");

    const after = await talentd(["check", "--staged", "--no-report"], repo, p.env);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain("src/f13.ts:1 TS-005 advisory");

    const rules = await hookRules(live.base, p.key);
    expect(rules.filter((r) => r.choice !== null).map((r) => [r.rule, r.choice, r.effective])).toEqual([["TS-005", "advise", "advise"]]);
    expect(rules.some((r) => r.security)).toBe(true);
  });

  test("a security rule is never relaxed by calibration, even when chosen to block and broken by every commit; a person's choices are kept by --apply", async () => {
    const p = await clientProject(live, TALENTS);
    const set = await fetch(`${live.base}/api/hook-rules`, {
      method: "PUT",
      headers: { authorization: `Bearer ${p.key}`, "content-type": "application/json" },
      body: JSON.stringify({ rules: { "REDIR-001": "block", "TS-003": "off" } }),
    });
    expect(set.status).toBe(200);
    const repo = history(
      8,
      (i) => `app.get("/r${i}", (req, res) => res.redirect(req.query.next));\n`,
      (i) => `src/routes/r${i}.js`,
    );
    const r = await talentd(["calibrate", "--apply", "--json"], repo, p.env);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const redirect = doc.rules.find((x: { rule: string }) => x.rule === "REDIR-001");
    expect(redirect).toMatchObject({ blocked: 8, security: true, proposal: "keep" });
    expect(redirect.why).toContain("security rule");
    expect(doc.proposals).toEqual({});
    const rules = await hookRules(live.base, p.key);
    expect(rules.filter((x) => x.choice !== null).map((x) => [x.rule, x.choice])).toEqual([
      ["REDIR-001", "block"],
      ["TS-003", "off"],
    ]);
  });

  test("a rule the team follows (it would have blocked 1 commit of 12) keeps blocking; rules with no finding are left alone", async () => {
    const p = await clientProject(live, TALENTS);
    const repo = history(12, (i) => (i === 5 ? untyped(i) : `export function add${i}(a: number): number {\n  return a;\n}\n`));
    const r = await talentd(["calibrate", "--apply"], repo, p.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/TS-005 +typescript-strict +1 +1 +12 +keep: would have blocked 1 of 12 commit\(s\)/);
    expect(r.stdout).toContain("other rule(s) with detectors ran and found nothing: left alone");
    expect(r.stdout).toContain("nothing to relax");
    expect((await hookRules(live.base, p.key)).every((x) => x.choice === null)).toBe(true);
  });

  test("--apply with a key without install is one line naming the scope, exit 2; nothing is applied", async () => {
    const p = await clientProject(live, TALENTS, ["prepare_task", "validate"]);
    const repo = history(4, untyped);
    const r = await talentd(["calibrate", "--apply"], repo, p.env);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "talentd: the key lacks the scope install that PUT /api/hook-rules needs (403 insufficient_scope): create a key with it",
    );
    expect((await hookRules(live.base, p.key)).every((x) => x.choice === null)).toBe(true);
  });

  test("usage: --history outside 1–10000 and an unknown --until are one line, exit 2", async () => {
    const p = await clientProject(live, TALENTS);
    const repo = history(1, untyped);
    const bad = await talentd(["calibrate", "--history", "0"], repo, p.env);
    expect([bad.code, bad.stderr.trim()]).toEqual([2, 'talentd: calibrate: --history takes a number of commits from 1 to 10000 (got "0")']);
    const until = await talentd(["calibrate", "--until", "nope"], repo, p.env);
    expect([until.code, until.stderr.trim()]).toEqual([2, "talentd: calibrate: --until nope: no such commit in this repository"]);
  });
});

describe("talentd hook install calibrates first", () => {
  test("with a key holding install the proposal is applied and it says what blocks from now on", async () => {
    const p = await clientProject(live, TALENTS);
    const repo = history(12, untyped);
    const r = await talentd(["hook", "install"], repo, p.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("talentd hook install: calibration: 12 first-parent commit(s)");
    expect(r.stdout).toContain("applied: TS-005 now advises");
    // TS-005 was the only rule of these talents whose detector earned blocking
    expect(r.stdout).toMatch(/\nfrom now on: 0 rule\(s\) block a commit; \d+ only advise\n/);
    expect(r.stdout.trim().split("\n").at(-1)).toBe("installed .git/hooks/pre-commit: runs talentd check --staged");
  });

  test("a key without install: the proposal is shown, not applied (said so), and the hook is installed", async () => {
    const p = await clientProject(live, TALENTS, ["prepare_task", "validate"]);
    const repo = history(12, untyped);
    const r = await talentd(["hook", "install"], repo, p.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("not applied: the key lacks the install scope");
    expect(r.stdout).toContain("from now on: 1 rule(s) block a commit (TS-005)");
    expect(existsSync(join(repo, ".git/hooks/pre-commit"))).toBe(true);
  });

  test("a fresh repository has nothing to replay; --no-calibrate asks nothing of the server; no key or no server is one line, the hook installed all the same", async () => {
    const p = await clientProject(live, TALENTS);
    const fresh = gitRepo();
    const r = await talentd(["hook", "install"], fresh, p.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("no commit yet: nothing to calibrate");
    const skipped = await talentd(["hook", "install", "--no-calibrate"], gitRepo(), {
      TALENTD_URL: "http://127.0.0.1:1",
      TALENTD_KEY: p.key,
    });
    expect([skipped.code, skipped.stdout, skipped.stderr]).toEqual([
      0,
      "installed .git/hooks/pre-commit: runs talentd check --staged\n",
      "",
    ]);
    const down = await talentd(["hook", "install"], gitRepo(), { TALENTD_URL: "http://127.0.0.1:1", TALENTD_KEY: p.key });
    expect(down.code).toBe(0);
    expect(down.stderr).toContain("talentd hook install: not calibrated (");
    const nokey = await talentd(["hook", "install"], gitRepo(), {});
    expect(nokey.code).toBe(0);
    expect(nokey.stderr).toContain("not calibrated (no TALENTD_KEY)");
  });
});
