/**
 * `/web/orgs/current/expertises/*`: private expertises of the active organization
 * (docs/api-expertises.md). Owner and admin only: a member's request is answered exactly like an
 * unknown expertise (404 not_found), as is another organization's expertise (docs/design.md "Organizations and their data", rule 2).
 * The guard, a member's (the descriptors' `admits`), authenticates and checks approval (403 organization_not_approved);
 * the role is checked here, before any body is read, so a member learns nothing.
 */
import { iso } from "../lib/time";
import { userActor } from "../audit/record";
import type { SessionRecord } from "../auth/sessions";
import { confirmTriggersOfBody, createAudited, deleteAudited, lifecycleAudited, publishAudited, updateAudited } from "./audited";
import { Elysia } from "elysia";
import type { CatalogDeps } from "../catalog/state";
import type { Guards } from "../auth/guards";
import { ROLE_RANK } from "../auth/session";
import { validationFailed } from "../http/errors";
import { requireTypedName } from "../http/methodOverride";
import type { OrgMembership } from "../tenancy/service";
import type { LifecycleOperation } from "./lifecycle";
import { parseCreate, parseListQuery, parsePatch, parsePublish, parseVersionParam } from "./model";
import { detailView, expertiseNotFound, findExpertise, listExpertises, readVersion } from "./service";
import { proposeTriggers } from "./triggers";
import { importDrafts, importerOf } from "./importDrafts";
import { parseImport } from "./importRequest";
import { routeGuard, routePattern } from "../http/route";
import { EXPERTISE } from "./describe";

/** Owner or admin of the active organization; anyone else is told the expertise does not exist. */
function ownerOrAdmin(org: OrgMembership): OrgMembership {
  if (ROLE_RANK[org.role] < ROLE_RANK.admin) throw expertiseNotFound();
  return org;
}

/** What the expertise routes share: the database, the catalog, the detail view. */
function expertiseContext(deps: CatalogDeps) {
  const db = deps.database;
  const catalog = () => deps.state.catalog;
  const detail = async (org: OrgMembership, id: string) => detailView(db, await findExpertise(db, org.id, id), org.slug, catalog());
  return { db, catalog, detail };
}

type ExpertiseContext = ReturnType<typeof expertiseContext>;

/** The expertise routes of the active organization: list, create, read, edit, delete; triggers, publication, lifecycle, versions. */
export function expertiseRoutes(deps: CatalogDeps, guards: Guards) {
  const ctx = expertiseContext(deps);
  return new Elysia().use(expertiseEditRoutes(ctx, guards)).use(expertiseWorkflowRoutes(ctx, guards));
}

/** List, create, read, edit and delete. */
function expertiseEditRoutes({ db, catalog, detail }: ExpertiseContext, guards: Guards) {
  return new Elysia()
    .use(guards)
    .post(
      routePattern(EXPERTISE.import),
      // rule files as drafts (imports.ts): an owner's or admin's session, or a key with the import scope (talentd import)
      async ({ caller, body, set }) => {
        const importer = await importerOf(db, caller);
        const files = parseImport(body);
        const drafts = await db.write((tx) => importDrafts(tx, importer, files));
        set.status = 201;
        return { drafts };
      },
      routeGuard(EXPERTISE.import),
    )
    .get(
      routePattern(EXPERTISE.list),
      async ({ org, query }) => {
        ownerOrAdmin(org);
        const filter = parseListQuery(query as Record<string, string | undefined>);
        return { expertises: await listExpertises(db, org, filter) };
      },
      routeGuard(EXPERTISE.list),
    )
    .post(
      routePattern(EXPERTISE.create),
      async ({ auth, org, body, set }) => {
        ownerOrAdmin(org);
        const input = parseCreate(body);
        const row = await db.write((tx) => createAudited(tx, { ...input, organizationId: org.id }, userActor(auth.user)));
        set.status = 201;
        return detailView(db, row, org.slug, catalog());
      },
      routeGuard(EXPERTISE.create),
    )
    .get(
      routePattern(EXPERTISE.one),
      async ({ org, params }) => {
        ownerOrAdmin(org);
        return detail(org, params.id);
      },
      routeGuard(EXPERTISE.one),
    )
    .patch(
      routePattern(EXPERTISE.update),
      async ({ auth, org, params, body }) => {
        ownerOrAdmin(org);
        await findExpertise(db, org.id, params.id);
        const input = parsePatch(body);
        const row = await db.write((tx) => updateAudited(tx, org.id, params.id, input, userActor(auth.user)));
        return detailView(db, row, org.slug, catalog());
      },
      routeGuard(EXPERTISE.update),
    )
    .delete(
      routePattern(EXPERTISE.remove),
      async ({ auth, org, params, body, request }) => {
        ownerOrAdmin(org);
        await requireTypedName(request, body, async () => (await findExpertise(db, org.id, params.id)).slug, "expertise");
        await db.write((tx) => deleteAudited(tx, org.id, params.id, userActor(auth.user)));
        return { deleted: params.id };
      },
      routeGuard(EXPERTISE.remove),
    );
}

/** Triggers, publication, lifecycle and versions. */
function expertiseWorkflowRoutes({ db, catalog }: ExpertiseContext, guards: Guards) {
  const lifecycle =
    (op: Exclude<LifecycleOperation, "publish">) =>
    async ({ auth, org, params }: { auth: SessionRecord; org: OrgMembership; params: { id: string } }) => {
      ownerOrAdmin(org);
      const row = await db.write((tx) => lifecycleAudited(tx, org.id, params.id, op, userActor(auth.user)));
      return detailView(db, row, org.slug, catalog());
    };
  return new Elysia()
    .use(guards)
    .post(
      routePattern(EXPERTISE.proposeTriggers),
      async ({ org, params }) => {
        ownerOrAdmin(org);
        const row = await findExpertise(db, org.id, params.id);
        const proposal = proposeTriggers(row.workingContent);
        return {
          id: row.id,
          revision: row.revision,
          ...proposal,
          confirmed: row.triggers,
          triggersConfirmedAt: iso(row.triggersConfirmedAt),
        };
      },
      routeGuard(EXPERTISE.proposeTriggers),
    )
    .put(
      routePattern(EXPERTISE.confirmTriggers),
      async ({ auth, org, params, body, request }) => {
        ownerOrAdmin(org);
        await findExpertise(db, org.id, params.id);
        const form = (request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded");
        const row = await confirmTriggersOfBody(db, org.id, params.id, body, form, auth.user);
        return detailView(db, row, org.slug, catalog());
      },
      routeGuard(EXPERTISE.confirmTriggers),
    )
    .post(
      routePattern(EXPERTISE.publish),
      async ({ auth, org, params, body }) => {
        ownerOrAdmin(org);
        await findExpertise(db, org.id, params.id);
        const opts = parsePublish(body);
        const r = await db.write((tx) => publishAudited(tx, org, params.id, userActor(auth.user), catalog(), opts));
        return { ...(await detailView(db, r.row, org.slug, catalog())), published: { version: r.version, created: r.created } };
      },
      routeGuard(EXPERTISE.publish),
    )
    .post(routePattern(EXPERTISE.activate), lifecycle("activate"), routeGuard(EXPERTISE.activate))
    .post(routePattern(EXPERTISE.deactivate), lifecycle("deactivate"), routeGuard(EXPERTISE.deactivate))
    .post(routePattern(EXPERTISE.reactivate), lifecycle("reactivate"), routeGuard(EXPERTISE.reactivate))
    .get(
      routePattern(EXPERTISE.version),
      async ({ org, params }) => {
        ownerOrAdmin(org);
        const version = parseVersionParam(params.version);
        await findExpertise(db, org.id, params.id);
        if (version === undefined) throw validationFailed([{ path: "version", message: "must be a positive integer" }]);
        return readVersion(db, org.id, params.id, version);
      },
      routeGuard(EXPERTISE.version),
    );
}
