/**
 * The descriptors of the activity reads (`/web/activity/summary`, a project's journal summary, a talent's
 * use, insights, rule effectiveness, talent adoption, the evals: routes.ts, evalsRoutes.ts), docs/api.md
 * "Activity, insights and adoption": each route's OpenAPI row and answer (http/route.ts), collected by app.ts.
 * Then the key routes' (http/keyRoute.ts, listed in src/keyRoutes.ts): `talentd check`'s findings report
 * (findingsRoutes.ts, docs/api.md "Rule effectiveness"), the eval upload and the key's resolutions (evalsRoutes.ts).
 */
import type { KeyRoute } from "../http/keyRoute";
import type { RouteDescriptor } from "../http/route";
import type { OrgPlace } from "../ui/places";
import { a, B, I, int, map, N, n, o, obj, open, S, str, Verdicts } from "../http/schema";

const ArmEffect = o({ runs: I, findingsPerRun: N, findingsSpread: o({ min: I, max: I }), checkPassRate: n(N) });
const Effect = o({ talent: S, with: ArmEffect, without: ArmEffect, neverInvoked: I });
const EvalRunRow = o({ task: S, arm: S, run: I, findings: map(I), check: n(S), durationMs: I, invoked: B, timedOut: B });
/** One stored eval as listed. */
const EvalRow = o({
  evalId: S,
  createdAt: S,
  uploadedBy: S,
  runsPerArm: I,
  tasks: a(o({ id: S, talents: a(S) })),
  runs: a(EvalRunRow),
  effects: a(Effect),
});

const Window = { days: I, from: S, to: S, retentionDays: I };
/** An organization-wide read's first fields: the organization and the window. */
const OrgWindow = { organizationId: S, ...Window };
/** A pass the hook contradicted (insights' selfAudit.cases): where and when. */
const SelfAuditCase = { projectId: S, projectName: S, resolutionId: S, reportId: S, recordedAt: S, talentId: S };
const Counts = { events: I, failed: I, byKind: map(I), byClient: map(I), otherClients: I, resolutions: I, reports: I, verdicts: Verdicts };
const Totals = o({ ...Counts, clients: I, projects: I });
const Day = o({ date: S, ...Counts });
const Split = o({ served: I, notServed: I });
const Talent = o({
  talentId: S,
  href: S,
  served: I,
  audited: I,
  verdicts: Verdicts,
  findings: Split,
  rules: I,
  byClient: a(o({ client: n(S), name: S, served: I, audited: I })),
});
const Rule = o({
  talentId: S,
  ruleId: S,
  title: n(S),
  severity: n(S),
  href: S,
  served: I,
  audited: I,
  failVerdicts: I,
  findings: o({ served: I, notServed: I, total: I }),
  reports: I,
  byClient: a(o({ client: n(S), name: S, served: I, notServed: I })),
});
/** The fields of a rule-effectiveness answer, beside the project's or organization's id. */
const Rules = {
  window: o(Window),
  totals: o({ served: I, audited: I, verdicts: Verdicts, findings: Split }),
  failingAfterServed: a(Rule),
  failingTalents: a(Talent),
  servedNeverAudited: a(Talent),
  neverServed: a(Rule),
  talents: a(Talent),
  rules: a(Rule),
};
/** A talent's use in a window, in a project or across the organization: audits, verdicts, the latest version. */
const Use = { audited: I, auditRate: n(I), withVerdict: I, verdictRate: n(I), verdicts: Verdicts, outcomes: Verdicts, latestVersion: n(S) };
/** The window of days every read here takes (`?days=`, 1 to 90). */
const DAYS = [{ name: "days", schema: int(1, 90) }];
/** The rule reads' query: the window, and JSON or CSV. */
const DAYS_FORMAT = [...DAYS, { name: "format", schema: str({ enum: ["json", "csv"] }) }];

/** What the organization's members and admins read of the activity (the heavy reads under the read cap). */
export const ACTIVITY = {
  summary: {
    method: "GET",
    path: "/web/projects/{id}/traces/summary",
    summary: "Activity per day: calls by kind and client, failed calls, resolutions, reports, verdicts",
    access: "member",
    query: DAYS,
    errors: [400, 404, 429],
    answer: o({ projectId: S, ...Window, totals: Totals, byDay: a(Day) }),
  },
  talentUsage: {
    method: "GET",
    path: "/web/projects/{id}/talents/{talentId}/usage",
    summary: "One talent's use in a project: designations, audits, verdicts, versions served",
    access: "member",
    query: DAYS,
    errors: [400, 404, 429],
    route: "/web/projects/:id/talents/*",
    answer: o({
      projectId: S,
      talentId: S,
      kind: S,
      ...Window,
      installed: n(o({ state: S, installedAt: S })),
      designated: I,
      ...Use,
      versions: a(o({ version: S, latest: B, designated: I, audited: I, firstServedAt: S, lastServedAt: S })),
      lastUsedAt: n(S),
      lastVerdict: n(o({ verdict: S, at: S, resolutionId: S, reportId: S })),
      byDay: a(o({ date: S, designated: I, audited: I })),
    }),
  },
  activity: {
    method: "GET",
    path: "/web/activity/summary",
    summary: "The activity summary of every project of the organization",
    access: "member",
    query: DAYS,
    errors: [400, 429],
    answer: o({
      ...OrgWindow,
      totals: Totals,
      byDay: a(Day),
      projects: a(o({ id: S, name: S, totals: Totals, byDay: a(Day) })),
    }),
  },
  insights: {
    method: "GET",
    path: "/web/orgs/current/insights",
    summary: "Failed calls by code, keys to act on, projects at fault, never-audited resolutions, failing expertises",
    access: "admin",
    query: DAYS,
    errors: [400, 429],
    answer: o({
      ...OrgWindow,
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
  },
  projectRules: {
    method: "GET",
    path: "/web/projects/{id}/rules",
    summary: "Rule effectiveness in a project: served, audited, verdicts, findings served or not, by client (CSV with format=csv)",
    access: "member",
    query: DAYS_FORMAT,
    errors: [400, 404, 429],
    answer: o({ projectId: S, ...Rules }),
  },
  orgRules: {
    method: "GET",
    path: "/web/orgs/current/rules",
    summary: "Rule effectiveness across the organization (CSV with format=csv)",
    access: "admin",
    query: DAYS_FORMAT,
    errors: [400, 429],
    answer: o({ organizationId: S, ...Rules }),
  },
  adoption: {
    method: "GET",
    path: "/web/orgs/current/talent-adoption",
    summary: "Per talent and expertise: projects, designations, audit rate, outcomes, versions in use",
    access: "admin",
    query: DAYS,
    errors: [400, 429],
    answer: o({
      ...OrgWindow,
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
          ...Use,
          versions: a(o({ version: S, latest: B, designations: I, lastServedAt: S })),
          lastUsedAt: n(S),
        }),
      ),
    }),
  },
  evals: {
    method: "GET",
    path: "/web/projects/{id}/evals",
    summary: "The project's uploaded evals, newest first (talentd eval --upload)",
    access: "member",
    errors: [404],
    answer: o({ evals: a(EvalRow) }),
  },
} satisfies Record<string, RouteDescriptor>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const ACTIVITY_ROUTES: RouteDescriptor[] = Object.values(ACTIVITY);

/** The navigation entries of its pages (pages.tsx). */
export const ACTIVITY_PLACES: OrgPlace[] = [
  {
    href: "/org/insights",
    label: "Insights",
    title: "Insights",
    text: "operational health: failed calls, keys to act on, projects at fault",
    admin: true,
    header: true,
  },
  {
    href: "/org/talent-adoption",
    label: "Adoption",
    title: "Talent adoption",
    text: "which talents and expertises the projects use and audit",
    admin: true,
    header: true,
    also: "talent adoption",
  },
];

export const FINDINGS_ROUTE = {
  method: "POST",
  path: "/api/findings",
  scope: "validate",
  kind: "report_findings",
  summary: "Report detector findings of a talentd check run as counts per talent and rule",
  body: {
    ...obj({ resolutionId: str(), counts: map(map(int(0, 100_000))) }, ["counts"]),
    additionalProperties: false,
  },
  ok: 201,
  errors: [400, 404],
  answer: o({ rules: I, findings: I, served: a(S), notServed: a(S), resolutionId: n(S) }),
} satisfies KeyRoute;

export const EVALS_UPLOAD = {
  method: "POST",
  path: "/api/evals",
  scope: "validate",
  kind: "eval_upload",
  summary: "Store the summary of a talentd eval run (counts per rule, check results, durations, effects per talent; no code)",
  ok: 201,
  errors: [400],
  answer: o({ evalId: S, createdAt: S, runs: I, talents: I }),
} satisfies KeyRoute;

export const RESOLUTIONS_LIST = {
  method: "GET",
  path: "/api/resolutions",
  scope: "validate",
  kind: "resolutions",
  summary: "The newest resolutions prepared with the calling key (or token): id, time, channel and talents",
  query: [{ name: "limit", schema: int(1, 100) }],
  errors: [400],
  answer: o({ resolutions: a(o({ resolutionId: S, createdAt: S, via: S, talents: a(S) })) }),
} satisfies KeyRoute;
