import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { selfSignedCert } from "../cert-support";
import { approveSsoDomains, createKey, orgWithProject, publishedExpertise, signedUp, testEnv, withKey, type TestEnv } from "../helpers";
import { scenarioTable } from "../scenarios";

let env: TestEnv;
const BETA_CERT = selfSignedCert("beta-idp").cert;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

/** Organization A (a project, a key, a member, a pending invitation) and organization B, whose owner tries A's ids. */
async function twoOrganizations() {
  const a = await orgWithProject(env, "Alpha");
  const b = await orgWithProject(env, "Beta");
  const aMember = await signedUp(env);
  const aInvite = (await a.owner.post("/web/orgs/current/invitations", { email: aMember.email })).body;
  await aMember.post(`/web/invitations/${aInvite.id}/accept`);
  const aPending = (await a.owner.post("/web/orgs/current/invitations", { email: "someone@example.com" })).body;
  const aKey = await createKey(a.owner, a.project.id, ["catalog"]);
  const secretsOfA = [a.project.id, a.project.name, aKey.key.id, aMember.email, a.owner.email, "someone@example.com"];
  const ids = {
    aProject: a.project.id,
    bProject: b.project.id,
    aKey: aKey.key.id,
    aMember: aMember.userId,
    aPending: aPending.id,
    aOrg: a.org.id,
  };
  return { env, clients: { b: b.owner }, ids, a, b, aKey, secretsOfA };
}

const B_ON_A = (status: 404 | 403) => ({ as: "b", status, code: status === 404 ? "not_found" : "forbidden" }) as const;

describe("two organizations: a member of B on A's ids gets 404 (or 403 where the spec says), never data", () => {
  scenarioTable(
    "every /web route of identity, tenancy, projects and keys",
    twoOrganizations,
    [
      { method: "GET", path: "/web/projects/{aProject}", ...B_ON_A(404) },
      { method: "DELETE", path: "/web/projects/{aProject}", ...B_ON_A(404) },
      { method: "GET", path: "/web/projects/{aProject}/keys", ...B_ON_A(404) },
      { method: "POST", path: "/web/projects/{aProject}/keys", body: { name: "steal", tools: ["catalog"] }, ...B_ON_A(404) },
      { method: "DELETE", path: "/web/projects/{aProject}/keys/{aKey}", ...B_ON_A(404) },
      { method: "DELETE", path: "/web/projects/{bProject}/keys/{aKey}", ...B_ON_A(404) },
      { method: "PATCH", path: "/web/orgs/current/members/{aMember}", body: { role: "admin" }, ...B_ON_A(404) },
      { method: "DELETE", path: "/web/orgs/current/members/{aMember}", ...B_ON_A(404) },
      { method: "DELETE", path: "/web/orgs/current/invitations/{aPending}", ...B_ON_A(404) },
      { method: "POST", path: "/web/orgs/current/invitations/{aPending}/resend", ...B_ON_A(404) },
      { method: "POST", path: "/web/orgs/active", body: { organizationId: "{aOrg}" }, ...B_ON_A(404) },
      { method: "POST", path: "/web/invitations/{aPending}/accept", ...B_ON_A(403) },
      { method: "GET", path: "/web/admin/organizations", ...B_ON_A(403) },
      { method: "POST", path: "/web/admin/organizations/{aOrg}/suspend", ...B_ON_A(403) },
      { method: "GET", path: "/web/admin/users", ...B_ON_A(403) },
      { method: "GET", path: "/web/admin/security-events", ...B_ON_A(403) },
    ],
    {
      every: (r, s) => {
        const text = JSON.stringify(r.body);
        for (const secret of s.secretsOfA) expect(text.includes(secret)).toBe(false);
      },
      after: [
        "…B's own listings never show A's data, and nothing of A changed",
        async ({ a, b, aKey, secretsOfA }) => {
          for (const path of [
            "/web/projects",
            "/web/orgs",
            "/web/orgs/current/members",
            "/web/orgs/current/invitations",
            `/web/projects/${b.project.id}/keys`,
          ]) {
            const text = JSON.stringify((await b.owner.get(path)).body);
            for (const s of secretsOfA) expect(`${path}: ${text.includes(s)}`).toBe(`${path}: false`);
          }
          expect((await a.owner.get(`/web/projects/${a.project.id}`)).status).toBe(200);
          expect((await a.owner.get(`/web/projects/${a.project.id}/keys`)).body.keys[0].status).toBe("active");
          expect((await withKey(env, aKey.value, "/api/catalog")).status).toBe(200);
          expect((await a.owner.get("/web/orgs/current/members")).body.members).toHaveLength(2);
          expect((await a.owner.get("/web/orgs/current/invitations")).body.invitations).toHaveLength(1);
        },
      ],
    },
  );

  test("the organization's mail (/web/orgs/current/mail, retry): B never sees A's failed mail and cannot retry it (404); a member of A gets 403", async () => {
    const a = await orgWithProject(env, "Mail Alpha");
    const b = await orgWithProject(env, "Mail Beta");
    const aMember = await signedUp(env);
    const inv = (await a.owner.post("/web/orgs/current/invitations", { email: aMember.email })).body;
    await aMember.post(`/web/invitations/${inv.id}/accept`);
    await env.database.client.execute({
      sql: "INSERT INTO mail_outbox (id, organization_id, kind, to_address, subject, body, status, attempts, next_attempt_at, created_at, error) VALUES ('mail_ofmu', ?, 'invitation', 'secret.invitee@example.com', 'Join Mail Alpha on talentd', 'body', 'failed', 8, 0, ?, 'SMTP 550: refused')",
      args: [a.org.id, Date.now()],
    });
    const listed = await b.owner.get("/web/orgs/current/mail?status=failed");
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain("secret.invitee@example.com");
    const retry = await b.owner.post("/web/orgs/current/mail/mail_ofmu/retry");
    expect(retry.status).toBe(404);
    expect(retry.body.error).toBe("not_found");
    expect(JSON.stringify(retry.body)).not.toContain("secret.invitee");
    expect((await aMember.get("/web/orgs/current/mail")).status).toBe(403);
    expect((await aMember.post("/web/orgs/current/mail/mail_ofmu/retry")).status).toBe(403);
    // A's owner sees it, untouched
    const own = (await a.owner.get("/web/orgs/current/mail")).body.mails;
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({ id: "mail_ofmu", to: "secret.invitee@example.com", status: "failed", attempts: 8 });
  });

  test("the selection, traces and reports routes: B on A's project or resolution → 404, never data; bad queries → 400", async () => {
    const a = await orgWithProject(env, "Eta");
    const b = await orgWithProject(env, "Theta");
    await a.owner.post(`/web/projects/${a.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const key = await createKey(a.owner, a.project.id, ["prepare_task"]);
    const prep = await withKey(env, key.value, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    const rid = (await prep.json()).resolutionId as string;
    const cases: [string, string, unknown][] = [
      ["GET", `/web/projects/${a.project.id}/installed`, undefined],
      ["POST", `/web/projects/${a.project.id}/talents`, { talent: "sql-base" }],
      ["PATCH", `/web/projects/${a.project.id}/talents/typescript-strict`, { enabled: false }],
      ["DELETE", `/web/projects/${a.project.id}/talents/typescript-strict`, undefined],
      ["GET", `/web/projects/${a.project.id}/traces`, undefined],
      ["GET", `/web/projects/${a.project.id}/resolutions/${rid}/reports`, undefined],
      ["GET", `/web/projects/${b.project.id}/resolutions/${rid}/reports`, undefined],
    ];
    for (const [method, path, body] of cases) {
      const r = await b.owner.json(method, path, body);
      expect(`${method} ${path} → ${r.status}`).toBe(`${method} ${path} → 404`);
      expect(`${method} ${path} → ${r.body.error}`).toBe(`${method} ${path} → not_found`);
      expect(JSON.stringify(r.body)).not.toContain("typescript-strict");
    }
    // nothing of A changed
    const installed = (await a.owner.get(`/web/projects/${a.project.id}/installed`)).body.talents;
    expect(installed.map((t: { id: string; state: string }) => `${t.id}:${t.state}`).sort()).toEqual([
      "javascript-base:active",
      "typescript-strict:active",
    ]);
    for (const q of ["limit=0", "limit=999", "limit=abc"]) {
      const r = await a.owner.get(`/web/projects/${a.project.id}/traces?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
    }
    const noResolution = await a.owner.get(`/web/projects/${a.project.id}/resolutions/res_nope/reports`);
    expect(noResolution.status).toBe(404);
    expect(noResolution.body.error).toBe("not_found");
    for (const body of [{ talents: [] }, { talent: 42 }]) {
      const r = await a.owner.post(`/web/projects/${a.project.id}/talents`, body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
    }
  });

  test("the activity, insights and adoption routes: B on A's project → 404, never data; B's organization-wide answers hold nothing of A", async () => {
    const a = await orgWithProject(env, "Iota");
    const b = await orgWithProject(env, "Kappa");
    await a.owner.post(`/web/projects/${a.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const key = await createKey(a.owner, a.project.id, ["prepare_task", "validate", "record_validation"]);
    const call = (path: string, body?: unknown) =>
      withKey(
        env,
        key.value,
        path,
        body === undefined
          ? {}
          : { method: "POST", headers: { "content-type": "application/json", "user-agent": "alpha-agent/1" }, body: JSON.stringify(body) },
      );
    const rid = (await (await call("/api/prepare-task", { talentIds: ["typescript-strict"] })).json()).resolutionId as string;
    await call("/api/prepare-task", { talentIds: ["nope"] });
    await call("/api/validation/reports", {
      submissionId: "iso",
      resolutionId: rid,
      expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["a.ts:1"] }],
    });
    const secretsOfA = [a.project.id, a.project.name, rid, "alpha-agent/1", key.key.id];
    for (const path of [
      `/web/projects/${a.project.id}/traces/summary`,
      `/web/projects/${a.project.id}/talents/typescript-strict/usage`,
      `/web/projects/${a.project.id}/talents/${encodeURIComponent(`@${a.org.slug}/x`)}/usage`,
    ]) {
      const r = await b.owner.get(path);
      expect(`${path} → ${r.status} ${r.body.error}`).toBe(`${path} → 404 not_found`);
      for (const x of secretsOfA) expect(JSON.stringify(r.body).includes(x)).toBe(false);
    }
    // an expertise ref of A in B's own project is unknown there
    const ref = await b.owner.get(`/web/projects/${b.project.id}/talents/@${a.org.slug}/x/usage`);
    expect(ref.status).toBe(404);
    for (const path of [
      "/web/activity/summary",
      "/web/orgs/current/insights",
      "/web/orgs/current/talent-adoption",
      `/web/projects/${b.project.id}/traces/summary`,
      `/web/projects/${b.project.id}/talents/typescript-strict/usage`,
    ]) {
      const r = await b.owner.get(path);
      expect(`${path} → ${r.status}`).toBe(`${path} → 200`);
      const text = JSON.stringify(r.body);
      for (const x of secretsOfA) expect(`${path}: ${x} ${text.includes(x)}`).toBe(`${path}: ${x} false`);
    }
    const bInsights = (await b.owner.get("/web/orgs/current/insights")).body;
    expect(bInsights.failedCalls.total).toBe(0);
    expect((await b.owner.get("/web/activity/summary")).body.totals).toMatchObject({ resolutions: 0, reports: 0 });
    expect(
      (await b.owner.get("/web/orgs/current/talent-adoption")).body.talents.every((t: { designations: number }) => t.designations === 0),
    ).toBe(true);
    // A sees its own
    expect((await a.owner.get(`/web/projects/${a.project.id}/traces/summary`)).body.totals).toMatchObject({
      resolutions: 1,
      reports: 1,
      failed: 1,
    });
  });

  test("mass assignment: organizationId posted with a project is ignored (the project lands in the active organization)", async () => {
    const a = await orgWithProject(env, "Gamma");
    const b = await orgWithProject(env, "Delta");
    const r = await b.owner.post("/web/projects", { name: "planted", organizationId: a.org.id });
    expect(r.status).toBe(201);
    expect(r.body.project.organizationId).toBe(b.org.id);
    expect((await a.owner.get("/web/projects")).body.projects.map((p: { name: string }) => p.name)).not.toContain("planted");
  });

  test("a member (not admin) cannot delete a project (403); the owner can, and it cascades", async () => {
    const a = await orgWithProject(env, "Epsilon");
    const m = await signedUp(env);
    const inv = (await a.owner.post("/web/orgs/current/invitations", { email: m.email })).body;
    await m.post(`/web/invitations/${inv.id}/accept`);
    const refused = await m.del(`/web/projects/${a.project.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("forbidden");
    await createKey(a.owner, a.project.id, ["doctor"]);
    expect((await a.owner.del(`/web/projects/${a.project.id}`)).status).toBe(200);
    expect((await a.owner.get(`/web/projects/${a.project.id}`)).status).toBe(404);
    expect((await a.owner.del(`/web/projects/${a.project.id}`)).status).toBe(404);
  });

  test("project routes: a bad body → 400; an unknown project → 404", async () => {
    const a = await orgWithProject(env, "Zeta");
    for (const body of [{ name: "" }, {}]) {
      const r = await a.owner.post("/web/projects", body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
    }
    const unknown = await a.owner.get("/web/projects/prj_nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("not_found");
  });

  test("the catalog, specialization, expertise and resolution routes: B on A's project, specialization, expertise or resolution → 404 (as unknown), never data; B's listings never show A's", async () => {
    const a = await orgWithProject(env, "Lambda");
    const b = await orgWithProject(env, "Mu");
    await a.owner.post(`/web/projects/${a.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const { ref } = await publishedExpertise(a.owner, a.org.slug, "iota-secret");
    const spec = (await a.owner.post("/web/specializations", { name: "Iota stack", talents: ["go-base"] })).body.specialization as {
      id: string;
    };
    await a.owner.put("/web/orgs/current/code-hosting", { provider: "github", url: "https://github.com/iota" });
    const key = await createKey(a.owner, a.project.id, ["prepare_task"]);
    const rid = (
      await (
        await withKey(env, key.value, "/api/prepare-task", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ talentIds: ["typescript-strict"] }),
        })
      ).json()
    ).resolutionId as string;
    const secretsOfA = [a.project.id, "Iota stack", spec.id, ref, "github.com/iota", rid];
    const cases: [string, string, unknown][] = [
      ["GET", `/web/catalog?project=${a.project.id}`, undefined],
      ["GET", `/web/catalog/typescript-strict?project=${a.project.id}`, undefined],
      ["GET", `/web/catalog/${ref}`, undefined],
      ["GET", `/web/specializations/${spec.id}`, undefined],
      ["PATCH", `/web/specializations/${spec.id}`, { name: "mine" }],
      ["DELETE", `/web/specializations/${spec.id}`, undefined],
      ["POST", `/web/specializations/${spec.id}/duplicate`, {}],
      ["POST", `/web/projects/${a.project.id}/apply-specialization`, { specializationId: "go-service" }],
      ["POST", `/web/projects/${b.project.id}/apply-specialization`, { specializationId: spec.id }],
      ["GET", `/web/projects/${a.project.id}/relevance`, undefined],
      ["PUT", `/web/projects/${a.project.id}/relevance`, { languages: ["go"] }],
      ["DELETE", `/web/projects/${a.project.id}/relevance`, undefined],
      ["GET", `/web/projects/${a.project.id}/setup`, undefined],
      ["POST", `/web/projects/${a.project.id}/token`, {}],
      ["POST", `/web/projects/${a.project.id}/file`, { uri: "talent://typescript-strict" }],
      ["POST", `/web/projects/${b.project.id}/file`, { uri: "talent://typescript-strict", resolutionId: rid }],
      ["PATCH", `/web/projects/${a.project.id}`, { name: "taken" }],
    ];
    for (const [method, path, body] of cases) {
      const r = await b.owner.json(method, path, body);
      expect(`${method} ${path} → ${r.status} ${r.body.error}`).toBe(`${method} ${path} → 404 not_found`);
      const text = JSON.stringify(r.body);
      // what B sent may be echoed in the message; nothing else of A may appear
      for (const x of secretsOfA)
        if (!path.includes(x) && !JSON.stringify(body ?? "").includes(x)) expect(`${path}: ${text.includes(x)}`).toBe(`${path}: false`);
    }
    for (const path of [
      "/web/catalog?limit=100",
      "/web/catalog?kind=expertise",
      "/web/catalog/facets",
      "/web/specializations",
      "/web/orgs/current/code-hosting",
    ]) {
      const text = JSON.stringify((await b.owner.get(path)).body);
      for (const x of secretsOfA) expect(`${path}: ${text.includes(x)}`).toBe(`${path}: false`);
    }
    // nothing of A changed
    expect((await a.owner.get(`/web/specializations/${spec.id}`)).body.specialization.name).toBe("Iota stack");
    expect((await a.owner.get(`/web/projects/${a.project.id}/relevance`)).body.source).toBe("derived");
    expect(
      (await a.owner.get(`/web/projects/${a.project.id}/keys`)).body.keys.filter((k: { automation: boolean }) => k.automation),
    ).toEqual([]);
  });
  test("the SSO routes (/web/orgs/current/sso, /test, DELETE): each organization reads and changes its own only; A's domain cannot be taken by B (409); A's secret never shows", async () => {
    const a = await orgWithProject(env, "Sso Alpha");
    const b = await orgWithProject(env, "Sso Beta");
    const aSso = {
      type: "oidc",
      domains: ["alpha-sso.example"],
      enforce: true,
      oidc: { issuer: "https://idp.alpha-sso.example", clientId: "alpha-client", clientSecret: "alpha-secret-value" },
    };
    expect((await a.owner.post("/web/orgs/current/sso", aSso)).status).toBe(200);
    await approveSsoDomains(env, a.org.id, ["alpha-sso.example"]);
    const secretsOfA = ["alpha-sso.example", "alpha-client", "alpha-secret-value", "idp.alpha-sso.example", a.org.id];
    // B sees only its own (none), cannot test or delete A's, cannot claim A's domain
    const bGet = await b.owner.get("/web/orgs/current/sso");
    expect(bGet.body.sso).toBeNull();
    for (const x of secretsOfA) expect(JSON.stringify(bGet.body).includes(x)).toBe(false);
    const bTest = await b.owner.post("/web/orgs/current/sso/test");
    expect(`${bTest.status} ${bTest.body.error}`).toBe("404 not_found");
    const bDelete = await b.owner.del("/web/orgs/current/sso");
    expect(`${bDelete.status} ${bDelete.body.error}`).toBe("404 not_found");
    const steal = await b.owner.post("/web/orgs/current/sso", {
      ...aSso,
      domains: ["beta-sso.example", "alpha-sso.example"],
      oidc: { ...aSso.oidc, clientSecret: "beta-secret" },
    });
    expect(`${steal.status} ${steal.body.error}`).toBe("409 conflict"); // A proved it
    expect(steal.body.domains).toEqual(["alpha-sso.example"]);
    expect(JSON.stringify(steal.body)).not.toContain("alpha-secret-value");
    // nothing of A changed, and A's own answer carries no secret
    const aGet = await a.owner.get("/web/orgs/current/sso");
    expect(aGet.body.sso).toMatchObject({
      type: "oidc",
      domains: ["alpha-sso.example"],
      enforce: true,
      oidc: { clientId: "alpha-client", clientSecretSet: true },
    });
    expect(JSON.stringify(aGet.body)).not.toContain("alpha-secret-value");
    // B's own configuration with its own domain works and stays B's
    expect(
      (
        await b.owner.post("/web/orgs/current/sso", {
          type: "saml",
          domains: ["beta-sso.example"],
          saml: { entryPoint: "https://idp.beta-sso.example/sso", idpIssuer: "beta-idp", idpCert: BETA_CERT },
        })
      ).status,
    ).toBe(200);
    expect((await a.owner.get("/web/orgs/current/sso")).body.sso.domains).toEqual(["alpha-sso.example"]);
    // the /org/sso page of another organization's admin shows only theirs
    const page = await (await b.owner.call("GET", "/org/sso", undefined, { accept: "text/html" })).text();
    for (const x of ["alpha-sso.example", "alpha-client", "alpha-secret-value"]) expect(page.includes(x)).toBe(false);
  });
});
