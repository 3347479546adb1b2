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
import { requireConfirmation } from "../../http/methodOverride";
import { confirmations } from "../../ui/confirmations";

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

/** Install, apply a specialization, enable, disable, uninstall: each traced. */
function selectionChangeRoutes(deps: SelectionDeps, guards: Guards) {
  const src = () => ({ database: deps.database, catalog: deps.state.catalog! });
  const trace = selectionTracer(deps);
  return new Elysia({ prefix: "/web/projects/:id" })
    .use(guards)
    .post(
      "/talents",
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
        org: "member",
        // prerequisites: which of the talents a form ticked as required by the others (only its status line reads them)
        body: t.Object({ talent: t.Optional(t.Unknown()), talents: t.Optional(t.Unknown()), prerequisites: t.Optional(t.Unknown()) }),
      },
    )
    .post(
      "/apply-specialization",
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
        org: "member",
        body: t.Object({
          specializationId: t.String({ minLength: 1, maxLength: 100, error: "specializationId must be a specialization id" }),
        }),
      },
    )
    .patch(
      "/talents/*",
      async ({ auth, org, params, body, request }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const talentId = decodedParam(params["*"], "talentId");
        const enabled = body.enabled === true || body.enabled === "true"; // htmx and forms send "true" / "false"
        const change = await deps.database.write((tx) =>
          setEnabled(tx, project.id, talentId, enabled, { organizationId: org.id, actor: userActor(auth.user) }),
        );
        trace(request, auth, project.id, enabled ? "enable" : "disable", change);
        return { id: talentId, state: enabled ? "active" : "disabled", changed: change.entered.length + change.left.length > 0 };
      },
      {
        org: "member",
        body: t.Object({
          enabled: t.Union([t.Boolean(), t.Literal("true"), t.Literal("false")], { error: "enabled must be true or false" }),
        }),
      },
    )
    .delete(
      "/talents/*",
      async ({ auth, org, params, body, request }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const talentId = decodedParam(params["*"], "talentId");
        await requireConfirmation(request, body, () => confirmations.uninstall(talentId));
        const change = await deps.database.write((tx) =>
          uninstall(tx, project.id, talentId, { organizationId: org.id, actor: userActor(auth.user) }),
        );
        trace(request, auth, project.id, "uninstall", change);
        return { uninstalled: talentId };
      },
      { org: "member" },
    );
}

/** The installed overview, the activity journal and a resolution's reports. */
function projectReadRoutes(deps: SelectionDeps, guards: Guards) {
  const src = () => ({ database: deps.database, catalog: deps.state.catalog! });
  return new Elysia({ prefix: "/web/projects/:id" })
    .use(guards)
    .get(
      "/installed",
      async ({ org, params }) => {
        const project = await getProject(deps.database, org.id, params.id);
        return installedOverview(src(), project);
      },
      { org: "member" },
    )
    .get(
      "/traces",
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
      { org: "member" },
    )
    .get(
      "/resolutions/:resolutionId/reports",
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
      { org: "member" },
    );
}
