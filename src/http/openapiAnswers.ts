/**
 * The declared success answer of every route of the OpenAPI document (src/http/openapi.ts),
 * keyed `METHOD /path`. Every JSON answer is built from declared fields: a route picks its
 * fields explicitly (never spreads a database row), and test/http/response-shapes.test.ts calls
 * every route and fails on any key its schema here does not list. An object whose keys are
 * data (counts by role, files by path) is a `map`; `open` marks the few free-form objects (event
 * details). The key routes' answers are in their descriptors (http/keyRoutes.ts).
 */
import { ADMIN_ANSWERS } from "./openapiAdminAnswers";
import { CATALOG_ANSWERS } from "./openapiCatalogAnswers";
import { GOVERNANCE_ANSWERS } from "./openapiGovernanceAnswers";
import { RULES_ANSWERS } from "./openapiRulesAnswers";
import { a, B, CatalogItem, I, map, N, n, o, open, S, SelectionChange, TalentFile, Triggers, Verdicts, type Schema } from "./schema";

/** A JSON answer that is not an object of declared fields: what the document says instead. */
export interface OtherAnswer {
  media: string;
}

const User = o({ id: S, email: S, name: S, role: S });
const Membership = o({ id: S, slug: S, name: S, status: S, role: S });
const Actor = o({ id: S, email: S });
const Invitation = o({ id: S, link: S, email: S, role: S, expiresAt: S });
const Mail = o({
  id: S,
  kind: S,
  to: S,
  subject: S,
  status: S,
  attempts: I,
  lastError: n(S),
  nextAttemptAt: n(S),
  createdAt: S,
  sentAt: n(S),
});
const DomainClaim = o({ domain: S, status: S, record: o({ type: S, name: S, value: S }), verifiedAt: n(S), verifiedBy: n(S) });
const Sso = o({
  sso: n(
    o({
      type: S,
      domains: a(S),
      domainClaims: a(DomainClaim),
      enforce: B,
      enterpriseGrant: B,
      oidc: n(o({ issuer: S, clientId: S, clientSecretSet: B })),
      saml: n(o({ entryPoint: S, idpIssuer: S, idpCert: S, certificate: n(o({ subject: S, validTo: S, fingerprint256: S })) })),
      testedAt: n(S),
      updatedAt: S,
      signInLinks: a(S),
    }),
  ),
  serviceProvider: o({ oidcRedirectUri: S, samlEntityId: S, samlAcsUrl: S, samlMetadataUrl: S }),
});
const CodeHosting = o({ codeHosting: n(o({ provider: S, url: S, defaultBranch: S })) });
const ExpertiseRow = {
  id: S,
  ref: S,
  slug: S,
  status: S,
  revision: I,
  publishedVersion: n(I),
  serving: n(I),
  title: n(S),
  summary: n(S),
  triggers: n(Triggers),
  triggersConfirmedAt: n(S),
  createdAt: S,
  updatedAt: S,
};
const Version = { version: I, publishedAt: S, publishedBy: n(Actor), contentDigest: S, files: map(S), triggers: n(Triggers) };
const Expertise = o({
  ...ExpertiseRow,
  working: o({ content: S, files: map(S) }),
  declaredVersion: n(S),
  verification: o({
    valid: B,
    triggersConfirmed: B,
    triggersFrom: n(S),
    publishable: B,
    issues: a(o({ path: S, message: S })),
    content: a(o({ path: S, message: S, kind: S })),
  }),
  unpublishedChanges: B,
  allowedOperations: a(S),
  versions: a(o({ ...Version, declaredVersion: n(S) })),
  createdBy: n(Actor),
  published: o({ version: I, created: B }),
});
const Specialization = o({ id: S, name: S, description: S, talents: a(S), builtIn: B, createdBy: n(S), createdAt: S, updatedAt: S });
const projectNames = { id: S, organizationId: S, name: S, description: S, repository: n(S) };
const ProjectView = o({ ...projectNames, contextBudget: I, createdBy: n(S), createdAt: S, updatedAt: S });
const Project = o({ project: ProjectView });
const Key = o({
  id: S,
  projectId: S,
  name: S,
  tools: a(S),
  expiresAt: n(S),
  createdAt: S,
  lastUsedAt: n(S),
  revokedAt: n(S),
  status: S,
  createdBy: n(Actor),
  automation: B,
});
const Window = { days: I, from: S, to: S, retentionDays: I };
/** A pass the hook contradicted (insights' selfAudit.cases): where and when. */
const SelfAuditCase = { projectId: S, projectName: S, resolutionId: S, reportId: S, recordedAt: S, talentId: S };
const Totals = o({
  events: I,
  failed: I,
  byKind: map(I),
  byClient: map(I),
  otherClients: I,
  resolutions: I,
  reports: I,
  verdicts: Verdicts,
  clients: I,
  projects: I,
});
const Day = o({
  date: S,
  events: I,
  failed: I,
  byKind: map(I),
  byClient: map(I),
  otherClients: I,
  resolutions: I,
  reports: I,
  verdicts: Verdicts,
});
const Relevance = o({ settings: o({ languages: a(S), roles: a(S), paths: a(S), exclude: a(S) }), source: S });

/** The success answer of each route (a JSON schema), or another media type. */
export const ANSWERS: Record<string, Schema | OtherAnswer> = {
  // ---- authentication
  "POST /api/auth/sign-up": o({ user: User, activeOrganizationId: n(S), organizations: a(Membership) }),
  "POST /api/auth/sign-in": o({ user: User, activeOrganizationId: n(S), organizations: a(Membership) }),
  "POST /api/auth/sign-out": o({ signedOut: B }),
  "GET /api/auth/session": o({ user: User, activeOrganizationId: n(S), organizations: a(Membership), expiresAt: S }),
  "POST /api/auth/password-reset": o({ requested: B, message: S }),
  "POST /api/auth/password-reset/confirm": o({ reset: B, otherSessionsEnded: B, user: User }),
  "POST /api/auth/change-password": o({ changed: B, otherSessionsEnded: B }),
  "GET /api/auth/saml/{orgId}/metadata": { media: "application/samlmetadata+xml" },
  // ---- organizations and administration
  "GET /web/orgs": o({ organizations: a(Membership), activeOrganizationId: n(S) }),
  "POST /web/orgs": o({ organization: Membership }),
  "GET /web/orgs/current/status": o({ organization: n(o({ id: S, slug: S, name: S, status: S })), role: n(S), approved: B }),
  "POST /web/orgs/active": o({ organization: Membership }),
  "GET /web/orgs/current/mail": o({ mails: a(Mail), smtp: B }),
  "POST /web/orgs/current/mail/{id}/retry": o({ mail: Mail }),
  "GET /web/orgs/current/members": o({ members: a(o({ userId: S, email: S, name: S, role: S, joinedAt: S })) }),
  "PATCH /web/orgs/current/members/{userId}": o({ userId: S, role: S }),
  "DELETE /web/orgs/current/members/{userId}": o({ removed: S }),
  "GET /web/orgs/current/invitations": o({
    invitations: a(o({ id: S, email: S, role: S, status: S, expiresAt: S, createdAt: S, link: S })),
  }),
  "POST /web/orgs/current/invitations": Invitation,
  "DELETE /web/orgs/current/invitations/{id}": o({ revoked: S }),
  "POST /web/orgs/current/invitations/{id}/resend": Invitation,
  "POST /web/invitations/{id}/accept": o({ organization: n(Membership) }),
  "GET /web/orgs/current/sso": Sso,
  "POST /web/orgs/current/sso": Sso,
  "DELETE /web/orgs/current/sso": o({ sso: { type: "null" } }),
  "POST /web/orgs/current/sso/domains/{domain}/verify": o({ claim: DomainClaim }),
  "GET /web/admin/sso-domains": o({
    claims: a(o({ ...(DomainClaim.properties as Record<string, Schema>), organization: o({ id: S, name: S, status: S }) })),
  }),
  "POST /web/admin/sso-domains/{orgId}/{domain}/approve": o({ claim: DomainClaim }),
  "POST /api/auth/verify-email": o({ verified: B, email: S }),
  "POST /api/auth/verify-email/resend": o({ sent: B, verified: B }),
  "POST /web/orgs/current/sso/enterprise": Sso,
  "POST /web/orgs/current/sso/test": o({ ok: B, checks: a(o({ name: S, ok: B, message: S })), link: S }),
  "GET /web/orgs/current/code-hosting": CodeHosting,
  "PUT /web/orgs/current/code-hosting": CodeHosting,
  "DELETE /web/orgs/current/code-hosting": CodeHosting,
  ...ADMIN_ANSWERS,
  ...GOVERNANCE_ANSWERS,
  ...RULES_ANSWERS,
  // ---- expertises
  "GET /web/orgs/current/expertises": o({ expertises: a(o({ ...ExpertiseRow, publishedDeclaredVersion: n(S) })) }),
  "POST /web/orgs/current/expertises": Expertise,
  "GET /web/orgs/current/expertises/{id}": Expertise,
  "PATCH /web/orgs/current/expertises/{id}": Expertise,
  "DELETE /web/orgs/current/expertises/{id}": o({ deleted: S }),
  "POST /web/orgs/current/expertises/{id}/trigger-proposal": o({
    id: S,
    revision: I,
    files: a(o({ value: S, why: S })),
    keywords: a(o({ value: S, why: S })),
    confirmed: n(Triggers),
    triggersConfirmedAt: n(S),
  }),
  "PUT /web/orgs/current/expertises/{id}/triggers": Expertise,
  "POST /web/orgs/current/expertises/{id}/publish": Expertise,
  "POST /web/orgs/current/expertises/{id}/activate": Expertise,
  "POST /web/orgs/current/expertises/{id}/deactivate": Expertise,
  "POST /web/orgs/current/expertises/{id}/reactivate": Expertise,
  "GET /web/orgs/current/expertises/{id}/versions/{version}": o({ ...Version, content: S, fileDigests: map(S) }),
  // ---- catalog and specializations
  ...CATALOG_ANSWERS,
  "GET /web/specializations": o({ specializations: a(Specialization) }),
  "POST /web/specializations": o({ specialization: Specialization }),
  "GET /web/specializations/{id}": o({ specialization: Specialization }),
  "PATCH /web/specializations/{id}": o({ specialization: Specialization }),
  "DELETE /web/specializations/{id}": o({ deleted: S }),
  "POST /web/specializations/{id}/duplicate": o({ specialization: Specialization }),
  "GET /web/search": o({ items: a(o({ type: S, id: S, label: S, detail: S, href: S })) }),
  // ---- projects
  "GET /web/projects": o({ projects: a(ProjectView) }),
  "POST /web/projects": Project,
  "GET /web/projects/{id}": Project,
  "PATCH /web/projects/{id}": Project,
  "DELETE /web/projects/{id}": o({ deleted: S, name: S }),
  "GET /web/projects/{id}/keys": o({ keys: a(Key) }),
  "POST /web/projects/{id}/keys": o({ key: Key, value: S, notice: S }),
  "DELETE /web/projects/{id}/keys/{keyId}": o({ key: Key }),
  "GET /web/projects/{id}/installed": o({
    talents: a(
      o({
        id: S,
        kind: S,
        state: S,
        servable: B,
        title: S,
        summary: S,
        version: S,
        requires: a(S),
        missingDependencies: a(S),
        disabledDependencies: a(S),
        installedAt: S,
        requiredByPolicy: B,
      }),
    ),
    missing: a(S),
    counts: o({ installed: I, active: I, disabled: I, missing: I }),
    policy: n(o({ requiredTalents: a(S), setBy: n(S) })),
  }),
  "POST /web/projects/{id}/talents": SelectionChange,
  "PATCH /web/projects/{id}/talents/{talentId}": o({ id: S, state: S, changed: B, dependents: a(S) }),
  "DELETE /web/projects/{id}/talents/{talentId}": o({ uninstalled: S, dependents: a(S) }),
  "POST /web/projects/{id}/apply-specialization": o({
    specialization: o({ id: S, name: S }),
    talents: a(S),
    installed: a(S),
    alreadyInstalled: a(S),
  }),
  "GET /web/projects/{id}/traces/summary": o({ projectId: S, ...Window, totals: Totals, byDay: a(Day) }),
  "GET /web/projects/{id}/talents/{talentId}/usage": o({
    projectId: S,
    talentId: S,
    kind: S,
    ...Window,
    installed: n(o({ state: S, installedAt: S })),
    designated: I,
    audited: I,
    auditRate: n(I),
    withVerdict: I,
    verdictRate: n(I),
    verdicts: Verdicts,
    outcomes: Verdicts,
    latestVersion: n(S),
    versions: a(o({ version: S, latest: B, designated: I, audited: I, firstServedAt: S, lastServedAt: S })),
    lastUsedAt: n(S),
    lastVerdict: n(o({ verdict: S, at: S, resolutionId: S, reportId: S })),
    byDay: a(o({ date: S, designated: I, audited: I })),
  }),
  "GET /web/activity/summary": o({
    organizationId: S,
    ...Window,
    totals: Totals,
    byDay: a(Day),
    projects: a(o({ id: S, name: S, totals: Totals, byDay: a(Day) })),
  }),
  // projects at fault, never-audited resolutions and failing expertises: items not declared field by field yet (open)
  "GET /web/orgs/current/insights": o({
    organizationId: S,
    ...Window,
    failedCalls: o({
      total: I,
      byDay: a(o({ date: S, count: I, byCode: map(I) })),
      byCode: a(
        o({ code: n(S), status: I, count: I, lastAt: S, byKind: map(I), projects: a(o({ projectId: S, projectName: S, count: I })) }),
      ),
    }),
    keys: a(
      o({
        reason: S,
        keyId: S,
        name: S,
        projectId: S,
        projectName: S,
        automation: B,
        createdAt: S,
        expiresAt: n(S),
        lastUsedAt: n(S),
        createdBy: o({ id: S, email: n(S) }),
      }),
    ),
    projects: a(open),
    neverAudited: o({ served: I, neverAudited: I, share: n(N), graceMinutes: I, byProject: a(open), byClient: a(open), recent: a(open) }),
    requiredNotDesignated: o({
      requiredTalents: a(S),
      resolutions: I,
      lacking: I,
      recent: a(o({ resolutionId: S, projectId: S, projectName: S, createdAt: S, requiredNotDesignated: a(S) })),
    }),
    expertises: a(open),
    budgetCuts: o({
      resolutions: I,
      projects: a(
        o({ projectId: S, projectName: S, budget: I, defaultBudget: B, prepared: I, cut: I, talents: a(o({ id: S, count: I })) }),
      ),
    }),
    selfAudit: o({
      passes: I,
      contradicted: I,
      share: n(N),
      byClient: a(o({ name: S, passes: I, contradicted: I, share: n(N) })),
      cases: a(o({ ...SelfAuditCase, rules: a(o({ rule: S, findings: I })), author: S, client: n(S), clientName: S, href: S })),
    }),
  }),
  "GET /web/orgs/current/talent-adoption": o({
    organizationId: S,
    ...Window,
    projects: I,
    talents: a(
      o({
        id: S,
        kind: S,
        title: n(S),
        expertiseId: n(S),
        status: n(S),
        projects: o({ installed: I, active: I }),
        designations: I,
        audited: I,
        auditRate: n(I),
        withVerdict: I,
        verdictRate: n(I),
        verdicts: Verdicts,
        outcomes: Verdicts,
        latestVersion: n(S),
        versions: a(o({ version: S, latest: B, designations: I, lastServedAt: S })),
        lastUsedAt: n(S),
      }),
    ),
  }),
  "GET /web/projects/{id}/traces": o({
    events: a(
      o({
        id: S,
        at: S,
        kind: S,
        via: S,
        author: o({ type: S, id: S, name: S }),
        client: n(S),
        runId: n(S),
        scope: n(S),
        talentsEntered: a(S),
        talentsLeft: a(S),
        resolutionId: n(S),
        status: I,
        durationMs: N,
        detail: n(open),
      }),
    ),
    nextBefore: n(S),
  }),
  "GET /web/projects/{id}/resolutions/{resolutionId}/reports": o({
    resolutionId: S,
    reports: a(
      o({
        reportId: S,
        submissionId: S,
        recordedAt: S,
        author: o({ type: S, id: S }),
        results: a(
          o({ talentId: S, kind: S, verdict: S, evidence: a(S), missing: a(S), note: n(S), evidenceLinks: a(o({ evidence: S, url: S })) }),
        ),
      }),
    ),
  }),
  "GET /web/projects/{id}/relevance": Relevance,
  "PUT /web/projects/{id}/relevance": Relevance,
  "DELETE /web/projects/{id}/relevance": Relevance,
  "GET /web/projects/{id}/setup": o({
    mcpUrl: S,
    clients: a(o({ id: S, name: S, command: S, file: S, content: S, docs: S })),
    instructions: o({ file: S, content: S }),
    automation: o({ env: o({ TALENTD_URL: S, TALENTD_KEY: S }), scopes: a(S), tokenRoute: S, hook: S }),
  }),
  "POST /web/projects/{id}/token": o({ key: Key, value: S, revoked: a(S), env: o({ TALENTD_URL: S, TALENTD_KEY: S }), notice: S }),
  "GET /web/projects/{id}/validator-config": o({ target: S, file: S, content: S }),
  "POST /web/projects/{id}/file": o({ file: TalentFile }),
};
