/** @jsxImportSource hono/jsx */
/**
 * The authoring form's pages (docs/design.md "Authoring an expertise with a form"), for the organization's owners and
 * admins: `/org/expertises/new` makes a draft from the form, `/org/expertises/:id/form` edits the working version with
 * it. Each posts to itself and saves through the same services as the YAML editor (`createAudited`, `updateAudited`,
 * with `parseCreate` / `parsePatch`): a refusal (400; 409 for a taken slug or a stale revision) answers the form again
 * with what was typed. A taken slug is said under the slug, with the expertise that holds it and a button that sends the
 * form again as a new draft version of it (formVersion.ts). A TALENT.md the form cannot show (no YAML front matter)
 * sends the person to the YAML editor.
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../catalog/state";
import { userActor } from "../audit/record";
import { AppError, type Issue } from "../http/errors";
import type { OrgMembership } from "../tenancy/service";
import { createPageGuard, type PageContext } from "../tenancy/pageSessions";
import { Layout, page } from "../ui/layout";
import { statusCookie } from "../ui/status";
import { blankFields, fieldsOfForm, fieldsOfTalentMd, talentMdOfFields, type AuthoringFields } from "./authoring";
import { createAudited, updateAudited } from "./audited";
import { parseCreate, parsePatch } from "./model";
import { EXPERTISES_ADMIN } from "./pages";
import { findExpertise } from "./service";
import { saveAsNewVersion, takenBy } from "./formVersion";
import { AuthoringForm, type SlugOffer } from "./views/authoringForm";
import { EXPERTISE_DONE } from "./views/fragments";
import { EXPERTISES_PAGE, pageOf } from "./views/list";

export const NEW_EXPERTISE_PAGE = `${EXPERTISES_PAGE}/new`;
/** The authoring form of one expertise. */
export const formPageOf = (id: string): string => `${pageOf(id)}/form`;

function seeOther(location: string, request: Request, done: "created" | "saved" | "version"): Response {
  const headers = { location, "cache-control": "no-store", "set-cookie": statusCookie(EXPERTISE_DONE[done]!, request) };
  return new Response(null, { status: 303, headers });
}

/** A refusal as the form's list of problems (a 409 names no issue: its sentence). */
const issuesOf = (e: AppError): Issue[] =>
  (e.details.issues as Issue[] | undefined) ?? [{ path: String(e.details.field ?? ""), message: e.message }];

type NewPageState = { fields: AuthoringFields; slug: string; issues?: Issue[]; offer?: SlugOffer | null; status?: number };

function newPage(ctx: PageContext, org: OrgMembership, o: NewPageState) {
  return page(
    <Layout title="New expertise · Expertises" user={ctx.session.user} nav={ctx.nav}>
      <p class="crumbs">
        <a href={EXPERTISES_PAGE}>Expertises</a> /
      </p>
      <h1>New expertise of {org.name}</h1>
      <AuthoringForm
        action={NEW_EXPERTISE_PAGE}
        fields={o.fields}
        slug={o.slug}
        issues={o.issues}
        offer={o.offer}
        yamlHref={`${EXPERTISES_PAGE}#create`}
      />
    </Layout>,
    o.status ?? 200,
  );
}

function editPage(
  ctx: PageContext,
  row: { id: string; slug: string; revision: number },
  org: OrgMembership,
  o: { fields: AuthoringFields | null; issues?: Issue[]; status?: number },
) {
  const ref = `@${org.slug}/${row.slug}`;
  return page(
    <Layout title={`${ref} · Form · Expertises`} user={ctx.session.user} nav={ctx.nav}>
      <p class="crumbs">
        <a href={EXPERTISES_PAGE}>Expertises</a> / <a href={pageOf(row.id)}>{ref}</a> /
      </p>
      <h1>
        <code>{ref}</code>
      </h1>
      {o.fields ? (
        <AuthoringForm
          action={formPageOf(row.id)}
          fields={o.fields}
          revision={row.revision}
          issues={o.issues}
          yamlHref={`${pageOf(row.id)}#editor`}
        />
      ) : (
        <section class="card" id="authoring">
          <p>
            Its TALENT.md has no YAML front matter the form can read: <a href={`${pageOf(row.id)}#editor`}>edit it in the YAML editor</a>.
          </p>
        </section>
      )}
    </Layout>,
    o.status ?? 200,
  );
}

/**
 * What a refused new form says: a taken slug under the slug, with the offer to save a new version of the expertise that
 * holds it (none for a deleted one's reserved slug); a version refused for a newer revision, the offer again at the new one.
 */
async function refusedNew(deps: CatalogDeps, org: OrgMembership, slug: string, e: AppError) {
  const taken = e.code === "validation_failed" ? null : await takenBy(deps.database, org.id, slug);
  const offer = taken ? { ref: `@${org.slug}/${taken.slug}`, href: pageOf(taken.id), id: taken.id, revision: taken.revision } : null;
  if (e.code === "expertise_revision_conflict") {
    const message = "Someone saved this expertise since it was offered: look at it first, then save as a new version again.";
    return { issues: [{ path: "slug", message }], offer };
  }
  return { issues: issuesOf(e), offer };
}

/** `GET` / `POST /org/expertises/new` and `/org/expertises/:id/form`. */
export function expertiseFormPages(deps: CatalogDeps) {
  return new Elysia()
    .use(createPageGuard(deps))
    .get(NEW_EXPERTISE_PAGE, ({ page: ctx, org }) => newPage(ctx, org, { fields: blankFields(), slug: "" }), { orgPage: EXPERTISES_ADMIN })
    .post(
      NEW_EXPERTISE_PAGE,
      async ({ page: ctx, org, body, request }) => {
        const fields = fieldsOfForm(body);
        const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
        const slug = typeof b.slug === "string" ? b.slug.trim() : "";
        const overwrite = typeof b.overwrite === "string" ? b.overwrite : "";
        try {
          if (overwrite !== "") {
            const target = { id: overwrite, slug, expectedRevision: b.overwriteRevision };
            const row = await saveAsNewVersion(deps.database, org.id, target, fields, userActor(ctx.session.user));
            return seeOther(`${pageOf(row.id)}?done=version`, request, "version");
          }
          const input = parseCreate({ slug, content: talentMdOfFields(fields, slug) });
          const row = await deps.database.write((tx) =>
            createAudited(tx, { ...input, organizationId: org.id }, userActor(ctx.session.user)),
          );
          return seeOther(`${pageOf(row.id)}?done=created`, request, "created");
        } catch (e) {
          const known = ["conflict", "validation_failed", "expertise_revision_conflict"];
          if (!(e instanceof AppError) || !known.includes(e.code)) throw e;
          return newPage(ctx, org, { fields, slug, ...(await refusedNew(deps, org, slug, e)), status: e.status });
        }
      },
      { orgPage: EXPERTISES_ADMIN },
    )
    .get(
      `${EXPERTISES_PAGE}/:id/form`,
      async ({ page: ctx, org, params }) => {
        const row = await findExpertise(deps.database, org.id, params.id);
        return editPage(ctx, row, org, { fields: fieldsOfTalentMd(row.workingContent) });
      },
      { orgPage: EXPERTISES_ADMIN },
    )
    .post(
      `${EXPERTISES_PAGE}/:id/form`,
      async ({ page: ctx, org, params, body, request }) => {
        const row = await findExpertise(deps.database, org.id, params.id);
        const fields = fieldsOfForm(body);
        const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
        try {
          // what the form does not show is kept from the working version it was read at (the revision check refuses a newer one)
          const input = parsePatch({
            expectedRevision: b.expectedRevision,
            content: talentMdOfFields(fields, row.slug, row.workingContent),
          });
          await deps.database.write((tx) => updateAudited(tx, org.id, row.id, input, userActor(ctx.session.user)));
          return seeOther(`${pageOf(row.id)}?done=saved`, request, "saved");
        } catch (e) {
          if (!(e instanceof AppError) || (e.code !== "expertise_revision_conflict" && e.code !== "validation_failed")) throw e;
          const issues =
            e.code === "expertise_revision_conflict"
              ? [{ path: "", message: `${e.message} Your form is below as you sent it: save again to write it over the newer version.` }]
              : issuesOf(e);
          // after a conflict the form saves against the current revision (the person saw the warning)
          return editPage(ctx, row, org, { fields, issues, status: e.status });
        }
      },
      { orgPage: EXPERTISES_ADMIN },
    );
}
