/**
 * Insights (docs/api.md "Activity, insights and adoption", owner/admin; others 403): what an
 * organization should fix — failed calls by code, keys, projects at fault, resolutions served
 * but never audited, expertises with failing verdicts — and how its talents are adopted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { KEY_NEVER_USED_DAYS, KEY_UNUSED_DAYS } from "../../src/activity/insights";
import { AUDIT_GRACE_MS } from "../../src/activity/neverAudited";
import { DAY_MS } from "../../src/activity/daily";
import { touchAll as forgetMemo } from "../../src/journal/dayMemo";
import { orderedId } from "../../src/lib/ids";
import { removeProject } from "../../src/projects/service";
import { SYSTEM_ACTOR } from "../../src/audit/record";
import { recordReport } from "../../src/resolution/reports";
import { loopProject, publishedExpertise, sql } from "../activity-support";
import { createKey, joinedMember, nextTurn, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false" });
});
afterAll(() => env.close());

const backdate = (resolutionId: string, ms: number) =>
  sql(env, "UPDATE resolutions SET created_at = created_at - ? WHERE id = ?", [ms, resolutionId]);

describe("GET /web/orgs/current/insights (owner/admin): each item with the ids to fix it", () => {
  test("failed calls by error code and day, with the kinds and projects they came from", async () => {
    const s = await loopProject(env);
    await s.api("POST", "/api/prepare-task", { talentIds: ["nope"] });
    await s.api("POST", "/api/prepare-task", { talentIds: ["nope", "neither"] });
    await s.api("GET", "/api/validation/playbook?resolutionId=res_unknown");
    await s.api("GET", "/api/doctor");
    const r = await s.owner.get("/web/orgs/current/insights");
    expect(r.status).toBe(200);
    expect(r.body.failedCalls.total).toBe(3);
    expect(r.body.failedCalls.byCode).toEqual([
      {
        code: "unknown_talents",
        status: 400,
        count: 2,
        lastAt: expect.any(String),
        byKind: { prepare_task: 2 },
        projects: [{ projectId: s.project.id, projectName: s.project.name, count: 2 }],
      },
      {
        code: "not_found",
        status: 404,
        count: 1,
        lastAt: expect.any(String),
        byKind: { validate: 1 },
        projects: [{ projectId: s.project.id, projectName: s.project.name, count: 1 }],
      },
    ]);
    expect(r.body.failedCalls.byDay).toHaveLength(30);
    expect(r.body.failedCalls.byDay.at(-1)).toMatchObject({ count: 3, byCode: { unknown_talents: 2, not_found: 1 } });
    // the journal names the code of a failed call
    const traces = (await s.owner.get(`/web/projects/${s.project.id}/traces?limit=10`)).body.events;
    expect(traces.find((e: { status: number }) => e.status === 404).detail).toEqual({ error: "not_found" });
  });

  test("a call refused to a key of the project (a scope it lacks → 403, revoked → 401) is a failed call with its code; an unknown key is traced nowhere", async () => {
    const s = await loopProject(env);
    const narrow = await createKey(s.owner, s.project.id, ["doctor"]);
    const asNarrow = await withKey(env, narrow.value, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    expect(asNarrow.status).toBe(403);
    expect((await s.owner.del(`/web/projects/${s.project.id}/keys/${narrow.key.id}`)).status).toBeLessThan(300);
    expect((await withKey(env, narrow.value, "/api/doctor")).status).toBe(401);
    expect((await withKey(env, "tdk_unknown_" + "x".repeat(40), "/api/doctor")).status).toBe(401);
    const r = await s.owner.get("/web/orgs/current/insights");
    const codes = Object.fromEntries(
      r.body.failedCalls.byCode
        .filter((c: { projects: { projectId: string }[] }) => c.projects.some((p) => p.projectId === s.project.id))
        .map((c: { code: string; status: number; count: number; byKind: object }) => [c.code, [c.status, c.count, c.byKind]]),
    );
    expect(codes).toEqual({ insufficient_scope: [403, 1, { prepare_task: 1 }], invalid_token: [401, 1, { doctor: 1 }] });
    const traces = (await s.owner.get(`/web/projects/${s.project.id}/traces?limit=10`)).body.events;
    expect(
      traces
        .filter((e: { status: number }) => e.status >= 400)
        .map((e: { author: { id: string; name: string }; status: number; detail: unknown }) => [
          e.author.id,
          e.author.name,
          e.status,
          e.detail,
        ]),
    ).toEqual([
      [narrow.key.id, "key doctor", 401, { error: "invalid_token" }],
      [narrow.key.id, "key doctor", 403, { error: "insufficient_scope" }],
    ]);
  });

  test(`keys: expired, expiring within 14 days, never used after ${KEY_NEVER_USED_DAYS} days, unused for ${KEY_UNUSED_DAYS} days; revoked and recently used ones are not listed`, async () => {
    const s = await loopProject(env);
    await s.api("GET", "/api/doctor"); // the loop key is used now
    const expiring = await createKey(s.owner, s.project.id, ["doctor"], {
      name: "expiring",
      expiresAt: new Date(Date.now() + 3 * DAY_MS).toISOString(),
    });
    const expired = await createKey(s.owner, s.project.id, ["doctor"], {
      name: "expired",
      expiresAt: new Date(Date.now() + 3 * DAY_MS).toISOString(),
    });
    const never = await createKey(s.owner, s.project.id, ["doctor"], { name: "never" });
    const idle = await createKey(s.owner, s.project.id, ["doctor"], { name: "idle" });
    const fresh = await createKey(s.owner, s.project.id, ["doctor"], { name: "fresh" });
    const revoked = await createKey(s.owner, s.project.id, ["doctor"], { name: "revoked" });
    await s.owner.del(`/web/projects/${s.project.id}/keys/${revoked.key.id}`);
    await sql(env, "UPDATE api_keys SET expires_at = ? WHERE id = ?", [Date.now() - DAY_MS, expired.key.id]);
    await sql(env, "UPDATE api_keys SET created_at = ? WHERE id IN (?, ?, ?)", [
      Date.now() - 40 * DAY_MS,
      never.key.id,
      idle.key.id,
      revoked.key.id,
    ]);
    await sql(env, "UPDATE api_keys SET last_used_at = ? WHERE id = ?", [Date.now() - 31 * DAY_MS, idle.key.id]);
    const r = await s.owner.get("/web/orgs/current/insights");
    expect(r.body.keys.map((k: { reason: string; keyId: string }) => `${k.reason}:${k.keyId}`)).toEqual([
      `expired:${expired.key.id}`,
      `expiring:${expiring.key.id}`,
      `never_used:${never.key.id}`,
      `unused:${idle.key.id}`,
    ]);
    expect(r.body.keys[0]).toMatchObject({
      name: "expired",
      projectId: s.project.id,
      projectName: s.project.name,
      automation: false,
      createdBy: { id: s.owner.userId, email: s.owner.email },
    });
    expect(JSON.stringify(r.body.keys)).not.toContain(fresh.key.id);
  });

  test("projects whose selection has missing prerequisites or conflicts, with doctor's findings; healthy ones are not listed", async () => {
    const s = await loopProject(env);
    const missing = (await s.owner.post("/web/projects", { name: "missing" })).body.project;
    await s.owner.post(`/web/projects/${missing.id}/talents`, { talent: "go-errors" });
    const clash = (await s.owner.post("/web/projects", { name: "clash" })).body.project;
    await s.owner.post(`/web/projects/${clash.id}/talents`, { talents: ["conventional-commits", "git-commit-messages"] });
    const r = await s.owner.get("/web/orgs/current/insights");
    expect(r.body.projects).toEqual([
      expect.objectContaining({
        projectId: clash.id,
        projectName: "clash",
        missingPrerequisites: [],
        conflicts: [{ a: "conventional-commits", b: "git-commit-messages" }],
      }),
      expect.objectContaining({
        projectId: missing.id,
        projectName: "missing",
        missingPrerequisites: [{ id: "go-base", requiredBy: ["go-errors"], inCatalog: true }],
        conflicts: [],
      }),
    ]);
  });

  test(`resolutions served but never audited (no successful playbook fetch), older than ${AUDIT_GRACE_MS / 60_000} minutes: counted per project and per client, the newest listed with their talents`, async () => {
    const s = await loopProject(env);
    const unaudited = await s.prepare(["typescript-strict", "javascript-base"]);
    const audited = await s.prepare(["typescript-strict"]);
    await s.prepare(["javascript-base"]); // a task under way: not yet counted
    await s.api("GET", `/api/validation/playbook?resolutionId=${audited}`);
    await s.api("GET", "/api/validation/playbook?resolutionId=res_unknown");
    await backdate(unaudited, 2 * AUDIT_GRACE_MS);
    await backdate(audited, 2 * AUDIT_GRACE_MS);
    const r = await s.owner.get("/web/orgs/current/insights");
    expect(r.body.neverAudited).toEqual({
      served: 2,
      neverAudited: 1,
      share: 0.5,
      graceMinutes: 60,
      byProject: [{ projectId: s.project.id, projectName: s.project.name, served: 2, neverAudited: 1 }],
      byClient: [{ client: "agent-a/1.0", served: 2, neverAudited: 1 }],
      recent: [
        {
          resolutionId: unaudited,
          projectId: s.project.id,
          projectName: s.project.name,
          createdAt: expect.any(String),
          via: "api",
          author: { type: "key", id: s.keyId },
          client: "agent-a/1.0",
          talents: ["typescript-strict", "javascript-base"],
        },
      ],
    });
    // the page names the tool (src/journal/clients.ts), not its raw label
    const html = await (await s.owner.call("GET", "/org/insights")).text();
    expect(html).toContain("By development tool: agent-a 1/2");
  });

  test("expertises with failing verdicts: counts, the share of resolutions with a verdict, outcomes, and the latest failing report", async () => {
    const s = await loopProject(env);
    const { id, ref } = await publishedExpertise(s.owner, s.org.slug, "ledger");
    await s.api("PATCH", "/api/projects/current/talents", { talent: ref });
    const failed = await s.prepare([ref]);
    const fixed = await s.prepare([ref]);
    await s.prepare([ref]); // no verdict yet
    const fail = { id: ref, verdict: "fail", missing: ["idempotency key"] };
    expect(
      (await s.api("POST", "/api/validation/reports", { submissionId: "f1", resolutionId: failed, expertiseResults: [fail] })).status,
    ).toBe(201);
    const first = await s.api("POST", "/api/validation/reports", {
      submissionId: "x1",
      resolutionId: fixed,
      expertiseResults: [{ ...fail, missing: ["amount in cents"] }],
    });
    expect(
      (
        await s.api("POST", "/api/validation/reports", {
          submissionId: "x2",
          resolutionId: fixed,
          expertiseResults: [{ id: ref, verdict: "pass" }],
        })
      ).status,
    ).toBe(201);
    const r = await s.owner.get("/web/orgs/current/insights");
    expect(r.body.expertises).toEqual([
      {
        expertiseId: id,
        ref,
        status: "active",
        designations: 3,
        withVerdict: 2,
        verdictRate: 0.667,
        verdicts: { pass: 1, fail: 2, not_applicable: 0 },
        outcomes: { pass: 1, fail: 1, not_applicable: 0 },
        lastFail: {
          at: expect.any(String),
          projectId: s.project.id,
          projectName: s.project.name,
          resolutionId: fixed,
          reportId: first.body.reportId,
          evidence: [],
          missing: ["amount in cents"],
          note: null,
        },
      },
    ]);
  });

  test("a member → 403 forbidden; an admin → 200; another organization's data never appears", async () => {
    const s = await loopProject(env);
    const other = await loopProject(env);
    await other.api("POST", "/api/prepare-task", { talentIds: ["nope"] });
    const member = await joinedMember(env, s.owner);
    for (const path of ["/web/orgs/current/insights", "/web/orgs/current/talent-adoption"]) {
      const r = await member.get(path);
      expect(`${path} → ${r.status} ${r.body.error}`).toBe(`${path} → 403 forbidden`);
    }
    await s.owner.patch(`/web/orgs/current/members/${member.userId}`, { role: "admin" });
    const r = await member.get("/web/orgs/current/insights");
    expect(r.status).toBe(200);
    expect(r.body.failedCalls.total).toBe(0);
    expect(JSON.stringify(r.body)).not.toContain(other.project.id);
  });
});

describe("GET /web/orgs/current/talent-adoption (owner/admin): per talent and expertise", () => {
  test("projects installed/active, designations, audit rate, verdict share and outcomes, versions in use vs latest; a published expertise no one uses is listed with zeros", async () => {
    const s = await loopProject(env);
    const second = (await s.owner.post("/web/projects", { name: "second" })).body.project;
    await s.owner.post(`/web/projects/${second.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    await s.owner.patch(`/web/projects/${second.id}/talents/typescript-strict`, { enabled: false });
    const { ref: unused } = await publishedExpertise(s.owner, s.org.slug, "unused", false);
    const r1 = await s.prepare(["typescript-strict"]);
    const r2 = await s.prepare(["typescript-strict", "javascript-base"]);
    await s.api("GET", `/api/validation/playbook?resolutionId=${r1}`);
    await s.report(r1, "a1", "fail");
    await s.report(r1, "a2", "pass");
    await s.report(r2, "b1", "not_applicable");
    const r = await s.owner.get("/web/orgs/current/talent-adoption");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ organizationId: s.org.id, days: 30, projects: 2 });
    const ts = r.body.talents.find((t: { id: string }) => t.id === "typescript-strict");
    const version = env.state.catalog!.get("typescript-strict")!.version;
    expect(ts).toEqual({
      id: "typescript-strict",
      kind: "talent",
      title: env.state.catalog!.get("typescript-strict")!.title,
      expertiseId: null,
      status: null,
      projects: { installed: 2, active: 1 },
      designations: 2,
      audited: 1,
      auditRate: 0.5,
      withVerdict: 2,
      verdictRate: 1,
      verdicts: { pass: 1, fail: 1, not_applicable: 1 },
      outcomes: { pass: 1, fail: 0, not_applicable: 1 },
      latestVersion: version,
      versions: [{ version, latest: true, designations: 2, lastServedAt: expect.any(String) }],
      lastUsedAt: expect.any(String),
    });
    expect(r.body.talents[0].id).toBe("typescript-strict"); // the most designated first
    expect(r.body.talents.find((t: { id: string }) => t.id === "javascript-base")).toMatchObject({
      projects: { installed: 2, active: 2 },
      designations: 1,
      audited: 0,
      auditRate: 0,
      withVerdict: 0,
      verdictRate: 0,
    });
    expect(r.body.talents.find((t: { id: string }) => t.id === unused)).toMatchObject({
      kind: "expertise",
      status: "published",
      projects: { installed: 0, active: 0 },
      designations: 0,
      auditRate: null,
      latestVersion: "1",
      versions: [],
    });
  });

  test("an expertise served at v1, then published as v2: versions in use show v1 as not the latest", async () => {
    const s = await loopProject(env);
    const { id, ref } = await publishedExpertise(s.owner, s.org.slug, "versions");
    await s.api("PATCH", "/api/projects/current/talents", { talent: ref });
    await s.prepare([ref]);
    const detail = (await s.owner.get(`/web/orgs/current/expertises/${id}`)).body;
    const content = String(detail.working.content).replace("Do the thing well.", "Do the thing better.");
    expect((await s.owner.patch(`/web/orgs/current/expertises/${id}`, { expectedRevision: detail.revision, content })).status).toBe(200);
    expect((await s.owner.post(`/web/orgs/current/expertises/${id}/publish`)).status).toBe(200);
    await s.prepare([ref]);
    const r = await s.owner.get("/web/orgs/current/talent-adoption");
    const e = r.body.talents.find((t: { id: string }) => t.id === ref);
    expect(e).toMatchObject({ kind: "expertise", expertiseId: id, status: "active", latestVersion: "2", designations: 2 });
    expect(
      e.versions.map((v: { version: string; latest: boolean; designations: number }) => [v.version, v.latest, v.designations]).sort(),
    ).toEqual([
      ["1", false, 1],
      ["2", true, 1],
    ]);
  });
});

describe("insights and adoption memoize settled days (src/journal/dayMemo.ts; the 1,000,000-event figure) and never serve a stale one", () => {
  /** A resolution made on a past day, as prepare-task would have made it then (its id carries its time). */
  async function pastResolution(s: Awaited<ReturnType<typeof loopProject>>, daysAgo: number): Promise<string> {
    const fresh = await s.prepare(["typescript-strict"]);
    const at = Date.now() - daysAgo * DAY_MS;
    const id = `res_${orderedId(at, 4242)}`;
    // serving the same items: the same designation (migration 0009)
    await sql(
      env,
      "INSERT INTO resolutions SELECT ?, project_id, language, tokens, catalog_digest, author_type, author_id, via, ?, designation_id, attestation, signature, issuer, claims FROM resolutions WHERE id = ?",
      [id, at, fresh],
    );
    return id; // beside today's, which stays (the journal names it)
  }
  const strict = (body: {
    talents: { id: string; designations: number; audited: number; withVerdict: number; outcomes: { pass: number; fail: number } }[];
  }) => body.talents.find((t) => t.id === "typescript-strict");

  test("(today's resolution beside it) a late audit and a late report of a past day's resolution show at once in adoption and insights (the day is read again); a deleted project leaves both", async () => {
    const s = await loopProject(env);
    const id = await pastResolution(s, 3);
    const adoption = async () => strict((await s.owner.get("/web/orgs/current/talent-adoption")).body);
    const never = async () =>
      (await s.owner.get("/web/orgs/current/insights")).body.neverAudited as { served: number; neverAudited: number };
    expect(await adoption()).toMatchObject({ designations: 2, audited: 0, withVerdict: 0 });
    expect(await never()).toMatchObject({ served: 1, neverAudited: 1 }); // today's is within the grace period
    // read twice: the second answer comes from the memo and is the same
    expect(await adoption()).toMatchObject({ designations: 2, audited: 0 });
    // the playbook is fetched three days late: audited now
    expect((await s.api("GET", `/api/validation/playbook?resolutionId=${id}`)).status).toBe(200);
    expect(await adoption()).toMatchObject({ designations: 2, audited: 1, withVerdict: 0 });
    expect(await never()).toMatchObject({ served: 1, neverAudited: 0 });
    // a report arrives: its verdict counts
    expect((await s.report(id, "late-1", "fail")).status).toBe(201);
    expect(await adoption()).toMatchObject({ withVerdict: 1, outcomes: { pass: 0, fail: 1 } });
    // a second project of the organization with its own past resolution, then deleted: gone from both
    const other = (await s.owner.post("/web/projects", { name: "Short-lived" })).body.project;
    await s.owner.post(`/web/projects/${other.id}/talents`, { talents: ["typescript-strict"] });
    const otherId = `res_${orderedId(Date.now() - 3 * DAY_MS, 4343)}`;
    // the other project's own designation of the same items (a designation belongs to one project)
    // (its items first, as the service writes them: the resolution's insert counts them in talent_days)
    await sql(
      env,
      "INSERT INTO designation_items SELECT ?, d.position, ?, d.talent_id, d.kind, d.version, d.digest, d.definition_digest, d.files, d.expertise_id FROM designation_items d JOIN resolutions r ON r.designation_id = d.designation_id WHERE r.id = ?",
      [otherId, other.id, id],
    );
    await sql(
      env,
      "INSERT INTO resolutions SELECT ?, ?, language, tokens, catalog_digest, author_type, author_id, via, created_at, ?, attestation, signature, issuer, claims FROM resolutions WHERE id = ?",
      [otherId, other.id, otherId, id],
    );
    forgetMemo(); // rows written behind the service's back (the test's SQL): read afresh once
    expect(await adoption()).toMatchObject({ designations: 3 });
    expect((await s.owner.del(`/web/projects/${other.id}`)).status).toBe(200);
    expect(await adoption()).toMatchObject({ designations: 2, audited: 1 });
  });

  test("the write invalidates, not the route: a late report recorded by the service function itself (no route) shows at once in adoption", async () => {
    const s = await loopProject(env);
    const id = await pastResolution(s, 3);
    const adoption = async () => strict((await s.owner.get("/web/orgs/current/talent-adoption")).body);
    expect((await s.api("GET", `/api/validation/playbook?resolutionId=${id}`)).status).toBe(200);
    expect(await adoption()).toMatchObject({ audited: 1, withVerdict: 0 });
    expect(await adoption()).toMatchObject({ audited: 1, withVerdict: 0 }); // kept
    const body = { submissionId: "direct-1", resolutionId: id, expertiseResults: [{ id: "typescript-strict", verdict: "pass" }] };
    expect((await recordReport(env.database, s.project.id, { type: "key", id: s.keyId, via: "api" }, body)).status).toBe(201);
    await nextTurn(); // a later request
    expect(await adoption()).toMatchObject({ withVerdict: 1, outcomes: { pass: 1, fail: 0 } });
  });

  test("the write invalidates, not the route: a project deleted by the service function itself (as the CLI or housekeeping would) leaves adoption at once", async () => {
    const s = await loopProject(env);
    const id = await pastResolution(s, 3);
    const adoption = async () => strict((await s.owner.get("/web/orgs/current/talent-adoption")).body);
    const other = (await s.owner.post("/web/projects", { name: "Removed by the service" })).body.project;
    const otherId = `res_${orderedId(Date.now() - 3 * DAY_MS, 4444)}`;
    await sql(
      env,
      "INSERT INTO designation_items SELECT ?, d.position, ?, d.talent_id, d.kind, d.version, d.digest, d.definition_digest, d.files, d.expertise_id FROM designation_items d JOIN resolutions r ON r.designation_id = d.designation_id WHERE r.id = ?",
      [otherId, other.id, id],
    );
    await sql(
      env,
      "INSERT INTO resolutions SELECT ?, ?, language, tokens, catalog_digest, author_type, author_id, via, created_at, ?, attestation, signature, issuer, claims FROM resolutions WHERE id = ?",
      [otherId, other.id, otherId, id],
    );
    forgetMemo(); // rows written behind the service's back (the test's SQL): read afresh once
    expect(await adoption()).toMatchObject({ designations: 3 });
    expect(await adoption()).toMatchObject({ designations: 3 }); // kept
    await removeProject(env.database, s.org.id, other.id, SYSTEM_ACTOR);
    expect(await adoption()).toMatchObject({ designations: 2 });
  });

  test("projects at fault are judged again when a selection changes (selection_rev), a project is renamed, or an expertise stops being servable", async () => {
    const s = await loopProject(env);
    const ref = (await publishedExpertise(s.owner, s.org.slug, "judged")).ref;
    expect((await s.owner.post(`/web/projects/${s.project.id}/talents`, { talents: [ref] })).status).toBe(201);
    const atFault = async () =>
      (await s.owner.get("/web/orgs/current/insights")).body.projects as {
        projectName: string;
        disabledDependencies: { id: string }[];
        unservable: { id: string }[];
      }[];
    expect(await atFault()).toEqual([]);
    expect((await s.owner.patch(`/web/projects/${s.project.id}/talents/javascript-base`, { enabled: false })).status).toBe(200);
    expect((await atFault())[0]!.disabledDependencies.map((d) => d.id)).toEqual(["javascript-base"]);
    expect((await s.owner.patch(`/web/projects/${s.project.id}`, { name: "Renamed at fault" })).status).toBe(200);
    expect((await atFault())[0]!.projectName).toBe("Renamed at fault");
    expect((await s.owner.patch(`/web/projects/${s.project.id}/talents/javascript-base`, { enabled: true })).status).toBe(200);
    expect(await atFault()).toEqual([]);
    const id = (await s.owner.get("/web/orgs/current/expertises")).body.expertises[0].id;
    expect((await s.owner.post(`/web/orgs/current/expertises/${id}/deactivate`)).status).toBe(200);
    expect((await atFault())[0]!.unservable.map((u) => u.id)).toEqual([ref]);
  });
});

describe("the pages /org/insights and /org/talent-adoption keep what they drew only while their answers are the same (nothing committed since)", () => {
  test("a failed call, a designation and its audit show at the next view of each page", async () => {
    const s = await loopProject(env);
    const html = async (path: string) => {
      const r = await s.owner.call("GET", path, undefined, { accept: "text/html" });
      expect(r.status).toBe(200);
      return r.text();
    };
    const failed = (h: string) => Number(/<strong>(\d+)<\/strong> failed calls/.exec(h)?.[1] ?? 0);
    // the adoption table's cells of a talent: installed, active, designations, audit rate, …
    const cells = (h: string, id: string) =>
      [...(new RegExp(`<code>${id}</code>.*?</tr>`, "s").exec(h)?.[0] ?? "").matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(failed(await html("/org/insights"))).toBe(0);
    expect(failed(await html("/org/insights"))).toBe(0);
    await s.api("POST", "/api/prepare-task", { talentIds: ["nope"] });
    expect(failed(await html("/org/insights"))).toBe(1);
    expect(cells(await html("/org/talent-adoption"), "typescript-strict").slice(0, 4)).toEqual(["1", "1", "0", "—"]);
    const resolutionId = await s.prepare(["typescript-strict"]);
    expect(cells(await html("/org/talent-adoption"), "typescript-strict").slice(0, 4)).toEqual(["1", "1", "1", "0 %"]);
    expect((await s.api("GET", `/api/validation/playbook?resolutionId=${resolutionId}`)).status).toBe(200);
    expect(cells(await html("/org/talent-adoption"), "typescript-strict").slice(0, 4)).toEqual(["1", "1", "1", "100 %"]);
    expect(failed(await html("/org/insights"))).toBe(1);
  });
});
