/**
 * Smoke test of the agent loop on the built binary (run by scripts/smoke.sh with the binary's
 * base URL): sign-up, organization (AUTO_APPROVE_ORGS), project, install, key, prepare-task,
 * playbook, a report, one MCP tool call and an MCP initialize, SAML metadata and an invitation
 * mail (sent over SMTP to scripts/smoke.sh's sink) — so that CI catches what only the bundle can
 * break: the modules loaded on first use, each a chunk of its own in the binary (the MCP SDK,
 * node-saml, nodemailer, jose), the embedded migrations and catalog. SMOKE_IDP_CERT names a PEM
 * certificate for the SAML configuration.
 */
const base: string = process.argv[2] ?? "";
if (!base) throw new Error("usage: bun scripts/smoke-loop.ts BASE_URL");

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(base + path, {
    method,
    headers: { origin: base, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text.startsWith("{") ? JSON.parse(text) : text };
}
function expect(what: string, ok: boolean, got: unknown): void {
  if (!ok) {
    console.error(`smoke-loop: FAILED at ${what}: ${JSON.stringify(got).slice(0, 500)}`);
    process.exit(1);
  }
}

const up = await call("POST", "/api/auth/sign-up", { email: "smoke@example.com", password: "smoke password 123" });
expect("sign-up", up.status === 201, up);
const cookie = /talentd_session=[^;]+/.exec(up.headers.get("set-cookie") ?? "")?.[0] ?? "";
const web = (m: string, p: string, b?: unknown) => call(m, p, b, { cookie });
const org = await web("POST", "/web/orgs", { name: "Smoke" });
expect("organization approved", org.body?.organization?.status === "approved", org);
const project = await web("POST", "/web/projects", { name: "smoke" });
expect("project", project.status === 201, project);
const pid = project.body.project.id as string;
expect(
  "install",
  (await web("POST", `/web/projects/${pid}/talents`, { talents: ["typescript-strict", "javascript-base"] })).status === 201,
  null,
);
const key = await web("POST", `/web/projects/${pid}/keys`, {
  name: "smoke",
  tools: ["prepare_task", "validate", "record_validation", "doctor"],
});
expect("key", key.status === 201, key);
const auth = { authorization: `Bearer ${key.body.value}` };
const prep = await call("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] }, auth);
expect("prepare-task", prep.status === 201 && prep.body.talents[0].compact.includes("TypeScript"), prep);
const book = await call("GET", `/api/validation/playbook?resolutionId=${prep.body.resolutionId}&talent=typescript-strict`, undefined, auth);
expect("playbook", book.status === 200 && book.body.detail.rules.length > 0, book);
const rep = await call(
  "POST",
  "/api/validation/reports",
  { submissionId: "smoke-1", resolutionId: prep.body.resolutionId, expertiseResults: [] },
  auth,
);
expect("report", rep.status === 201, rep);
const mcp = await call(
  "POST",
  "/mcp",
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "svc_doctor", arguments: {} } },
  { ...auth, accept: "application/json, text/event-stream" },
);
expect("mcp svc_doctor", mcp.status === 200 && JSON.stringify(mcp.body).includes("healthy"), mcp);
const init = await call(
  "POST",
  "/mcp",
  {
    jsonrpc: "2.0",
    id: 2,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "smoke", version: "1" } },
  },
  { ...auth, accept: "application/json, text/event-stream" },
);
expect("mcp initialize (the SDK's chunk)", init.status === 200 && JSON.stringify(init.body).includes("serverInfo"), init);
const idpCert = await Bun.file(process.env.SMOKE_IDP_CERT ?? "").text();
const sso = await web("POST", "/web/orgs/current/sso", {
  type: "saml",
  domains: ["smoke.example"],
  saml: { entryPoint: "https://idp.smoke.example/sso", idpIssuer: "https://idp.smoke.example", idpCert },
});
expect("SAML configuration", sso.status === 200, sso);
const samlMeta = await call("GET", `/api/auth/saml/${org.body.organization.id}/metadata`);
expect("SAML metadata (node-saml's chunk)", samlMeta.status === 200 && String(samlMeta.body).includes("EntityDescriptor"), samlMeta);
const invitation = await web("POST", "/web/orgs/current/invitations", { email: "invitee@smoke.example" });
expect("invitation (its mail goes out over SMTP: nodemailer's chunk)", invitation.status === 201, invitation);
let sent = false;
for (let i = 0; i < 100 && !sent; i++) {
  const mails = await web("GET", "/web/orgs/current/mail?status=sent");
  sent = (mails.body?.mails ?? []).some((m: { to: string }) => m.to === "invitee@smoke.example");
  if (!sent) await Bun.sleep(100);
}
expect("invitation mail sent", sent, await web("GET", "/web/orgs/current/mail"));
const meta = await call("GET", `/.well-known/oauth-protected-resource/mcp/${pid}`);
expect("oauth metadata", meta.status === 200 && meta.body.resource === `${base}/mcp/${pid}`, meta);
const client = await call("POST", "/oauth/register", { client_name: "smoke", redirect_uris: ["http://127.0.0.1:9/cb"] });
const jag = await fetch(`${base}/oauth/token`, {
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({
    grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
    assertion: "not-a-jwt",
    client_id: client.body.client_id,
  }),
});
const jagBody = (await jag.json()) as { error?: string; error_description?: string };
expect("jwt-bearer grant (jose's chunk)", jag.status === 400 && jagBody.error_description === "The assertion is not a JWT.", jagBody);
console.log(
  "smoke-loop: ok (sign-up → org → project → install → key → prepare → playbook → report → MCP tools/call and initialize → SAML metadata → invitation mail over SMTP → OAuth metadata → jwt-bearer grant)",
);
export {};
