/**
 * The selection in the dashboard (`/web/projects/:id/installed|talents`), the activity journal
 * (`/web/projects/:id/traces`) and the reports of a resolution: any member of the project's
 * organization. Selection changes are traced with the person as author, via `web`.
 */
import { decodedParam, intParam, patternParam } from "../../http/query";
import { Elysia, t } from "elysia";
import type { JournalDeps } from "../../journal/journal";
import type { CatalogDeps } from "../../catalog/state";
import type { Guards } from "../../auth/guards";
import { TRACE_ID } from "../../journal/journal";
import { clientOf } from "../../journal/trace";
import { elapsedMs, arrivalOf } from "../../http/edge";
import type { SessionRecord } from "../../auth/sessions";
import { listReports } from "../../resolution/reports";
import { loadResolution } from "../../resolution/pinned";
import { installByIds, installedWithItems } from "../../selection/sources";
import { readInstallIds, setEnabled, uninstall, type SelectionChange } from "../../selection/service";
import { installedOverview } from "../installed";
import { getProject } from "../service";
import { applySpecialization } from "../../specializations/service";
import { evidenceLink, getCodeHosting } from "../../tenancy/codeHosting";
import { iso } from "../../lib/time";
import { userActor } from "../../audit/record";
import { isConfirmed, isFormOverride, requireConfirmation, type Confirmation } from "../../http/methodOverride";
import { isHtmx } from "../../http/negotiate";
import { AppError } from "../../http/errors";
import { dependentsWithin } from "../../catalog/graph";
import { confirmations } from "../../ui/confirmations";
import { routeGuard, routePattern } from "../../http/route";
import { PROJECT } from "../describe";

type SelectionDeps = CatalogDeps & JournalDeps;

/** The selection, the activity journal and the reports of a project. */
export function selectionRoutes(deps: SelectionDeps, guards: Guards) {
  return new Elysia().use(selectionChangeRoutes(deps, guards)).use(projectReadRoutes(deps, guards));
}

/** Records a selection change in the activity journal, with the signed-in person as author, via `web`. */
function selectionTracer(deps: SelectionDeps) {
  return (
    request: Request,
    auth: SessionRecord,
    projectId: string,
    kind: string,
    change: SelectionChange,
    status = 200,
    detail: Record<string, unknown> | null = null,
  ) =>
    deps.journal.record({
      projectId,
      kind,
      via: "web",
      authorType: "user",
      authorId: auth.user.id,
      authorName: auth.user.email,
      client: clientOf(request),
      talentsEntered: change.entered,
      talentsLeft: change.left,
      status,
      durationMs: elapsedMs(request),
      arrival: arrivalOf(request),
      detail,
    });
}

/**
 * The enabled talents of the project that need `talentId` (its requires-closure through the installed ones). From a
 * browser (htmx, or a form without JavaScript) a disable or uninstall that would leave some without it is asked
 * first, naming them (400 validation_failed with `confirm` and `dependents`; nothing changed); `confirm=yes` (or
 * `1`) goes on. A JSON caller is not asked: its answer names them (docs/design.md "Risky selection changes name what
 * they break").
 */
async function dependentsAsked(
  deps: SelectionDeps,
  request: Request,
  body: unknown,
  project: { id: string; organizationId: string },
  talentId: string,
  ask: (talentId: string, dependents: readonly string[]) => Confirmation,
): Promise<string[]> {
  const o = await installedOverview({ database: deps.database, catalog: deps.state.catalog! }, project);
  const requires = new Map(o.talents.map((t) => [t.id, t.requires]));
  const enabled = o.talents.filter((t) => t.state === "active").map((t) => t.id);
  const dependents = requires.has(talentId) ? dependentsWithin(talentId, enabled, (id) => requires.get(id)) : [];
  if (dependents.length === 0 || isConfirmed(body) || !(isHtmx(request) || isFormOverride(request))) return dependents;
  const c = ask(talentId, dependents);
  throw new AppError("validation_failed", `${c.question} Nothing was changed yet: confirm to go on.`, {
    issues: [{ path: "confirm", message: "confirm the change (confirm=yes)" }],
    confirm: c,
    dependents,
  });
}

/** Install, apply a specialization, enable, disable, uninstall: each traced. */
function selectionChangeRoutes(deps: SelectionDeps, guards: Guards) {
  const src = () => ({ database: deps.database, catalog: deps.state.catalog! });
  const trace = selectionTracer(deps);
  const askIfNeeded = (...a: Parameters<typeof dependentsAsked> extends [unknown, ...infer R] ? R : never) => dependentsAsked(deps, ...a);
  return new Elysia()
    .use(guards)
    .post(
      routePattern(PROJECT.install),
      async ({ auth, org, params, body, request, set }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const b = body as Record<string, unknown>;
        // a form with one ticked checkbox sends talents=<id> once: from a form, that is a list of one
        const fromForm = (request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded");
        const ids = readInstallIds(fromForm && typeof b.talents === "string" ? { ...b, talents: [b.talents] } : b);
        const change = await installByIds(src(), org.id, project.id, ids, `user:${auth.user.id}`, userActor(auth.user));
        trace(request, auth, project.id, "install", change, 201);
        set.status = 201;
        return { installed: change.entered, alreadyInstalled: change.unchanged };
      },
      {
        ...routeGuard(PROJECT.install),
        // prerequisites: which of the talents a form ticked as required by the others (only its status line reads them)
        body: t.Object({ talent: t.Optional(t.Unknown()), talents: t.Optional(t.Unknown()), prerequisites: t.Optional(t.Unknown()) }),
      },
    )
    .post(
      routePattern(PROJECT.applySpecialization),
      async ({ auth, org, params, body, request }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const r = await applySpecialization(
          deps.database,
          deps.state.catalog!,
          project,
          body.specializationId,
          `user:${auth.user.id}`,
          userActor(auth.user),
        );
        // the specialization named, so the onboarding can say "Apply again" once something of it was uninstalled
        trace(request, auth, project.id, "apply_specialization", r.change, 200, { specialization: r.specialization.id });
        return {
          specialization: { id: r.specialization.id, name: r.specialization.name },
          talents: r.requested,
          installed: r.change.entered,
          alreadyInstalled: r.change.unchanged,
        };
      },
      {
        ...routeGuard(PROJECT.applySpecialization),
        body: t.Object({
          specializationId: t.String({ minLength: 1, maxLength: 100, error: "specializationId must be a specialization id" }),
        }),
      },
    )
    .patch(
      routePattern(PROJECT.updateTalent),
      async ({ auth, org, params, body, request }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const talentId = decodedParam(params["*"], "talentId");
        const enabled = body.enabled === true || body.enabled === "true"; // htmx and forms send "true" / "false"
        const dependents = enabled ? [] : await askIfNeeded(request, body, project, talentId, confirmations.disableNeeded);
        const change = await deps.database.write((tx) =>
          setEnabled(tx, project.id, talentId, enabled, { organizationId: org.id, actor: userActor(auth.user) }),
        );
        trace(request, auth, project.id, enabled ? "enable" : "disable", change);
        const changed = change.entered.length + change.left.length > 0;
        return { id: talentId, state: enabled ? "active" : "disabled", changed, dependents: changed ? dependents : [] };
      },
      {
        ...routeGuard(PROJECT.updateTalent),
        body: t.Object({
          enabled: t.Union([t.Boolean(), t.Literal("true"), t.Literal("false")], { error: "enabled must be true or false" }),
          // a browser's answer to the question a disable of a needed talent asks (dependentsAsked)
          confirm: t.Optional(t.Unknown()),
        }),
      },
    )
    .delete(
      routePattern(PROJECT.uninstall),
      async ({ auth, org, params, body, request }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const talentId = decodedParam(params["*"], "talentId");
        const dependents = await askIfNeeded(request, body, project, talentId, confirmations.uninstallNeeded);
        await requireConfirmation(request, body, () => confirmations.uninstall(talentId));
        const change = await deps.database.write((tx) =>
          uninstall(tx, project.id, talentId, { organizationId: org.id, actor: userActor(auth.user) }),
        );
        trace(request, auth, project.id, "uninstall", change);
        return { uninstalled: talentId, dependents };
      },
      routeGuard(PROJECT.uninstall),
    );
}

/** The installed overview, the activity journal and a resolution's reports. */
function projectReadRoutes(deps: SelectionDeps, guards: Guards) {
  const src = () => ({ database: deps.database, catalog: deps.state.catalog! });
  return new Elysia()
    .use(guards)
    .get(
      routePattern(PROJECT.installed),
      async ({ org, params }) => {
        const project = await getProject(deps.database, org.id, params.id);
        return installedOverview(src(), project);
      },
      routeGuard(PROJECT.installed),
    )
    .get(
      routePattern(PROJECT.traces),
      async ({ org, params, query }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const limit = intParam(query, "limit", 1, 200, 50);
        const before = patternParam(query, "before", TRACE_ID, "the nextBefore of a previous page (a trace event id)");
        const page = await deps.journal.list(project.id, limit, before);
        return {
          events: page.events.map((e) => ({
            id: e.id,
            at: iso(e.createdAt),
            kind: e.kind,
            via: e.via,
            author: { type: e.authorType, id: e.authorId, name: e.authorName },
            client: e.client,
            runId: e.runId,
            scope: e.scope,
            talentsEntered: e.talentsEntered,
            talentsLeft: e.talentsLeft,
            resolutionId: e.resolutionId,
            status: e.status,
            durationMs: e.durationMs,
            detail: e.detail,
          })),
          nextBefore: page.nextBefore,
        };
      },
      routeGuard(PROJECT.traces),
    )
    .get(
      routePattern(PROJECT.reports),
      async ({ org, params }) => {
        const project = await getProject(deps.database, org.id, params.id);
        await loadResolution(deps.database, project.id, params.resolutionId);
        const [reports, hosting] = await Promise.all([
          listReports(deps.database, project.id, params.resolutionId),
          getCodeHosting(deps.database, org.id),
        ]);
        // evidence path:line as links to the repository, when the organization's code hosting and the project's repository are set
        const link = (e: string) => ({ evidence: e, url: evidenceLink(hosting, project.repository, e) });
        return {
          resolutionId: params.resolutionId,
          reports: reports.map((r) => ({
            reportId: r.reportId,
            submissionId: r.submissionId,
            recordedAt: r.recordedAt,
            author: r.author,
            results: r.results.map((x) => ({ ...x, evidenceLinks: (x.evidence as string[]).map(link).filter((l) => l.url !== null) })),
          })),
        };
      },
      routeGuard(PROJECT.reports),
    );
}
