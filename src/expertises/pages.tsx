/** @jsxImportSource hono/jsx */
/**
 * `/org/expertises` (docs/api.md "Pages"): the private expertises of the active organization, for its owners
 * and admins only (anyone else, and another organization's id, gets the 404 page). The list with
 * its status filter and the creation form; `/org/expertises/:id`: the editor of the working
 * version, the validator's findings beside their lines, triggers, lifecycle, versions, delete.
 *
 * The editor posts to the page itself (`POST /org/expertises/:id`) rather than to the JSON
 * route, so that a revision conflict can answer the page with the person's text beside the
 * server's (409), and a refused save keeps what was typed (400). It calls the same service as
 * `PATCH /web/orgs/current/expertises/:id`, under the same rules.
 */
import { Elysia } from "elysia";
import type { Child } from "hono/jsx";
import type { CatalogDeps } from "../catalog/state";
import { parseCreate, parseListQuery, parsePatch } from "./model";
import { detailView, expertiseNotFound, findExpertise, listExpertises } from "./service";
import { createAudited, deleteAudited, updateAudited } from "./audited";
import { userActor } from "../audit/record";
import { proposeTriggers } from "./triggers";
import { Editor, IssuesByLine, type Draft, type ServerVersion } from "./views/editor";
import { DeleteSection, LifecycleSection, triggerFieldOf, TriggersSection, VersionsSection, type TriggerAttempt } from "./views/lifecycle";
import { CreateForm, EXPERTISES_PAGE, ExpertiseList, idFollowsSlug, type CreateAttempt } from "./views/list";
import { AppError, type Issue } from "../http/errors";
import type { OrgMembership } from "../tenancy/service";
import { createPageGuard, type PageContext } from "../tenancy/pageSessions";
import type { OrgPageRule } from "../ui/pageGuard";
import { Layout, page } from "../ui/layout";
import { statusCookie } from "../ui/status";
import { refusalOf } from "../ui/form";
import { formField } from "../http/form";
import { typedNameRefusal } from "../http/methodOverride";
import { confirmTriggersOfBody } from "./audited";
import { EXPERTISE_DONE } from "./views/fragments";

/** The answer after a change made by a page's own form: back to a page, never cached, the status line saying what was done. */
function seeOther(location: string, request: Request, done: keyof typeof EXPERTISE_DONE): Response {
  const headers = { location, "cache-control": "no-store", "set-cookie": statusCookie(EXPERTISE_DONE[done]!, request) };
  return new Response(null, { status: 303, headers });
}

/** The guard of the organization's owner/admin pages built on its expertises and usage: a member gets the 404 page and learns nothing. */
export const EXPERTISES_ADMIN: OrgPageRule = { admin: expertiseNotFound().message };

/** Reads the editor's form: TALENT.md, the numbered file fields, the expected revision. */
function readEditorForm(body: unknown): {
  raw: { expectedRevision: unknown; content: unknown; files: Record<string, string> };
  draft: Draft;
} {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const count = Math.min(Number(b.fileCount) || 0, 100);
  const files: Record<string, string> = {};
  for (let n = 0; n < count; n++) {
    const path = typeof b[`fpath_${n}`] === "string" ? (b[`fpath_${n}`] as string).trim() : "";
    const text = typeof b[`ftext_${n}`] === "string" ? (b[`ftext_${n}`] as string).replace(/\r\n/g, "\n") : "";
    if (path !== "") files[path] = text;
  }
  const content = typeof b.content === "string" ? b.content.replace(/\r\n/g, "\n") : b.content;
  return {
    raw: { expectedRevision: b.expectedRevision, content, files },
    draft: { content: typeof content === "string" ? content : "", files },
  };
}

/** The list page with the creation form (`attempt`: a refused creation, shown beside its fields). */
async function listPage(
  deps: CatalogDeps,
  ctx: PageContext,
  org: OrgMembership,
  opts: { status?: string; attempt?: CreateAttempt; httpStatus?: number },
): Promise<Response> {
  const items = await listExpertises(deps.database, org, parseListQuery({ status: opts.status }));
  return page(
    <Layout title="Expertises" user={ctx.session.user} nav={ctx.nav}>
      <h1>Expertises of {org.name}</h1>
      <p class="muted">
        Private talents of the organization: written here, verified by the talent validator, published into versions, and served once
        active.
      </p>
      <p>
        <a href={`${EXPERTISES_PAGE}/import`}>Import rules</a>{" "}
        <span class="muted">from AGENTS.md, CLAUDE.md, Cursor or Copilot rule files, as drafts.</span>
      </p>
      <ExpertiseList items={items} status={opts.status} />
      <CreateForm attempt={opts.attempt} />
    </Layout>,
    opts.httpStatus ?? 200,
  );
}

/**
 * The creation form's post (`POST /org/expertises`, with or without JavaScript): the template's id
 * takes the slug, the same service as `POST /web/orgs/current/expertises` creates the draft; a
 * refusal (400, or 409 for a taken slug) answers the list page with the error beside its field.
 */
async function createFromForm(deps: CatalogDeps, ctx: PageContext, org: OrgMembership, body: unknown, request: Request): Promise<Response> {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const slug = typeof b.slug === "string" ? b.slug.trim() : "";
  const content = typeof b.content === "string" ? idFollowsSlug(b.content.replace(/\r\n/g, "\n"), slug) : "";
  try {
    const input = parseCreate({ slug, content });
    const row = await deps.database.write((tx) => createAudited(tx, { ...input, organizationId: org.id }, userActor(ctx.session.user)));
    return seeOther(`${EXPERTISES_PAGE}/${row.id}?done=created`, request, "created");
  } catch (e) {
    if (!(e instanceof AppError) || (e.code !== "conflict" && e.code !== "validation_failed")) throw e;
    const fieldOf = (path: string) => (path === "slug" || path === "content" ? path : "");
    const problems =
      e.code === "conflict"
        ? [{ field: fieldOf(String(e.details.field ?? "")), message: e.message }]
        : (e.details.issues as Issue[]).map((i) => ({ field: fieldOf(i.path), message: i.message }));
    return listPage(deps, ctx, org, { attempt: { slug, content, problems }, httpStatus: e.status });
  }
}

export function orgExpertisesPages(deps: CatalogDeps) {
  const catalog = () => deps.state.catalog;
  const detailPage = async (
    ctx: PageContext,
    org: OrgMembership,
    id: string,
    opts: {
      draft?: Draft;
      server?: ServerVersion;
      editedRevision?: number;
      issues?: Issue[];
      propose?: boolean;
      triggers?: TriggerAttempt;
      deletion?: { typed: string; error: string };
      status?: number;
    },
  ) => {
    const e = await detailView(deps.database, await findExpertise(deps.database, org.id, id), org.slug, catalog());
    const body: Child = (
      <>
        <p class="crumbs">
          <a href={EXPERTISES_PAGE}>Expertises</a> /
        </p>
        <h1>
          <code>{e.ref}</code>
        </h1>
        {e.title ? <p class="muted">{e.title}</p> : null}
        <LifecycleSection e={e} />
        <Editor e={e} draft={opts.draft} server={opts.server} editedRevision={opts.editedRevision} issues={opts.issues} />
        <IssuesByLine ref={e.ref} content={e.working.content} issues={e.verification.issues} findings={e.verification.content} />
        <TriggersSection e={e} proposal={opts.propose ? proposeTriggers(e.working.content) : undefined} attempt={opts.triggers} />
        <VersionsSection e={e} />
        <DeleteSection e={e} attempt={opts.deletion} />
      </>
    );
    return page(
      <Layout title={`${e.ref} · Expertises`} user={ctx.session.user} nav={ctx.nav}>
        {body}
      </Layout>,
      opts.status ?? 200,
    );
  };

  /**
   * The trigger form's post without JavaScript (`POST /org/expertises/:id?form=triggers`, the page's own address): confirmed
   * as `PUT …/:id/triggers` would → 303 back; a bad line (400) or a stale revision (409) → this page again with the lines
   * as typed, each problem under its list.
   */
  const triggersFromForm = async (ctx: PageContext, org: OrgMembership, id: string, body: unknown, request: Request) => {
    try {
      await confirmTriggersOfBody(deps.database, org.id, id, body, true, ctx.session.user);
    } catch (e) {
      if (!(e instanceof AppError) || (e.code !== "validation_failed" && e.code !== "expertise_revision_conflict")) throw e;
      const typed = { files: formField(body, "files") ?? "", keywords: formField(body, "keywords") ?? "" };
      // after a stale revision's refusal the form confirms against the current one; otherwise against what was typed on
      const revision = e.code === "validation_failed" ? Number(formField(body, "expectedRevision")) || undefined : undefined;
      return detailPage(ctx, org, id, { triggers: { ...typed, revision, refusal: refusalOf(e, triggerFieldOf) }, status: e.status });
    }
    return seeOther(`${EXPERTISES_PAGE}/${id}?done=triggers`, request, "triggers");
  };

  /**
   * The deletion card's post without JavaScript (`POST /org/expertises/:id?form=delete`): the slug typed exactly → deleted
   * as `DELETE …/:id` would, 303 to the list; otherwise this page again (400) with what was typed and why under the field.
   */
  const deleteFromForm = async (ctx: PageContext, org: OrgMembership, id: string, body: unknown, request: Request) => {
    const row = await findExpertise(deps.database, org.id, id);
    const refusal = typedNameRefusal(body, row.slug, "expertise");
    if (refusal) {
      const error = (refusal.details.issues as Issue[])[0]!.message;
      return detailPage(ctx, org, id, { deletion: { typed: formField(body, "confirm") ?? "", error }, status: refusal.status });
    }
    await deps.database.write((tx) => deleteAudited(tx, org.id, id, userActor(ctx.session.user)));
    return seeOther(`${EXPERTISES_PAGE}?done=deleted`, request, "deleted");
  };

  return new Elysia()
    .use(createPageGuard(deps))
    .get(
      EXPERTISES_PAGE,
      async ({ page: ctx, org, query }) => {
        const status = typeof query.status === "string" && query.status !== "" ? query.status : undefined;
        return listPage(deps, ctx, org, { status });
      },
      { orgPage: EXPERTISES_ADMIN },
    )
    .post(EXPERTISES_PAGE, async ({ page: ctx, org, body, request }) => createFromForm(deps, ctx, org, body, request), {
      orgPage: EXPERTISES_ADMIN,
    })
    .get(
      `${EXPERTISES_PAGE}/:id`,
      async ({ page: ctx, org, params, query }) => {
        return detailPage(ctx, org, params.id, { propose: query.propose === "1" });
      },
      { orgPage: EXPERTISES_ADMIN },
    )
    .post(
      `${EXPERTISES_PAGE}/:id`,
      async ({ page: ctx, org, params, body, request, query }) => {
        await findExpertise(deps.database, org.id, params.id);
        if (query.form === "triggers") return triggersFromForm(ctx, org, params.id, body, request);
        if (query.form === "delete") return deleteFromForm(ctx, org, params.id, body, request);
        const { raw, draft } = readEditorForm(body);
        try {
          const input = parsePatch(raw);
          await deps.database.write((tx) => updateAudited(tx, org.id, params.id, input, userActor(ctx.session.user)));
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          if (e.code === "expertise_revision_conflict") {
            const current = e.details.current as ServerVersion;
            return detailPage(ctx, org, params.id, {
              draft,
              server: current,
              editedRevision: Number(e.details.expectedRevision) || undefined,
              status: 409,
            });
          }
          if (e.code === "validation_failed")
            return detailPage(ctx, org, params.id, { draft, issues: e.details.issues as Issue[], status: 400 });
          throw e;
        }
        return seeOther(`${EXPERTISES_PAGE}/${params.id}?done=saved`, request, "saved");
      },
      { orgPage: EXPERTISES_ADMIN },
    );
}
