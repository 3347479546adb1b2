/** @jsxImportSource hono/jsx */
/**
 * The organization's pages (docs/api.md "Pages"): `/org/new` (create an organization over `POST /web/orgs`, or its
 * own post without JavaScript)
 * and `/org` (its approval status; members and roles; invitations; code hosting; links to
 * single sign-on, mail, expertises, insights and adoption). While the active organization is
 * not approved, `/org` is its status page and nothing else (docs/design.md "Organizations and their data", rule 1), and the layout's
 * banner says so on every page. Members see the members, the status and the code hosting;
 * invitations, settings forms and the links to the owner/admin pages are not shown to them.
 */
import { Elysia } from "elysia";
import type { Child } from "hono/jsx";
import type { CoreDeps } from "../../deps";
import { getCodeHosting } from "../codeHosting";
import { listInvitations, listMembers } from "../service";
import { CODE_HOSTING_SAVED, CodeHostingSection, type CodeHostingAttempt } from "../views/codeHosting";
import { readCodeHosting, setCodeHosting } from "../codeHosting";
import { statusCookie } from "../../ui/status";
import { userActor } from "../../audit/record";
import { type InvitationAttempt, invitationFieldOf, InvitationsSection, MembersSection, StatusCard } from "../views/org";
import { invitedLine, sendInvitation } from "../invite";
import { isOrgAdmin } from "../../ui/pageGuard";
import { Layout, page } from "../../ui/layout";
import { Field, FormActions, RefusalLine, refusalOf, type Refusal } from "../../ui/form";
import { AppError, validationFailed } from "../../http/errors";
import { formField } from "../../http/form";
import { createPageGuard, type PageContext } from "../pageSessions";
import { createOwnOrganization } from "../service";
import { places } from "../../ui/places";

/** Whether a new organization of this person is approved at once (the setting, or a platform administrator's). */
const approvedAtOnce = (deps: CoreDeps, ctx: PageContext) => deps.config.autoApproveOrgs || ctx.session.user.role === "admin";

/**
 * `/org/new`: with JavaScript its form sends `POST /web/orgs`; without, it posts to `POST /org/new`, whose refusal (a
 * taken or bad short name, no name) answers this page again with what was typed and the problem under its field.
 */
function NewOrgPage(props: {
  ctx: PageContext;
  approvedAtOnce: boolean;
  attempt?: { values: { name: string; slug: string }; refusal: Refusal };
}) {
  const v = props.attempt?.values;
  const at = (field: string) => props.attempt?.refusal.fields[field] ?? null;
  return (
    <Layout title="New organization" user={props.ctx.session.user} nav={props.ctx.nav}>
      <div class="card narrow">
        <h1>New organization</h1>
        <p class="muted">
          An organization holds projects, members and private expertises. You become its owner, and it becomes your active organization.
        </p>
        <p>
          {props.approvedAtOnce
            ? "It is approved at once."
            : "A platform administrator approves new organizations: until then it is pending, and only its status can be seen."}
        </p>
        <form method="post" action="/org/new" hx-post="/web/orgs" id="new-org-form">
          <RefusalLine id="new-org-refused" refusal={props.attempt?.refusal} />
          <Field id="org-name" label="Name" error={at("org-name")}>
            <input name="name" required maxlength={100} autofocus value={v?.name ?? ""} />
          </Field>
          <Field
            id="org-slug"
            label="Short name"
            help="Optional: lower-case letters, digits and -; it names private expertises, @short-name/…"
            error={at("org-slug")}
          >
            <input
              name="slug"
              maxlength={40}
              pattern="[a-z0-9]+(-[a-z0-9]+)*"
              title="lower-case letters and digits separated by -"
              autocomplete="off"
              value={v?.slug ?? ""}
            />
          </Field>
          <FormActions>
            <button type="submit">Create the organization</button>
          </FormActions>
        </form>
      </div>
    </Layout>
  );
}

/** A refused post of a form of /org without JavaScript: what was typed, and the problems by field. */
export interface OrgAttempts {
  codeHosting?: CodeHostingAttempt;
  invitation?: InvitationAttempt;
}

/** `/org` for the signed-in person (`attempts`: a refused form shown again; `status`: its answer's). */
async function orgPage(deps: CoreDeps, ctx: PageContext, attempts: OrgAttempts = {}, status = 200): Promise<Response> {
  const org = ctx.active;
  const layout = (title: string, body: Child) =>
    page(
      <Layout title={title} user={ctx.session.user} nav={ctx.nav}>
        {body}
      </Layout>,
      status,
      status === 200 ? {} : { "cache-control": "no-store" },
    );
  if (!org) {
    return layout(
      "Organization",
      <div class="card">
        <h1>No organization yet</h1>
        <p>Accept an invitation a colleague sent you (its link opens the way in), or create an organization.</p>
        <p>
          <a class="button" href="/org/new">
            Create an organization
          </a>
        </p>
      </div>,
    );
  }
  const heading = (
    <div class="row">
      <h1>{org.name}</h1>
      <a class="button secondary" href="/org/new">
        New organization
      </a>
    </div>
  );
  if (org.status !== "approved")
    return layout(
      org.name,
      <>
        {heading}
        <StatusCard org={org} />
      </>,
    );
  const admin = isOrgAdmin(org);
  const [members, invitations, codeHosting] = await Promise.all([
    listMembers(deps.database, org.id),
    admin ? listInvitations(deps.database, org.id) : Promise.resolve([]),
    getCodeHosting(deps.database, org.id),
  ]);
  return layout(
    org.name,
    <>
      {heading}
      <StatusCard org={org} />
      <MembersSection members={members} viewer={{ userId: ctx.session.user.id, role: org.role }} orgName={org.name} />
      {admin ? (
        <InvitationsSection
          invitations={invitations}
          baseUrl={deps.config.baseUrl}
          viewerRole={org.role}
          mail={deps.config.smtpUrl !== undefined}
          attempt={attempts.invitation}
        />
      ) : null}
      <CodeHostingSection codeHosting={codeHosting} admin={admin} attempt={attempts.codeHosting} />
      {admin ? (
        <section class="card" aria-labelledby="more-h">
          <h2 id="more-h">Settings and analytics</h2>
          <ul class="links">
            {places.org
              .filter((p) => p.admin)
              .map((l) => (
                <li>
                  <a href={l.href}>{l.title}</a> <span class="muted small">— {l.text}</span>
                </li>
              ))}
          </ul>
        </section>
      ) : null}
    </>,
  );
}

export function orgPages(deps: CoreDeps) {
  return new Elysia()
    .use(createPageGuard(deps))
    .get("/org/new", async ({ page: ctx }) => page(<NewOrgPage ctx={ctx} approvedAtOnce={approvedAtOnce(deps, ctx)} />), {
      page: "signedIn",
    })
    .post(
      "/org/new",
      async ({ page: ctx, body }) => {
        const values = { name: formField(body, "name") ?? "", slug: (formField(body, "slug") ?? "").trim() };
        try {
          if (values.name.trim() === "" || values.name.length > 100)
            throw validationFailed([{ path: "name", message: "name is required (at most 100 characters)" }]);
          await createOwnOrganization(deps, ctx.session, { name: values.name, slug: values.slug || undefined });
        } catch (e) {
          if (!(e instanceof AppError) || (e.code !== "validation_failed" && e.code !== "conflict")) throw e;
          const attempt = { values, refusal: refusalOf(e, (path) => (path === "name" || path === "slug" ? `org-${path}` : "")) };
          const html = <NewOrgPage ctx={ctx} approvedAtOnce={approvedAtOnce(deps, ctx)} attempt={attempt} />;
          return page(html, e.status, { "cache-control": "no-store" });
        }
        return new Response(null, { status: 303, headers: { location: "/org", "cache-control": "no-store" } });
      },
      { page: "signedIn" },
    )
    .get("/org", async ({ page: ctx }) => orgPage(deps, ctx), { page: "signedIn" })
    .post(
      "/org/code-hosting",
      async ({ page: ctx, org, body, request }) => {
        const values = {
          provider: formField(body, "provider") ?? "",
          url: formField(body, "url") ?? "",
          defaultBranch: formField(body, "defaultBranch") ?? "",
        };
        try {
          const settings = readCodeHosting(values);
          await deps.database.write((tx) => setCodeHosting(tx, org.id, settings, userActor(ctx.session.user)));
        } catch (e) {
          if (!(e instanceof AppError) || e.code !== "validation_failed") throw e;
          const field = (path: string) => ({ provider: "ch-provider", url: "ch-url", defaultBranch: "ch-branch" })[path] ?? "";
          return orgPage(deps, ctx, { codeHosting: { values, refusal: refusalOf(e, field) } }, e.status);
        }
        const headers = { location: "/org", "cache-control": "no-store", "set-cookie": statusCookie(CODE_HOSTING_SAVED, request) };
        return new Response(null, { status: 303, headers });
      },
      { orgPage: { admin: "No such page for your role: code hosting is set by the organization's owners and admins." } },
    )
    .post(
      "/org/invitations",
      async ({ page: ctx, org, body, request }) => {
        const values = { email: (formField(body, "email") ?? "").trim(), role: formField(body, "role") ?? "member" };
        let sent: { email: string; role: string };
        try {
          sent = await sendInvitation(deps, ctx.session.user, org, values);
        } catch (e) {
          if (!(e instanceof AppError) || (e.code !== "validation_failed" && e.code !== "conflict")) throw e;
          return orgPage(deps, ctx, { invitation: { values, refusal: refusalOf(e, invitationFieldOf) } }, e.status);
        }
        const headers = { location: "/org", "cache-control": "no-store", "set-cookie": statusCookie(invitedLine(deps, sent), request) };
        return new Response(null, { status: 303, headers });
      },
      { orgPage: { admin: "No such page for your role: invitations are sent by the organization's owners and admins." } },
    );
}
