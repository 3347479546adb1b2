/**
 * The OpenAPI 3.1 document of the key API (`/api/*`) and the web endpoints (`/web/*`), served
 * at `/openapi.json`. Written as a table (one row per route: what it does, who may call it,
 * its body and query) because most routes read their input by hand (http/query.ts) rather
 * than through schemas a generator could see. A test keeps the table and the registered
 * routes equal in both directions (test/http/openapi.test.ts), so a new route cannot go
 * undocumented. docs/api.md is the prose beside it.
 */
import { Elysia } from "elysia";
import { ANSWERS } from "./openapiAnswers";
import { sessionCookieName } from "./cookies";

type Schema = Record<string, unknown>;
/** Who may call a route: nobody in particular, a session, a member/admin of an approved active organization, a platform admin, or a key with a scope. */
export type Access = "public" | "session" | "member" | "admin" | "platform" | `key:${string}`;

export interface Operation {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI form: `/web/projects/{id}`. */
  path: string;
  summary: string;
  access: Access;
  body?: Schema;
  query?: { name: string; schema: Schema; description?: string; required?: boolean }[];
  /** The success status (default 200). */
  ok?: number;
  /** Error statuses beyond the ones the access level implies. */
  errors?: number[];
}

const str = (extra: Schema = {}): Schema => ({ type: "string", ...extra });
const int = (min: number, max: number): Schema => ({ type: "integer", minimum: min, maximum: max });
const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: "object",
  properties,
  ...(required.length ? { required } : {}),
});
const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: "array", items, ...extra });
const ids = arr(str(), { minItems: 1 });
const page = (max: number) => [
  { name: "limit", schema: int(1, max) },
  { name: "cursor", schema: str(), description: "nextCursor of the previous page" },
];
const days = [{ name: "days", schema: int(1, 90), description: "window in days" }];

export const OPERATIONS: Operation[] = [
  // ---- authentication
  {
    method: "POST",
    path: "/api/auth/sign-up",
    summary: "Create an account and sign in",
    access: "public",
    body: obj({ email: str({ format: "email" }), password: str({ minLength: 10, maxLength: 256 }), name: str({ maxLength: 100 }) }, [
      "email",
      "password",
    ]),
    ok: 201,
    errors: [400, 403, 409, 429],
  },
  {
    method: "POST",
    path: "/api/auth/sign-in",
    summary: "Sign in with e-mail and password",
    access: "public",
    body: obj({ email: str(), password: str() }, ["email", "password"]),
    errors: [400, 401, 403, 429],
  },
  { method: "POST", path: "/api/auth/sign-out", summary: "End this session", access: "public", errors: [403] },
  { method: "GET", path: "/api/auth/session", summary: "The signed-in user, organizations and active one", access: "session" },
  {
    method: "POST",
    path: "/api/auth/password-reset",
    summary: "Ask for a password-reset mail (same answer whether the account exists or not)",
    access: "public",
    body: obj({ email: str({ format: "email" }) }, ["email"]),
    ok: 202,
    errors: [400, 403, 429],
  },
  {
    method: "POST",
    path: "/api/auth/password-reset/confirm",
    summary: "Set a new password with a reset token (single use, 30 min); every session ends, a new one is set",
    access: "public",
    body: obj({ token: str(), password: str({ minLength: 10, maxLength: 256 }) }, ["token", "password"]),
    errors: [400, 403, 410],
  },
  {
    method: "POST",
    path: "/api/auth/verify-email",
    summary: "Confirm the account's e-mail address with the token of the mailed link (single use, 48 h)",
    access: "public",
    body: obj({ token: str() }, ["token"]),
    errors: [400, 403, 410],
  },
  {
    method: "POST",
    path: "/api/auth/verify-email/resend",
    summary: "Mail a new verification link to the signed-in account (202), or say it is verified already (200); at most 5 an hour",
    access: "session",
    ok: 202,
    errors: [401, 403, 429],
  },
  {
    method: "POST",
    path: "/api/auth/change-password",
    summary: "Change the password; every session ends, a new one is set",
    access: "session",
    body: obj({ currentPassword: str(), newPassword: str({ minLength: 10 }) }, ["currentPassword", "newPassword"]),
    errors: [400, 401, 429],
  },
  {
    method: "GET",
    path: "/api/auth/oauth/{provider}",
    summary:
      "Sign in with an external identity provider (github, gitlab, google, microsoft, oidc): 302 to it with state, PKCE and nonce in a 10-minute cookie",
    access: "public",
    query: [{ name: "next", schema: str(), description: "a path of this site to go to afterwards" }],
    ok: 302,
  },
  {
    method: "GET",
    path: "/api/auth/oauth/{provider}/callback",
    summary: "The provider's redirect back: signs in (303 to next), or 303 to /login?error=<code>",
    access: "public",
    ok: 303,
  },
  {
    method: "GET",
    path: "/api/auth/sso/{domain}",
    summary: "Organization SSO for an e-mail domain: 302 to the organization's IdP (OIDC or SAML), or 303 to /login?error=<code>",
    access: "public",
    query: [{ name: "next", schema: str() }],
    ok: 302,
  },
  {
    method: "GET",
    path: "/api/auth/sso/oidc/callback",
    summary: "An organization's OIDC IdP redirect back: signs in and joins the organization, or 303 to /login?error=<code>",
    access: "public",
    ok: 303,
  },
  {
    method: "POST",
    path: "/api/auth/saml/{orgId}/acs",
    summary: "SAML assertion consumer service (HTTP-POST binding): signs in and joins the organization, or 303 to /login?error=saml",
    access: "public",
    body: obj({ SAMLResponse: str(), RelayState: str() }, ["SAMLResponse"]),
    ok: 303,
  },
  {
    method: "GET",
    path: "/api/auth/saml/{orgId}/metadata",
    summary: "The SAML service provider metadata of an organization (entity ID, ACS URL)",
    access: "public",
    errors: [404],
  },
  // ---- key API
  { method: "GET", path: "/api/catalog", summary: "The public catalog, paged", access: "key:catalog", query: page(200), errors: [400] },
  {
    method: "GET",
    path: "/api/prepare-task/designable",
    summary: "The talents the project can designate (relevant first)",
    access: "key:prepare_task",
  },
  {
    method: "POST",
    path: "/api/prepare-task",
    summary: "Designate talents; a frozen resolution",
    access: "key:prepare_task",
    body: obj({ talentIds: ids, language: str() }, ["talentIds"]),
    ok: 201,
    errors: [400],
  },
  {
    method: "GET",
    path: "/api/validation/playbook",
    summary: "The audit playbook of a resolution",
    access: "key:validate",
    query: [
      { name: "resolutionId", schema: str(), required: true },
      { name: "talent", schema: str() },
    ],
    errors: [400, 404],
  },
  {
    method: "POST",
    path: "/api/validation/reports",
    summary: "Record one verdict per private expertise (replayable)",
    access: "key:record_validation",
    body: obj(
      {
        submissionId: str(),
        resolutionId: str(),
        expertiseResults: arr(
          obj(
            {
              id: str(),
              verdict: str({ enum: ["pass", "fail", "not_applicable"] }),
              evidence: arr(str()),
              missing: arr(str()),
              note: str(),
            },
            ["id", "verdict"],
          ),
        ),
      },
      ["submissionId", "resolutionId", "expertiseResults"],
    ),
    ok: 201,
    errors: [400, 404, 409],
  },
  {
    method: "GET",
    path: "/api/search",
    summary: "Literal search: pointers, never content",
    access: "key:deepen",
    query: [
      { name: "query", schema: str(), required: true },
      { name: "k", schema: int(1, 50) },
      { name: "scope", schema: str({ enum: ["catalog", "installed", "active", "resolution"] }) },
      { name: "resolutionId", schema: str() },
    ],
    errors: [400, 404],
  },
  {
    method: "POST",
    path: "/api/talents/get",
    summary: "Read talent files (1–20 uris), or search",
    access: "key:deepen",
    body: obj({ uri: str(), uris: arr(obj({ uri: str() }), { maxItems: 20 }), resolutionId: str(), section: str(), query: str() }),
    errors: [400, 404],
  },
  {
    method: "GET",
    path: "/api/doctor",
    summary: "Missing prerequisites and conflicts of the selection",
    access: "key:doctor",
    query: [{ name: "include", schema: str({ enum: ["selection"] }) }],
    errors: [400],
  },
  {
    method: "GET",
    path: "/api/discovery/playbook",
    summary: "Discovery procedure, the selection and a compact catalog index (relevant first, within a token budget)",
    access: "key:discover",
    query: [
      { name: "languages", schema: str() },
      { name: "offset", schema: int(0, 1_000_000) },
    ],
    errors: [400],
  },
  {
    method: "PATCH",
    path: "/api/projects/{id}/talents",
    summary: "Install talents with their prerequisites (atomic group), or disable them",
    access: "key:install",
    body: obj({ talent: str(), talents: ids, enabled: { type: "boolean" } }),
    errors: [400, 404, 409],
  },
  {
    method: "GET",
    path: "/api/skills",
    summary: "The project's active talents as Agent Skills (MCP Skills extension), paged",
    access: "key:deepen",
    query: page(200),
    errors: [400],
  },
  {
    method: "GET",
    path: "/api/skills/entry",
    summary: "One skill with its file manifest (digests, sizes)",
    access: "key:deepen",
    query: [{ name: "uri", schema: str(), required: true }],
    errors: [400, 404],
  },
  {
    method: "GET",
    path: "/api/skills/directory",
    summary: "A skill directory's entries",
    access: "key:deepen",
    query: [{ name: "uri", schema: str(), required: true }, ...page(200)],
    errors: [400, 404],
  },
  {
    method: "GET",
    path: "/api/skills/file",
    summary: "One skill file, the exact bytes its digest names",
    access: "key:deepen",
    query: [{ name: "uri", schema: str(), required: true }],
    errors: [400, 404],
  },
  // ---- organizations and administration
  { method: "GET", path: "/web/orgs", summary: "The user's organizations", access: "session" },
  {
    method: "POST",
    path: "/web/orgs",
    summary: "Create an organization (pending approval)",
    access: "session",
    body: obj({ name: str({ maxLength: 100 }), slug: str({ maxLength: 40 }) }, ["name"]),
    ok: 201,
    errors: [400, 409],
  },
  {
    method: "GET",
    path: "/web/orgs/current/status",
    summary: "Approval status of the active organization (always open)",
    access: "session",
  },
  {
    method: "POST",
    path: "/web/orgs/active",
    summary: "Switch the active organization",
    access: "session",
    body: obj({ organizationId: str() }, ["organizationId"]),
    errors: [400, 404],
  },
  {
    method: "GET",
    path: "/web/orgs/current/mail",
    summary: "The organization's mails not delivered yet (pending, sending, failed), without bodies",
    access: "admin",
    query: [{ name: "status", schema: str({ enum: ["pending", "sending", "sent", "failed"] }) }],
    errors: [400],
  },
  {
    method: "POST",
    path: "/web/orgs/current/mail/{id}/retry",
    summary: "Send a failed or waiting mail again now",
    access: "admin",
    errors: [404, 409],
  },
  { method: "GET", path: "/web/orgs/current/members", summary: "Members and roles", access: "member" },
  {
    method: "PATCH",
    path: "/web/orgs/current/members/{userId}",
    summary: "Change a member's role",
    access: "admin",
    body: obj({ role: str({ enum: ["owner", "admin", "member"] }) }, ["role"]),
    errors: [400, 404, 409],
  },
  { method: "DELETE", path: "/web/orgs/current/members/{userId}", summary: "Remove a member", access: "admin", errors: [404, 409] },
  { method: "GET", path: "/web/orgs/current/invitations", summary: "Pending invitations", access: "admin" },
  {
    method: "POST",
    path: "/web/orgs/current/invitations",
    summary: "Invite by e-mail",
    access: "admin",
    body: obj({ email: str(), role: str({ enum: ["owner", "admin", "member"] }) }, ["email"]),
    ok: 201,
    errors: [400, 409],
  },
  { method: "DELETE", path: "/web/orgs/current/invitations/{id}", summary: "Revoke an invitation", access: "admin", errors: [404] },
  {
    method: "POST",
    path: "/web/orgs/current/invitations/{id}/resend",
    summary: "Send a pending invitation again, valid 7 more days (same link)",
    access: "admin",
    errors: [404],
  },
  {
    method: "POST",
    path: "/web/invitations/{id}/accept",
    summary: "Accept an invitation (the invitee)",
    access: "session",
    errors: [403, 404, 409, 410],
  },
  {
    method: "GET",
    path: "/web/orgs/current/sso",
    summary: "The organization's SSO (secrets never returned) and the URLs to register at the IdP",
    access: "admin",
  },
  {
    method: "POST",
    path: "/web/orgs/current/sso",
    summary: "Set the organization's SSO (OIDC or SAML) and its e-mail domains",
    access: "admin",
    body: obj(
      {
        type: str({ enum: ["oidc", "saml"] }),
        domains: arr(str(), { minItems: 1, maxItems: 20 }),
        enforce: { type: "boolean" },
        oidc: obj({
          issuer: str({ format: "uri" }),
          clientId: str(),
          clientSecret: str({ description: "write-only; empty keeps the stored one" }),
        }),
        saml: obj({ entryPoint: str({ format: "uri" }), idpCert: str({ description: "PEM or base64 X.509" }), idpIssuer: str() }),
      },
      ["type", "domains"],
    ),
    errors: [400, 409],
  },
  { method: "DELETE", path: "/web/orgs/current/sso", summary: "Remove the organization's SSO", access: "admin", errors: [404] },
  {
    method: "POST",
    path: "/web/orgs/current/sso/domains/{domain}/verify",
    summary:
      "Verify a claimed SSO domain by its DNS TXT record _talentd-challenge.<domain>; 409 domain_unverified until it holds the token, 409 conflict when another organization verified it",
    access: "admin",
    errors: [404, 409],
  },
  {
    method: "POST",
    path: "/web/orgs/current/sso/test",
    summary: "Check the SSO configuration (OIDC discovery; SAML certificate and entry point) and return a test sign-in link",
    access: "admin",
    errors: [404],
  },
  { method: "GET", path: "/web/orgs/current/code-hosting", summary: "Code hosting settings", access: "member" },
  {
    method: "PUT",
    path: "/web/orgs/current/code-hosting",
    summary: "Set code hosting (evidence links)",
    access: "admin",
    body: obj({ provider: str({ enum: ["github", "gitlab", "bitbucket", "other"] }), url: str(), defaultBranch: str() }, [
      "provider",
      "url",
    ]),
    errors: [400],
  },
  { method: "DELETE", path: "/web/orgs/current/code-hosting", summary: "Clear code hosting", access: "admin" },
  { method: "GET", path: "/web/admin/organizations", summary: "Organizations and their status", access: "platform" },
  {
    method: "POST",
    path: "/web/admin/organizations/{id}/{operation}",
    summary: "Approve, reject, suspend or reactivate",
    access: "platform",
    errors: [404, 409],
  },
  { method: "GET", path: "/web/admin/users", summary: "Users", access: "platform" },
  { method: "GET", path: "/web/admin/sso-domains", summary: "SSO domain claims waiting for proof", access: "platform" },
  {
    method: "POST",
    path: "/web/admin/sso-domains/{orgId}/{domain}/approve",
    summary: "Verify an organization's SSO domain claim by approval (409 when another organization holds it verified)",
    access: "platform",
    errors: [404, 409],
  },
  {
    method: "GET",
    path: "/web/admin/backups",
    summary: "The backup schedule, the latest outcome and the kept backups",
    access: "platform",
  },
  {
    method: "GET",
    path: "/web/admin/security-events",
    summary: "Security events, newest first",
    access: "platform",
    query: [
      { name: "limit", schema: int(1, 500) },
      { name: "before", schema: { type: "integer" } },
    ],
    errors: [400],
  },
  // ---- expertises
  {
    method: "GET",
    path: "/web/orgs/current/expertises",
    summary: "The organization's expertises (status filter)",
    access: "admin",
    query: [{ name: "status", schema: str() }],
  },
  {
    method: "POST",
    path: "/web/orgs/current/expertises",
    summary: "Create an expertise",
    access: "admin",
    body: obj({ slug: str(), content: str(), files: { type: "object", additionalProperties: str() } }, ["slug", "content"]),
    ok: 201,
    errors: [400, 409],
  },
  {
    method: "GET",
    path: "/web/orgs/current/expertises/{id}",
    summary: "An expertise with its working version",
    access: "admin",
    errors: [404],
  },
  {
    method: "PATCH",
    path: "/web/orgs/current/expertises/{id}",
    summary: "A new working version (expected revision)",
    access: "admin",
    body: obj({ expectedRevision: { type: "integer" }, content: str(), files: { type: "object", additionalProperties: str() } }, [
      "expectedRevision",
    ]),
    errors: [400, 404, 409],
  },
  { method: "DELETE", path: "/web/orgs/current/expertises/{id}", summary: "Delete an expertise", access: "admin", errors: [404] },
  {
    method: "POST",
    path: "/web/orgs/current/expertises/{id}/trigger-proposal",
    summary: "Propose triggers",
    access: "admin",
    errors: [404],
  },
  {
    method: "PUT",
    path: "/web/orgs/current/expertises/{id}/triggers",
    summary: "Confirm triggers",
    access: "admin",
    body: obj({ files: arr(str()), keywords: arr(str()) }),
    errors: [400, 404],
  },
  ...(["publish", "activate", "deactivate", "reactivate"] as const).map(
    (op): Operation => ({
      method: "POST",
      path: `/web/orgs/current/expertises/{id}/${op}`,
      summary: `Lifecycle: ${op}`,
      access: "admin",
      errors: [404, 409],
    }),
  ),
  {
    method: "GET",
    path: "/web/orgs/current/expertises/{id}/versions/{version}",
    summary: "A published version",
    access: "admin",
    errors: [404],
  },
  // ---- catalog and specializations
  {
    method: "GET",
    path: "/web/catalog",
    summary: "Catalog cards (public talents and the organization's published expertises)",
    access: "member",
    query: [
      { name: "query", schema: str() },
      { name: "role", schema: str() },
      { name: "language", schema: str() },
      { name: "kind", schema: str({ enum: ["talent", "expertise"] }) },
      { name: "project", schema: str() },
      { name: "relevance", schema: str({ enum: ["apply", "all"] }) },
      ...page(100),
    ],
    errors: [400, 404],
  },
  { method: "GET", path: "/web/catalog/facets", summary: "Counts by role, language and kind", access: "member" },
  {
    method: "GET",
    path: "/web/catalog/{talentId}",
    summary: "The talent sheet (graph, rules, tests, compact preview, files)",
    access: "member",
    query: [{ name: "project", schema: str() }],
    errors: [400, 404],
  },
  { method: "GET", path: "/web/specializations", summary: "Built-in and custom specializations", access: "member" },
  {
    method: "POST",
    path: "/web/specializations",
    summary: "Create a custom specialization",
    access: "admin",
    body: obj({ name: str({ maxLength: 100 }), description: str({ maxLength: 500 }), talents: ids }, ["name", "talents"]),
    ok: 201,
    errors: [400],
  },
  { method: "GET", path: "/web/specializations/{id}", summary: "A specialization", access: "member", errors: [404] },
  {
    method: "PATCH",
    path: "/web/specializations/{id}",
    summary: "Edit a custom specialization (built-ins are read-only)",
    access: "admin",
    body: obj({ name: str(), description: str(), talents: ids }),
    errors: [400, 403, 404],
  },
  { method: "DELETE", path: "/web/specializations/{id}", summary: "Delete a custom specialization", access: "admin", errors: [403, 404] },
  {
    method: "POST",
    path: "/web/specializations/{id}/duplicate",
    summary: "Copy any specialization into a custom one",
    access: "admin",
    body: obj({ name: str() }),
    ok: 201,
    errors: [400, 404],
  },
  {
    method: "GET",
    path: "/web/search",
    summary: "The command palette's search: projects, talents, specializations, organizations",
    access: "session",
    query: [{ name: "q", schema: str({ maxLength: 200 }) }],
    errors: [400],
  },
  // ---- projects
  { method: "GET", path: "/web/projects", summary: "Projects of the active organization", access: "member" },
  {
    method: "POST",
    path: "/web/projects",
    summary: "Create a project",
    access: "member",
    body: obj({ name: str({ maxLength: 100 }), description: str({ maxLength: 1000 }), repository: str() }, ["name"]),
    ok: 201,
    errors: [400],
  },
  { method: "GET", path: "/web/projects/{id}", summary: "A project", access: "member", errors: [404] },
  {
    method: "PATCH",
    path: "/web/projects/{id}",
    summary: "Rename, describe, set the repository or the context budget",
    access: "member",
    body: obj({ name: str(), description: str(), repository: str(), contextBudget: { type: ["integer", "null"] } }),
    errors: [400, 404],
  },
  { method: "DELETE", path: "/web/projects/{id}", summary: "Delete a project with everything it holds", access: "admin", errors: [404] },
  { method: "GET", path: "/web/projects/{id}/keys", summary: "The project's keys (never their values)", access: "member", errors: [404] },
  {
    method: "POST",
    path: "/web/projects/{id}/keys",
    summary: "Create a key (value shown once)",
    access: "member",
    body: obj({ name: str(), tools: arr(str()), expiresAt: str({ format: "date-time" }) }, ["name", "tools"]),
    ok: 201,
    errors: [400, 404],
  },
  { method: "DELETE", path: "/web/projects/{id}/keys/{keyId}", summary: "Revoke a key", access: "member", errors: [404] },
  { method: "GET", path: "/web/projects/{id}/installed", summary: "Installed talents and their state", access: "member", errors: [404] },
  {
    method: "POST",
    path: "/web/projects/{id}/talents",
    summary: "Install talents (atomic group)",
    access: "member",
    body: obj({ talent: str(), talents: ids }),
    ok: 201,
    errors: [400, 404],
  },
  {
    method: "PATCH",
    path: "/web/projects/{id}/talents/{talentId}",
    summary: "Enable or disable an installed talent",
    access: "member",
    body: obj({ enabled: { type: "boolean" } }, ["enabled"]),
    errors: [400, 404],
  },
  { method: "DELETE", path: "/web/projects/{id}/talents/{talentId}", summary: "Uninstall a talent", access: "member", errors: [404] },
  {
    method: "POST",
    path: "/web/projects/{id}/apply-specialization",
    summary: "Install a specialization with its requires-closure (atomic)",
    access: "member",
    body: obj({ specializationId: str() }, ["specializationId"]),
    errors: [400, 404, 409],
  },
  {
    method: "GET",
    path: "/web/projects/{id}/traces/summary",
    summary: "Activity per day: calls by kind and client, failed calls, resolutions, reports, verdicts",
    access: "member",
    query: [{ name: "days", schema: int(1, 90) }],
    errors: [400, 404, 429],
  },
  {
    method: "GET",
    path: "/web/projects/{id}/talents/{talentId}/usage",
    summary: "One talent's use in a project: designations, audits, verdicts, versions served",
    access: "member",
    query: [{ name: "days", schema: int(1, 90) }],
    errors: [400, 404, 429],
  },
  {
    method: "GET",
    path: "/web/activity/summary",
    summary: "The activity summary of every project of the organization",
    access: "member",
    query: [{ name: "days", schema: int(1, 90) }],
    errors: [400, 429],
  },
  {
    method: "GET",
    path: "/web/orgs/current/insights",
    summary: "Failed calls by code, keys to act on, projects at fault, never-audited resolutions, failing expertises",
    access: "admin",
    query: [{ name: "days", schema: int(1, 90) }],
    errors: [400, 429],
  },
  {
    method: "GET",
    path: "/web/orgs/current/talent-adoption",
    summary: "Per talent and expertise: projects, designations, audit rate, outcomes, versions in use",
    access: "admin",
    query: [{ name: "days", schema: int(1, 90) }],
    errors: [400, 429],
  },
  {
    method: "GET",
    path: "/web/projects/{id}/traces",
    summary: "The activity journal, newest first (keyset paging)",
    access: "member",
    query: [
      { name: "limit", schema: int(1, 200) },
      { name: "before", schema: str() },
    ],
    errors: [400, 404],
  },
  {
    method: "GET",
    path: "/web/projects/{id}/resolutions/{resolutionId}/reports",
    summary: "Reports of a resolution with evidence links",
    access: "member",
    errors: [404],
  },
  {
    method: "GET",
    path: "/web/projects/{id}/relevance",
    summary: "Relevance settings (stored or derived)",
    access: "member",
    errors: [404],
  },
  {
    method: "PUT",
    path: "/web/projects/{id}/relevance",
    summary: "Replace relevance settings",
    access: "member",
    body: obj({ languages: arr(str()), roles: arr(str()), paths: arr(str()), exclude: arr(str()) }),
    errors: [400, 404],
  },
  {
    method: "DELETE",
    path: "/web/projects/{id}/relevance",
    summary: "Reset relevance to the derived settings",
    access: "member",
    errors: [404],
  },
  {
    method: "GET",
    path: "/web/projects/{id}/setup",
    summary: "Connection kit: client configurations, AGENTS.md stub",
    access: "member",
    errors: [404],
  },
  {
    method: "POST",
    path: "/web/projects/{id}/token",
    summary: "(Re)create the automation key (value once; previous revoked)",
    access: "member",
    ok: 201,
    errors: [404],
  },
  {
    method: "GET",
    path: "/web/projects/{id}/validator-config",
    summary: "The CI file that runs talentd ci verify (github, gitlab or a script)",
    access: "member",
    query: [{ name: "target", schema: str({ enum: ["github", "gitlab", "script"] }) }],
    errors: [400, 404],
  },
  {
    method: "POST",
    path: "/web/projects/{id}/file",
    summary: "Read one talent file with the key route's rules",
    access: "member",
    body: obj({ uri: str(), section: str(), resolutionId: str() }, ["uri"]),
    errors: [400, 404],
  },
];

const ERROR_TEXT: Record<number, string> = {
  400: "validation_failed (issues), unknown_talents, designation_required",
  401: "unauthenticated / invalid_token / invalid_credentials",
  403: "organization_not_approved, forbidden, insufficient_scope, not_a_member, csrf_rejected",
  404: "not_found (another organization's ids look the same)",
  409: "conflict, selection_conflict, invalid_transition, expertise_revision_conflict, submission_conflict, last_owner",
  410: "invitation_expired",
  429: "rate_limited (Retry-After)",
};

function implied(access: Access): number[] {
  if (access === "public") return [];
  if (access.startsWith("key:")) return [401, 403, 404];
  if (access === "session") return [401];
  return [401, 403];
}

/**
 * A route's success content, from its declared answer (openapiAnswers.ts): the JSON schema, another
 * media type, or none for a redirect. A route without a declared answer gets none (the shapes test fails on it).
 */
function success(op: Operation): Record<string, unknown> {
  if ((op.ok ?? 200) >= 300) return {};
  const answer = ANSWERS[`${op.method} ${op.path}`];
  if (!answer) return {};
  if (typeof answer.media === "string") return { content: { [answer.media]: {} } };
  return { content: { "application/json": { schema: answer } } };
}

/** The OpenAPI 3.1 document for a base URL. */
export function openApiDocument(baseUrl: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const pathParams = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: str() }));
    const security =
      op.access === "public"
        ? []
        : op.access.startsWith("key:")
          ? [{ projectKey: [] }, { oauth: [op.access.slice(4)] }]
          : [{ session: [] }];
    const statuses = [...new Set([...implied(op.access), ...(op.errors ?? [])])].sort();
    (paths[op.path] ??= {})[op.method.toLowerCase()] = {
      summary: op.summary,
      tags: [op.path.split("/")[1] === "api" ? "key API" : "web"],
      "x-access": op.access,
      security,
      parameters: [
        ...pathParams,
        ...(op.query ?? []).map((q) => ({
          name: q.name,
          in: "query",
          required: q.required ?? false,
          schema: q.schema,
          ...(q.description ? { description: q.description } : {}),
        })),
      ],
      ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: op.body } } } } : {}),
      responses: {
        [String(op.ok ?? 200)]: { description: "OK", ...success(op) },
        ...Object.fromEntries(
          statuses.map((s) => [
            String(s),
            { description: ERROR_TEXT[s] ?? "error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
          ]),
        ),
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "talentd",
      version,
      description: "Talents for coding agents: the project-key API and the web endpoints. Prose: docs/api.md.",
    },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        projectKey: { type: "http", scheme: "bearer", description: "A project API key (svc_pk_…)" },
        oauth: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl: `${baseUrl}/oauth/authorize`,
              tokenUrl: `${baseUrl}/oauth/token`,
              scopes: Object.fromEntries(
                ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"].map((s) => [s, s]),
              ),
            },
          },
        },
        session: {
          type: "apiKey",
          in: "cookie",
          name: sessionCookieName({ baseUrl }),
          description: "A web session; non-GET requests must come from this site (Origin)",
        },
      },
      schemas: {
        Error: obj({ error: str(), message: str(), issues: arr(obj({ path: str(), message: str() })) }, ["error", "message"]),
      },
    },
    paths,
  };
}

/** `GET /openapi.json`. */
export function openApiRoutes(baseUrl: string, version: string) {
  const text = JSON.stringify(openApiDocument(baseUrl, version));
  return new Elysia({ name: "openapi" }).get(
    "/openapi.json",
    () => new Response(text, { headers: { "content-type": "application/json; charset=utf-8", "access-control-allow-origin": "*" } }),
  );
}
