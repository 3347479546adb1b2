/**
 * GET /web/projects/:id/validator-config?target=github|gitlab|script (docs/api.md "CI validation"):
 * the CI file that runs `talentd ci verify` with the automation key from the CI's secrets.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { COMMANDS } from "../../src/cli/commandTable";
import { liveEnv, type LiveEnv } from "../mcp-support";
import { clientProject, gitRepo, removeRepos, talentd } from "../client-support";
import { BUN, ROOT, orgWithProject, signedUp, WebClient } from "../helpers";

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
  removeRepos();
});

const shell = (cmd: string): string[] =>
  cmd
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
/** The talentd commands a shell line runs (`… talentd ci verify` → "ci verify"). */
const talentdCommands = (lines: string[]): string[] =>
  lines.flatMap((l) => [...l.matchAll(/talentd"? ([a-z]+(?: [a-z]+)?)/g)].map((m) => m[1]!));
const known = new Set(COMMANDS.map((c) => c.name));

describe("the validator config: a CI job that runs talentd ci verify with TALENTD_KEY from the CI's secrets", () => {
  test("github: the workflow parses, uses only actions/checkout pinned to a commit, runs `talentd ci verify` with the secret by name and BASE_URL", async () => {
    const o = await orgWithProject(live.env, "Gh\nname: injected");
    const r = await o.owner.get(`/web/projects/${o.project.id}/validator-config?target=github`);
    expect(r.status).toBe(200);
    expect(r.body.target).toBe("github");
    expect(r.body.file).toBe(".github/workflows/talentd.yml");
    const doc = parseYaml(r.body.content);
    expect(Object.keys(doc)).toEqual(["name", "on", "permissions", "jobs"]); // a project name cannot add YAML
    expect(doc.permissions).toEqual({ contents: "read" });
    const job = doc.jobs["talentd-verify"];
    expect(job["runs-on"]).toBe("ubuntu-latest");
    expect(job.env).toEqual({ TALENTD_URL: live.base, TALENTD_KEY: "${{ secrets.TALENTD_KEY }}" });
    const uses = job.steps.filter((s: any) => s.uses).map((s: any) => s.uses);
    expect(uses).toEqual(["actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683"]);
    const runs: string[] = job.steps.filter((s: any) => s.run).flatMap((s: any) => shell(s.run));
    expect(runs).toEqual([
      'curl -fsSL --retry 3 -o "$RUNNER_TEMP/talentd" "$TALENTD_URL/download/talentd"',
      'chmod +x "$RUNNER_TEMP/talentd"',
      '"$RUNNER_TEMP/talentd" ci verify',
    ]);
    for (const c of talentdCommands(runs)) expect(known.has(c)).toBe(true);
    expect(r.body.content).not.toContain("svc_pk_");
    expect(r.body.content).toContain(`# talentd ci verify for project "Gh name: injected project" (${o.project.id})`);
    // the default target is github
    expect((await o.owner.get(`/web/projects/${o.project.id}/validator-config`)).body).toEqual(r.body);
  });

  test("gitlab: the job parses, runs in a real Debian image with curl, reads TALENTD_KEY from the CI/CD variables, runs talentd ci verify", async () => {
    const o = await orgWithProject(live.env);
    const r = await o.owner.get(`/web/projects/${o.project.id}/validator-config?target=gitlab`);
    expect(r.status).toBe(200);
    expect(r.body.file).toBe(".gitlab/ci/talentd.yml");
    const doc = parseYaml(r.body.content);
    expect(Object.keys(doc)).toEqual(["talentd-verify"]);
    const job = doc["talentd-verify"];
    expect(job.image).toBe("buildpack-deps:bookworm-curl");
    expect(job.variables).toEqual({ TALENTD_URL: live.base });
    expect(job.script).toEqual([
      'curl -fsSL --retry 3 -o /tmp/talentd "$TALENTD_URL/download/talentd"',
      "chmod +x /tmp/talentd",
      "/tmp/talentd ci verify",
    ]);
    for (const c of talentdCommands(job.script)) expect(known.has(c)).toBe(true);
    expect(r.body.content).toContain("# Needs the CI/CD variable TALENTD_KEY");
  });

  test("script, run against a live server: exit 0 when the lock matches, 1 when the selection drifted, 2 without TALENTD_KEY; without talentd on PATH it downloads it, and fails loudly when the server has no binary to give", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const r = await p.owner.get(`/web/projects/${p.project.id}/validator-config?target=script`);
    expect(r.status).toBe(200);
    expect(r.body.file).toBe("talentd-verify.sh");
    const repo = gitRepo();
    writeFileSync(join(repo, "talentd-verify.sh"), r.body.content);
    // a talentd on PATH: this checkout's CLI
    const bin = join(repo, ".bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "talentd"), `#!/bin/sh\nexec '${BUN}' '${join(ROOT, "src/main.ts")}' "$@"\n`);
    chmodSync(join(bin, "talentd"), 0o755);
    const run = async (env: Record<string, string>, path = `${bin}:${process.env.PATH}`) => {
      const proc = Bun.spawn(["sh", "talentd-verify.sh"], {
        cwd: repo,
        env: { PATH: path, HOME: repo, ...env },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { code, stdout, stderr };
    };
    expect((await talentd(["lock"], repo, p.env)).code).toBe(0);
    // TALENTD_URL defaults to the server's BASE_URL, written into the script
    const ok = await run({ TALENTD_KEY: p.key });
    expect([ok.code, ok.stdout]).toEqual([
      0,
      "talentd ci verify: ok: 2 talent(s) match .talentd/lock.json; no missing prerequisite, no conflict\n",
    ]);
    expect((await p.owner.post(`/web/projects/${p.project.id}/talents`, { talent: "sql-base" })).status).toBe(201);
    const drift = await run({ TALENTD_KEY: p.key });
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain("lock: sql-base: installed in the project");
    const noKey = await run({});
    expect([noKey.code, noKey.stderr]).toEqual([
      2,
      "talentd-verify: TALENTD_KEY is not set: give it the project's automation key from the CI's secrets\n",
    ]);
    // no talentd on PATH: the script downloads the server's; a server running from its sources has none (404), curl -f fails the job
    const noBinary = await run({ TALENTD_KEY: p.key }, "/usr/bin:/bin");
    expect(noBinary.code).not.toBe(0);
    expect(noBinary.stdout).toBe("");
  });

  test("GET /download/talentd from a server running its sources: 404 naming how to get one (the smoke test downloads the built binary)", async () => {
    const r = await fetch(`${live.base}/download/talentd`);
    expect(r.status).toBe(404);
    expect((await r.json()).message).toContain("build it (npm run build)");
  });

  test("failure paths: another organization's project → 404 (hidden), an unknown one → 404, a bad target → 400, no session → 401, a key opens nothing, a pending organization → 403", async () => {
    const a = await orgWithProject(live.env, "Alpha");
    const b = await orgWithProject(live.env, "Beta");
    const cross = await b.owner.get(`/web/projects/${a.project.id}/validator-config?target=script`);
    expect([cross.status, cross.body.error]).toEqual([404, "not_found"]);
    expect(JSON.stringify(cross.body)).not.toContain(a.project.name);
    expect((await a.owner.get("/web/projects/prj_01JUNKNOWN0000000000000000/validator-config")).status).toBe(404);
    const bad = await a.owner.get(`/web/projects/${a.project.id}/validator-config?target=jenkins`);
    expect([bad.status, bad.body.error]).toEqual([400, "validation_failed"]);
    expect(bad.body.issues).toEqual([{ path: "target", message: "target must be one of github, gitlab, script" }]);
    const anon = await new WebClient(live.env).get(`/web/projects/${a.project.id}/validator-config`);
    expect([anon.status, anon.body.error]).toEqual([401, "unauthenticated"]);
    const p = await clientProject(live, []);
    const withKey = await fetch(`${live.base}/web/projects/${p.project.id}/validator-config`, {
      headers: { authorization: `Bearer ${p.key}` },
    });
    expect(withKey.status).toBe(401);
    const pendingOwner = await signedUp(live.env);
    await pendingOwner.post("/web/orgs", { name: "Pending" });
    const pending = await pendingOwner.get(`/web/projects/${a.project.id}/validator-config`);
    expect([pending.status, pending.body.error]).toEqual([403, "organization_not_approved"]);
  });
});
