/**
 * Activity, insights and adoption on the web (docs/api.md "Activity, insights and adoption"). Summaries
 * are for any member of the active organization; insights and adoption for its owners and
 * admins (others 403). Every route: a session, an approved active organization, another
 * organization's project → 404, a bad `days` → 400 validation_failed. Each is a heavy read,
 * capped per user (readCap.ts: DASHBOARD_READS_PER_USER in flight, the next 429 rate_limited).
 */
import { Elysia } from "elysia";
import type { JournalDeps } from "../journal/journal";
import type { CatalogDeps } from "../catalog/state";
import type { Guards } from "../auth/guards";
import { notFound } from "../http/errors";
import { decodedParam } from "../http/query";
import { getProject, listProjects } from "../projects/service";
import { insights } from "./insights";
import { organizationSummary, projectSummary, readWindow } from "./summaries";
import { adoptionView } from "./adoption";
import { dashboardReadCap } from "./readCap";
import { talentUsage } from "./usage";
import { ruleEffect, rulesCsv, type RuleEffect } from "./ruleEffect";
import { oneOf } from "../http/query";
import { routeGuard, routePattern } from "../http/route";
import { ACTIVITY } from "./describe";

const FORMATS = ["json", "csv"] as const;

/** The rules answer, or its rows as CSV with `?format=csv` (a download named after the window). */
function rulesAnswer(csv: boolean, name: string, d: RuleEffect): unknown {
  if (!csv) return d;
  return new Response(rulesCsv(d), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="rules-${name}-${d.window.days}d.csv"`,
    },
  });
}

/** The last segment of `…/talents/<talentId>/usage`: Elysia matches a wildcard only at the end of a path. */
const USAGE_SUFFIX = "/usage";

export function activityRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  const db = deps.database;
  const window = (query: Record<string, unknown>) => readWindow(query, deps.config.eventRetentionDays);
  const cap = dashboardReadCap(db, deps.config.dashboardReadsPerUser);
  return (
    new Elysia()
      .use(guards)
      .use(ruleRoutes(deps, guards, window, cap))
      .get(
        routePattern(ACTIVITY.summary),
        async ({ auth, org, params, query, request }) =>
          cap.run(auth.user.id, request, async () => {
            const project = await getProject(db, org.id, params.id);
            const w = window(query);
            await deps.journal.settle();
            return projectSummary(db, project.id, w);
          }),
        routeGuard(ACTIVITY.summary),
      )
      // GET /web/projects/:id/talents/<talentId>/usage — the talent id may be `@org/slug`, raw or percent-encoded
      .get(
        routePattern(ACTIVITY.talentUsage),
        async ({ auth, org, params, query, request }) =>
          cap.run(auth.user.id, request, async () => {
            const project = await getProject(db, org.id, params.id);
            const rest = params["*"];
            if (!rest.endsWith(USAGE_SUFFIX) || rest.length === USAGE_SUFFIX.length) throw notFound("No such route.");
            const talentId = decodedParam(rest.slice(0, -USAGE_SUFFIX.length), "talentId");
            const w = window(query);
            await deps.journal.settle();
            return talentUsage(db, deps.state.catalog!, project, talentId, w);
          }),
        routeGuard(ACTIVITY.talentUsage),
      )
      .get(
        routePattern(ACTIVITY.activity),
        async ({ auth, org, query, request }) =>
          cap.run(auth.user.id, request, async () => {
            const w = window(query);
            const projects = await listProjects(db, org.id);
            await deps.journal.settle();
            return organizationSummary(db, org.id, projects, w);
          }),
        routeGuard(ACTIVITY.activity),
      )
      .get(
        routePattern(ACTIVITY.insights),
        async ({ auth, org, query, request }) =>
          cap.run(auth.user.id, request, async () => {
            const w = window(query);
            const projects = await listProjects(db, org.id);
            await deps.journal.settle();
            return insights(db, deps.state.catalog!, org, projects, w);
          }),
        routeGuard(ACTIVITY.insights),
      )
      .get(
        routePattern(ACTIVITY.adoption),
        async ({ auth, org, query, request }) =>
          cap.run(auth.user.id, request, async () => {
            const w = window(query);
            const projects = await listProjects(db, org.id);
            await deps.journal.settle();
            return adoptionView(db, deps.state.catalog!, org, projects.length, w);
          }),
        routeGuard(ACTIVITY.adoption),
      )
  );
}

/** The rules' effect, of a project and of the organization (JSON, or CSV with `?format=csv`). */
function ruleRoutes(
  deps: CatalogDeps & JournalDeps,
  guards: Guards,
  window: (query: Record<string, unknown>) => ReturnType<typeof readWindow>,
  cap: ReturnType<typeof dashboardReadCap>,
) {
  const db = deps.database;
  return new Elysia()
    .use(guards)
    .get(
      routePattern(ACTIVITY.projectRules),
      async ({ auth, org, params, query, request }) =>
        cap.run(auth.user.id, request, async () => {
          const project = await getProject(db, org.id, params.id);
          const w = window(query);
          const csv = oneOf(query, "format", FORMATS) === "csv";
          await deps.journal.settle();
          const d = await ruleEffect(db, deps.state.catalog!, { projectId: project.id }, w);
          return rulesAnswer(csv, project.id, { projectId: project.id, ...d } as RuleEffect);
        }),
      routeGuard(ACTIVITY.projectRules),
    )
    .get(
      routePattern(ACTIVITY.orgRules),
      async ({ auth, org, query, request }) =>
        cap.run(auth.user.id, request, async () => {
          const w = window(query);
          const csv = oneOf(query, "format", FORMATS) === "csv";
          await deps.journal.settle();
          const d = await ruleEffect(db, deps.state.catalog!, { organizationId: org.id }, w);
          return rulesAnswer(csv, org.slug, { organizationId: org.id, ...d } as RuleEffect);
        }),
      routeGuard(ACTIVITY.orgRules),
    );
}
