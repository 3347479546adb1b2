/** @jsxImportSource hono/jsx */
/**
 * The platform administration pages (docs/api.md "Pages"), for users with role admin:
 * `/admin` (organizations with approve / reject / suspend / reactivate), `/admin/users`, and
 * `/admin/security-events` (paged, newest first). Open whatever the administrator's own
 * organization's state (docs/design.md "Organizations and their data", rule 1). Anyone else gets the 404 page: the pages' existence
 * is not advertised to them.
 */
import { Elysia } from "elysia";
import type { Child } from "hono/jsx";
import type { CoreDeps } from "../../deps";
import { listAdminUsers } from "../adminUsers";
import { AdminUsers } from "../views/adminUsers";
import { listSecurityEvents } from "../../identity/security";
import { listUnownedMail } from "../../mail/outbox";
import { MailTable } from "../../mail/pages";
import { utcSecond } from "../../lib/time";
import { changeApproval, listAllOrganizations } from "../service";
import { AdminOrganizations, type RefusedStop, statusFilter } from "../views/admin";
import { notFound } from "../../http/errors";
import { formField } from "../../http/form";
import { userActor } from "../../audit/record";
import { DetailWords, idsIn, readNames } from "../../audit/names";
import { statusCookie } from "../../ui/status";
import { createPageGuard, type PageContext } from "../pageSessions";
import { DataTable, Layout, page } from "../../ui/layout";
import { Breakable } from "../../ui/parts";
import { places } from "../../ui/places";

const when = (ms: number): string => utcSecond(ms);

/** Events per page of /admin/security-events. */
const EVENTS_PAGE = 50;

function AdminLayout(props: { ctx: PageContext; title: string; path: string; children?: Child }) {
  return (
    <Layout title={`${props.title} · Administration`} user={props.ctx.session.user} nav={props.ctx.nav}>
      <h1>Platform administration</h1>
      <nav class="tabs" aria-label="Administration">
        {places.admin.map((t) => (
          <a href={t.href} aria-current={t.href === props.path ? "page" : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      {props.children}
    </Layout>
  );
}

/** The organizations' page, with a refused reject or suspend (400: the typed slug was not the organization's). */
async function organizationsPage(deps: CoreDeps, ctx: PageContext, status: string | undefined, refused?: RefusedStop) {
  const organizations = await listAllOrganizations(deps.database);
  return page(
    <AdminLayout ctx={ctx} title="Organizations" path="/admin">
      <AdminOrganizations organizations={organizations} status={statusFilter(status)} refused={refused} />
    </AdminLayout>,
    refused ? 400 : 200,
    refused ? { "cache-control": "no-store" } : {},
  );
}

/**
 * `POST /admin/organizations/:id/reject|suspend`: the typed-slug form without JavaScript (platform administrators, as
 * `POST /web/admin/organizations/:id/:operation`): the slug typed exactly → done, 303 to `/admin`; otherwise → 400 with
 * `/admin` again, that form open with what was typed and the problem under it; nothing changed.
 */
function stopFromForm(deps: CoreDeps) {
  return new Elysia().use(createPageGuard(deps)).post(
    "/admin/organizations/:id/:operation",
    async ({ page: ctx, params, body, request }) => {
      const operation = params.operation;
      if (operation !== "reject" && operation !== "suspend") throw notFound("No such operation.");
      const org = (await listAllOrganizations(deps.database)).find((o) => o.id === params.id);
      if (!org) throw notFound("No such organization.");
      const typed = formField(body, "confirm") ?? "";
      if (typed !== org.slug) {
        const error = typed
          ? `"${typed}" is not "${org.slug}": type the organization's slug exactly`
          : `type the organization's slug, "${org.slug}"`;
        return organizationsPage(deps, ctx, undefined, { orgId: org.id, operation, typed, error });
      }
      const changed = await deps.database.write((tx) => changeApproval(tx, org.id, operation, userActor(ctx.session.user)));
      const cookie = statusCookie(`${changed.name} is now ${changed.status}.`, request);
      return new Response(null, { status: 303, headers: { location: "/admin", "cache-control": "no-store", "set-cookie": cookie } });
    },
    { page: "platform" },
  );
}

export function adminPages(deps: CoreDeps) {
  return new Elysia()
    .use(createPageGuard(deps))
    .use(stopFromForm(deps))
    .get("/admin", async ({ page: ctx, query }) => organizationsPage(deps, ctx, query.status), { page: "platform" })
    .get(
      "/admin/users",
      async ({ page: ctx }) =>
        page(
          <AdminLayout ctx={ctx} title="Users" path="/admin/users">
            <AdminUsers users={await listAdminUsers(deps.database)} viewerId={ctx.session.user.id} />
          </AdminLayout>,
        ),
      { page: "platform" },
    )
    .get(
      "/admin/mail",
      async ({ page: ctx }) => {
        const mails = await listUnownedMail(deps.database);
        return page(
          <AdminLayout ctx={ctx} title="Mail" path="/admin/mail">
            <section aria-labelledby="mail-h">
              <h2 id="mail-h">Mail of no organization, not delivered yet</h2>
              <p class="muted">
                Password-reset mails belong to no organization, so no organization's admins see them fail. They are listed here without
                their content (a reset link is a secret); the person can ask for a new link once delivery works again. Organizations' own
                mails are on their <code>/org/mail</code> page.
              </p>
              {mails.length === 0 ? <p>Nothing waiting or failed.</p> : <MailTable mails={mails} />}
            </section>
          </AdminLayout>,
        );
      },
      { page: "platform" },
    )
    .get(
      "/admin/security-events",
      async ({ page: ctx, query }) => {
        const before = typeof query.before === "string" && /^[1-9][0-9]{0,15}$/.test(query.before) ? Number(query.before) : undefined;
        const events = await listSecurityEvents(deps.database, EVENTS_PAGE, before);
        const next = events.length >= EVENTS_PAGE ? events.at(-1)!.createdAt : null;
        // the projects, keys, people and organizations the details name, read once for the page
        const names = await readNames(deps.database, null, idsIn(events.map((e) => e.detail)));
        return page(
          <AdminLayout ctx={ctx} title="Security events" path="/admin/security-events">
            <section aria-labelledby="events-h">
              <h2 id="events-h">Security events{before ? ` before ${when(before)}` : ""}</h2>
              {events.length === 0 ? (
                <p class="muted">No security event{before ? " before this time" : " yet"}.</p>
              ) : (
                <DataTable caption="Security events, newest first" columns={["When (UTC)", "Event", "E-mail", "Address", "Detail"]}>
                  {events.map((e) => (
                    <tr>
                      <td class="small">{when(e.createdAt)}</td>
                      <td>
                        <code>{e.kind}</code>
                      </td>
                      <td>{e.email ? <Breakable text={e.email} /> : "—"}</td>
                      <td class="small">
                        {e.ip ?? "—"}
                        {e.userAgent ? <div class="muted small">{e.userAgent.slice(0, 80)}</div> : null}
                      </td>
                      <td class="small break">
                        <DetailWords detail={e.detail} names={names} />
                      </td>
                    </tr>
                  ))}
                </DataTable>
              )}
              <p>
                {before ? <a href="/admin/security-events">Newest</a> : null}
                {before && next ? " · " : null}
                {next ? <a href={`/admin/security-events?before=${next}`}>Older</a> : null}
              </p>
            </section>
          </AdminLayout>,
        );
      },
      { page: "platform" },
    );
}
