import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, expertiseMd, orgWithProject, publishedExpertise, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

async function setup() {
  const o = await orgWithProject(env);
  const key = (await createKey(o.owner, o.project.id, ALL)).value;
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await withKey(env, key, path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
  return { ...o, key, api };
}

/** Creates an expertise, confirms triggers, publishes v1, activates it. */
const publishedIn = (s: Awaited<ReturnType<typeof setup>>, slug: string) => publishedExpertise(s.owner, s.org.slug, slug);

describe("private expertises in the agent loop", () => {
  test("end to end: create → confirm triggers → publish v1 → activate → install → prepare (compact of v1) → publish v2 → old resolution pins v1, a new one gets v2 → playbook requires a verdict → a report missing it is 400, a complete one records, replay is idempotent", async () => {
    const s = await setup();
    await s.owner.post(`/web/projects/${s.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const { id, ref } = await publishedIn(s, "payments");
    const inst = await s.api("PATCH", "/api/projects/current/talents", { talent: ref });
    expect(inst.body.installed).toEqual([ref]);
    const designable = await s.api("GET", "/api/prepare-task/designable");
    expect(designable.body.talents.find((t: { id: string }) => t.id === ref)).toMatchObject({ kind: "expertise", version: "1" });

    const p1 = await s.api("POST", "/api/prepare-task", { talentIds: [ref, "typescript-strict"] });
    expect(p1.status).toBe(201);
    const served = p1.body.talents[0];
    expect(served).toMatchObject({ id: ref, kind: "expertise", version: "1", uri: `talent://${ref}` });
    expect(served.compact).toContain("# Payments payments");
    expect(served.compact).toContain("[PAY-001] (blocking)");
    expect(served.compact).toContain("Use the ledger.");

    // a new working version, published as v2
    const detail = await s.owner.get(`/web/orgs/current/expertises/${id}`);
    const edit = await s.owner.patch(`/web/orgs/current/expertises/${id}`, {
      expectedRevision: detail.body.revision,
      content: expertiseMd("payments", `Use the ledger v2. See [the runbook](talent://${ref}/runbook.md).`),
      files: { "runbook.md": "# Runbook\nv2 runbook\n" },
    });
    expect(edit.status).toBe(200);
    expect((await s.owner.post(`/web/orgs/current/expertises/${id}/publish`)).status).toBe(200);

    const book1 = await s.api("GET", `/api/validation/playbook?resolutionId=${p1.body.resolutionId}`);
    expect(book1.body.obligations[0]).toMatchObject({ id: ref, kind: "expertise", version: "1", verdictRequired: true, blocking: 2 });
    expect(book1.body.obligations[1]).toMatchObject({ id: "typescript-strict", verdictRequired: false });
    expect(book1.body.verdictsRequired).toEqual([ref]);
    const pinnedRunbook = await s.api("POST", "/api/talents/get", {
      resolutionId: p1.body.resolutionId,
      uri: `talent://${ref}/runbook.md`,
    });
    expect(pinnedRunbook.body.files[0]).toMatchObject({ content: "# Runbook\nv1 runbook\n", pinned: true });

    const p2 = await s.api("POST", "/api/prepare-task", { talentIds: [ref] });
    expect(p2.body.talents[0].version).toBe("2");
    expect(p2.body.talents[0].compact).toContain("Use the ledger v2.");

    const missing = await s.api("POST", "/api/validation/reports", {
      submissionId: "r1",
      resolutionId: p1.body.resolutionId,
      expertiseResults: [{ id: "typescript-strict", verdict: "pass" }],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.missing).toEqual([ref]);
    const failNoEvidence = await s.api("POST", "/api/validation/reports", {
      submissionId: "r1",
      resolutionId: p1.body.resolutionId,
      expertiseResults: [{ id: ref, verdict: "fail" }],
    });
    expect(failNoEvidence.status).toBe(400);

    // the first exhaustive report, before fixing
    const first = {
      submissionId: "r1",
      resolutionId: p1.body.resolutionId,
      expertiseResults: [{ id: ref, verdict: "fail", evidence: ["src/payments/charge.ts:42"], missing: ["idempotency key on refund"] }],
    };
    const rec = await s.api("POST", "/api/validation/reports", first);
    expect(rec.status).toBe(201);
    expect(rec.body).toMatchObject({ expertiseVerdicts: 1, failing: [ref] });
    expect((await s.api("POST", "/api/validation/reports", first)).body.replayed).toBe(true);
    // after the fix, a second report with a new submissionId
    const second = await s.api("POST", "/api/validation/reports", {
      submissionId: "r2",
      resolutionId: p1.body.resolutionId,
      expertiseResults: [{ id: ref, verdict: "pass" }],
    });
    expect(second.status).toBe(201);
    const reports = await s.owner.get(`/web/projects/${s.project.id}/resolutions/${p1.body.resolutionId}/reports`);
    expect(reports.body.reports.map((r: { submissionId: string }) => r.submissionId)).toEqual(["r1", "r2"]);
  });

  test("an expertise's files are readable at its published version while the project has it enabled, else only through a resolution that pinned it", async () => {
    const s = await setup();
    await s.owner.post(`/web/projects/${s.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const { ref } = await publishedIn(s, "ledger");
    // not installed: nothing of it is readable (an expertise has no preview)
    expect((await s.api("POST", "/api/talents/get", { uri: `talent://${ref}` })).status).toBe(404);
    await s.api("PATCH", "/api/projects/current/talents", { talent: ref });
    const main = await s.api("POST", "/api/talents/get", { uri: `talent://${ref}` });
    expect(main.status).toBe(200);
    expect(main.body.files[0]).toMatchObject({ uri: `talent://${ref}`, pinned: false });
    expect(main.body.files[0].content).toContain("PAY-001");
    expect((await s.api("POST", "/api/talents/get", { uri: `talent://${ref}/runbook.md` })).status).toBe(200);
    // disabled: readable only through a resolution that pinned it
    const p = await s.api("POST", "/api/prepare-task", { talentIds: [ref] });
    await s.owner.patch(`/web/projects/${s.project.id}/talents/${encodeURIComponent(ref)}`, { enabled: false });
    const off = await s.api("POST", "/api/talents/get", { uri: `talent://${ref}` });
    expect(`${off.status} ${off.body.error}`).toBe("404 not_found");
    const pinned = await s.api("POST", "/api/talents/get", { resolutionId: p.body.resolutionId, uri: `talent://${ref}` });
    expect(pinned.body.files[0].pinned).toBe(true);
  });

  test("deactivated or deleted: no longer designable nor installable; existing resolutions still audit against what they pinned", async () => {
    const s = await setup();
    await s.owner.post(`/web/projects/${s.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const { id, ref } = await publishedIn(s, "refunds");
    await s.api("PATCH", "/api/projects/current/talents", { talent: ref });
    const p = await s.api("POST", "/api/prepare-task", { talentIds: [ref] });
    expect((await s.owner.post(`/web/orgs/current/expertises/${id}/deactivate`)).status).toBe(200);
    const designable = await s.api("GET", "/api/prepare-task/designable");
    expect(designable.body.talents.map((t: { id: string }) => t.id)).not.toContain(ref);
    const refused = await s.api("POST", "/api/prepare-task", { talentIds: [ref] });
    expect(refused.body).toMatchObject({ error: "unknown_talents", ids: [ref] });
    const doctor = await s.api("GET", "/api/doctor");
    expect(doctor.body.unservable).toEqual([{ id: ref, kind: "expertise", reason: "no longer an active published expertise" }]);
    const book = await s.api("GET", `/api/validation/playbook?resolutionId=${p.body.resolutionId}&talent=${encodeURIComponent(ref)}`);
    expect(book.status).toBe(200);
    expect(book.body.detail.rules.map((r: { id: string }) => r.id)).toEqual(["PAY-001", "PAY-002", "PAY-003"]);
    expect(
      (
        await s.api("POST", "/api/validation/reports", {
          submissionId: "x",
          resolutionId: p.body.resolutionId,
          expertiseResults: [{ id: ref, verdict: "pass" }],
        })
      ).status,
    ).toBe(201);
    expect((await s.owner.del(`/web/orgs/current/expertises/${id}`)).status).toBe(200);
    expect((await s.api("PATCH", "/api/projects/current/talents", { talents: [ref] })).body.error).toBe("unknown_talents");
    expect((await s.api("GET", `/api/validation/playbook?resolutionId=${p.body.resolutionId}`)).body.obligations[0].id).toBe(ref);
    // search within the resolution still finds what it served, deactivated and deleted as it is now
    const found = await s.api("GET", `/api/search?query=refunds&scope=resolution&resolutionId=${p.body.resolutionId}`);
    expect(found.status).toBe(200);
    expect(found.body.results.map((r: { id: string }) => r.id)).toEqual([ref]);
  });

  test("another organization's expertise cannot be installed (unknown_talents)", async () => {
    const a = await setup();
    const b = await setup();
    const { ref } = await publishedIn(a, "secret-sauce");
    const r = await b.api("PATCH", "/api/projects/current/talents", { talent: ref });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: "unknown_talents", ids: [ref] });
  });

  test("the web selection manages expertises by reference (@org/slug in the path)", async () => {
    const s = await setup();
    const { ref } = await publishedIn(s, "payouts");
    expect((await s.owner.post(`/web/projects/${s.project.id}/talents`, { talent: ref })).status).toBe(201);
    expect((await s.owner.patch(`/web/projects/${s.project.id}/talents/${ref}`, { enabled: false })).body.state).toBe("disabled");
    expect((await s.owner.patch(`/web/projects/${s.project.id}/talents/${encodeURIComponent(ref)}`, { enabled: true })).body.state).toBe(
      "active",
    );
    const installed = (await s.owner.get(`/web/projects/${s.project.id}/installed`)).body.talents;
    expect(installed[0]).toMatchObject({
      id: ref,
      kind: "expertise",
      state: "active",
      version: "1",
      missingDependencies: ["typescript-strict"],
    });
    expect((await s.owner.del(`/web/projects/${s.project.id}/talents/${ref}`)).status).toBe(200);
  });
});
