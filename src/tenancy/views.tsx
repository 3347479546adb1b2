/** @jsxImportSource hono/jsx */
/**
 * The HTML views of the tenancy routes (docs/design.md "JSON by default, HTML when a browser asks": a resource's fragments beside its routes):
 * the organization's approval status, its members with their roles, its invitations (with the
 * accept link, for installs without mail) and its code hosting; the platform administrators'
 * table of organizations is in adminViews.tsx. The pages (src/web/orgPages.tsx, src/web/adminPages.tsx) render the
 * same components; after a change through htmx the route answers the updated section with a
 * line saying what changed (registered in registerTenancyViews).
 *
 * Who sees which control follows the service's rules (service.ts): owners change any role
 * (the owner role included) and remove anyone; admins change and remove members and admins;
 * everyone may leave. The last owner is not hidden from these controls: the server refuses
 * (409 last_owner) and the page says why.
 */
import type { CoreDeps, ViewDeps } from "../deps";
import { sessionOf } from "../auth/guards";
import { activeOrganization } from "../auth/session";
import type { MemberRole, OrgStatus } from "../db/schema";
import { MEMBER_ROLES } from "../db/schema";
import { AppError } from "../http/errors";
import { iso } from "../lib/time";
import type { ViewContext } from "../ui/views";
import { confirmations } from "../ui/confirmations";
import { getCodeHosting, CODE_HOSTS, type CodeHosting } from "./codeHosting";
import { AdminOrganizations, refererStatus, statusFilter } from "./views/admin";
import { Notice, when } from "../ui/parts";
import { listAllOrganizations, listInvitations, listMembers, type OrgMembership } from "./service";
import { DataTable } from "../ui/layout";

const STATUS_TEXT: Record<OrgStatus, string> = {
  pending:
    "A platform administrator must approve it before its projects, catalog, members and settings can be used. Nothing else is needed from you: this page shows the change as soon as it is made.",
  approved: "Approved: its projects, catalog and settings are in use.",
  rejected: "A platform administrator declined it. Its projects cannot be used; ask a platform administrator if this is a mistake.",
  suspended:
    "A platform administrator suspended it. Its projects, keys and agents are refused until it is reactivated; ask a platform administrator.",
};

/** The approval status of the organization (spec: "Organization approval"). */
export function StatusCard(props: { org: OrgMembership }) {
  const o = props.org;
  return (
    <section class="card" id="status" aria-labelledby="status-h">
      <h2 id="status-h">Approval status</h2>
      <p>
        <span class={`state ${o.status}`}>{o.status}</span> {STATUS_TEXT[o.status]}
      </p>
      <p class="muted small">
        Your role in {o.name} (<code>{o.slug}</code>): {o.role}.
      </p>
    </section>
  );
}

export interface MemberView {
  userId: string;
  email: string;
  name: string | null;
  role: MemberRole;
  joinedAt: number;
}

/** The roles the viewer may give to a member whose role is `current` (none: no control). */
function assignable(viewer: MemberRole, current: MemberRole): readonly MemberRole[] {
  if (viewer === "owner") return MEMBER_ROLES;
  if (viewer === "admin" && current !== "owner") return MEMBER_ROLES.filter((r) => r !== "owner");
  return [];
}

/** Whether the viewer is offered to remove this member (leaving is always offered on one's own row). */
const removable = (viewer: MemberRole, target: MemberRole): boolean => viewer === "owner" || (viewer === "admin" && target !== "owner");

/** Members and roles: change a role, remove a member, leave. */
export function MembersSection(props: {
  members: MemberView[];
  viewer: { userId: string; role: MemberRole };
  orgName: string;
  notice?: string;
}) {
  const { viewer } = props;
  const owners = props.members.filter((m) => m.role === "owner").length;
  return (
    <section class="card" id="members" aria-labelledby="members-h">
      <h2 id="members-h">Members ({props.members.length})</h2>
      <Notice text={props.notice} />
      <p class="muted small">
        Owners manage everything, owners included; admins manage members, admins, invitations and settings; members use the projects. An
        organization keeps at least one owner ({owners} now).
      </p>
      <table>
        <caption class="visually-hidden">Members of {props.orgName} and their roles</caption>
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Role</th>
            <th scope="col">Joined (UTC)</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.members.map((m) => {
            const self = m.userId === viewer.userId;
            const roles = assignable(viewer.role, m.role);
            const target = `/web/orgs/current/members/${m.userId}`;
            return (
              <tr data-member={m.email}>
                <td>
                  {m.email}
                  {self ? <span class="tag">you</span> : null}
                  {m.name ? <div class="muted small">{m.name}</div> : null}
                </td>
                <td>
                  {roles.length > 0 ? (
                    <form
                      class="inline"
                      method="post"
                      action={`${target}?_method=PATCH`}
                      hx-patch={target}
                      hx-target="#members"
                      hx-swap="outerHTML"
                      data-reset-on-error
                    >
                      <label class="visually-hidden" for={`role-${m.userId}`}>
                        Role of {m.email}
                      </label>
                      <select id={`role-${m.userId}`} name="role">
                        {roles.map((r) => (
                          <option value={r} selected={r === m.role}>
                            {r}
                          </option>
                        ))}
                      </select>
                      <button type="submit" class="secondary small">
                        Change<span class="visually-hidden"> the role of {m.email}</span>
                      </button>
                    </form>
                  ) : (
                    <span class={`role ${m.role}`}>{m.role}</span>
                  )}
                </td>
                <td class="small">{when(m.joinedAt)}</td>
                <td>
                  {self ? (
                    <form
                      method="post"
                      action={`${target}?_method=DELETE`}
                      hx-delete={target}
                      hx-target="#members"
                      hx-swap="outerHTML"
                      hx-confirm={confirmations.leave(props.orgName).question}
                    >
                      <button type="submit" class="secondary small">
                        Leave {props.orgName}
                      </button>
                    </form>
                  ) : removable(viewer.role, m.role) ? (
                    <form
                      method="post"
                      action={`${target}?_method=DELETE`}
                      hx-delete={target}
                      hx-target="#members"
                      hx-swap="outerHTML"
                      hx-confirm={confirmations.removeMember(m.email, props.orgName).question}
                    >
                      <button type="submit" class="danger small">
                        Remove<span class="visually-hidden"> {m.email}</span>
                      </button>
                    </form>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

export interface InvitationView {
  id: string;
  email: string;
  role: MemberRole;
  expiresAt: number;
  createdAt: number;
}

/**
 * Pending invitations (send, resend, revoke), each with its accept link: without a mail
 * server (an air-gapped install) the mail only reaches the outbox and the log, so the person
 * who invites hands the link over.
 */
export function InvitationsSection(props: {
  invitations: InvitationView[];
  baseUrl: string;
  viewerRole: MemberRole;
  mail: boolean;
  notice?: string;
  now?: number;
}) {
  const now = props.now ?? Date.now();
  const base = "/web/orgs/current/invitations";
  return (
    <section class="card" id="invitations" aria-labelledby="invitations-h">
      <h2 id="invitations-h">Invitations</h2>
      <Notice text={props.notice} />
      {props.mail ? (
        <p class="muted small">Each invitation is mailed; its link is here too, should the mail not arrive.</p>
      ) : (
        <p class="muted small">
          No mail server is configured (<code>SMTP_URL</code>): invitations reach the server's log and outbox only. Copy the link of an
          invitation and hand it over yourself.
        </p>
      )}
      {props.invitations.length === 0 ? (
        <p class="muted">No pending invitation.</p>
      ) : (
        <DataTable caption="Pending invitations" columns={["Invited", "Role", "Expires (UTC)", "Accept link", "Actions"]}>
          {props.invitations.map((i) => {
            const expired = i.expiresAt <= now;
            return (
              <tr data-invitation={i.email}>
                <td>{i.email}</td>
                <td>{i.role}</td>
                <td class="small">
                  {expired ? <span class="state expired">expired</span> : null} {when(i.expiresAt)}
                </td>
                <td>
                  <div class="copy-row">
                    <code id={`link-${i.id}`} class="small">{`${props.baseUrl}/accept-invitation/${i.id}`}</code>
                    <button type="button" class="secondary small" data-copy={`#link-${i.id}`}>
                      Copy<span class="visually-hidden"> the link for {i.email}</span>
                    </button>
                  </div>
                </td>
                <td>
                  <div class="row-actions">
                    <form
                      method="post"
                      action={`${base}/${i.id}/resend`}
                      hx-post={`${base}/${i.id}/resend`}
                      hx-target="#invitations"
                      hx-swap="outerHTML"
                    >
                      <input type="hidden" name="return" value="/org" />
                      <button type="submit" class="secondary small">
                        {expired ? "Renew and resend" : "Resend"}
                        <span class="visually-hidden"> the invitation of {i.email}</span>
                      </button>
                    </form>
                    <form
                      method="post"
                      action={`${base}/${i.id}?_method=DELETE`}
                      hx-delete={`${base}/${i.id}`}
                      hx-target="#invitations"
                      hx-swap="outerHTML"
                      hx-confirm={confirmations.revokeInvitation(i.email).question}
                    >
                      <button type="submit" class="danger small">
                        Revoke<span class="visually-hidden"> the invitation of {i.email}</span>
                      </button>
                    </form>
                  </div>
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      <form class="card sub" method="post" action={base} hx-post={base} hx-target="#invitations" hx-swap="outerHTML">
        <h3>Invite someone</h3>
        <input type="hidden" name="return" value="/org" />
        <label for="invite-email">E-mail</label>
        <input id="invite-email" name="email" type="email" required maxlength={254} autocomplete="off" />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          {(props.viewerRole === "owner" ? MEMBER_ROLES : MEMBER_ROLES.filter((r) => r !== "owner")).map((r) => (
            <option value={r} selected={r === "member"}>
              {r}
            </option>
          ))}
        </select>
        <p>
          <button type="submit">Send the invitation</button> <span class="muted small">valid 7 days</span>
        </p>
      </form>
    </section>
  );
}

/** Code hosting (docs/api.md "Code hosting"): where the organization's repositories live; evidence links are made from it. Members read it, owners and admins set it. */
export function CodeHostingSection(props: { codeHosting: CodeHosting | null; admin: boolean; notice?: string }) {
  const h = props.codeHosting;
  const route = "/web/orgs/current/code-hosting";
  return (
    <section class="card" id="code-hosting" aria-labelledby="code-hosting-h">
      <h2 id="code-hosting-h">Code hosting</h2>
      <Notice text={props.notice} />
      <p class="muted small">
        Where the organization's repositories live. With a project's repository, the evidence of verdicts (<code>path:line</code>) links to
        the line.
      </p>
      {!props.admin ? (
        h ? (
          <dl class="facts">
            <dt>Provider</dt>
            <dd>{h.provider}</dd>
            <dt>URL</dt>
            <dd>
              <code>{h.url}</code>
            </dd>
            <dt>Default branch</dt>
            <dd>{h.defaultBranch}</dd>
          </dl>
        ) : (
          <p class="muted">Not set.</p>
        )
      ) : (
        <>
          {/* no `return` field: the route takes only the settings; the browser comes back to its Referer, /org */}
          <form method="post" action={`${route}?_method=PUT`} hx-put={route} hx-target="#code-hosting" hx-swap="outerHTML">
            <label for="ch-provider">Provider</label>
            <select id="ch-provider" name="provider">
              {CODE_HOSTS.map((p) => (
                <option value={p} selected={h?.provider === p}>
                  {p}
                </option>
              ))}
            </select>
            <label for="ch-url">
              URL (the base of the repositories, e.g. https://github.com/acme; for other, a template with {"{repository}"}, {"{branch}"},{" "}
              {"{path}"}, {"{line}"})
            </label>
            <input id="ch-url" name="url" required maxlength={500} value={h?.url ?? ""} placeholder="https://github.com/acme" />
            <label for="ch-branch">Default branch</label>
            <input id="ch-branch" name="defaultBranch" maxlength={100} value={h?.defaultBranch ?? "main"} />
            <p>
              <button type="submit">Save code hosting</button>{" "}
              {h ? (
                // its own (empty) form, since forms do not nest: it posts none of the fields above
                <button
                  type="submit"
                  form="code-hosting-clear"
                  class="secondary"
                  hx-delete={route}
                  hx-target="#code-hosting"
                  hx-swap="outerHTML"
                  hx-confirm={confirmations.clearCodeHosting().question}
                >
                  Clear
                </button>
              ) : null}
            </p>
          </form>
          {h ? <form id="code-hosting-clear" method="post" action={`${route}?_method=DELETE`}></form> : null}
        </>
      )}
    </section>
  );
}

/** The route views of the organization and administration pages (registered once by createApp). */
export function registerTenancyViews(deps: ViewDeps): void {
  const registerView = deps.views.register.bind(deps.views);
  const viewer = async (ctx: ViewContext) => {
    const session = sessionOf(ctx.request);
    const org = session ? await activeOrganization(deps.database, session) : undefined;
    if (!session || !org) throw new AppError("no_active_organization");
    return { session, org };
  };
  const members = async (ctx: ViewContext, notice?: string) => {
    const { session, org } = await viewer(ctx);
    return (
      <MembersSection
        members={await listMembers(deps.database, org.id)}
        viewer={{ userId: session.user.id, role: org.role }}
        orgName={org.name}
        notice={notice}
      />
    );
  };
  const invitations = async (ctx: ViewContext, notice?: string) => {
    const { org } = await viewer(ctx);
    return (
      <InvitationsSection
        invitations={await listInvitations(deps.database, org.id)}
        baseUrl={deps.config.baseUrl}
        viewerRole={org.role}
        mail={deps.config.smtpUrl !== undefined}
        notice={notice}
      />
    );
  };
  registerView("POST", "/web/orgs", { redirect: () => "/org" });
  // the readings, as the same sections (htmx asks with HX-Request)
  registerView("GET", "/web/orgs/current/status", {
    fragment: async (_d, ctx) => {
      const session = sessionOf(ctx.request);
      const org = session ? await activeOrganization(deps.database, session) : null;
      return org ? <StatusCard org={org} /> : <p class="muted">No active organization.</p>;
    },
  });
  registerView("GET", "/web/orgs/current/members", { fragment: (_d, ctx) => members(ctx) });
  registerView("GET", "/web/orgs/current/invitations", { fragment: (_d, ctx) => invitations(ctx) });
  registerView("GET", "/web/orgs/current/code-hosting", {
    fragment: async (_d, ctx) => {
      const { org } = await viewer(ctx);
      return <CodeHostingSection codeHosting={await getCodeHosting(deps.database, org.id)} admin={org.role !== "member"} />;
    },
  });
  registerView("GET", "/web/admin/organizations", {
    fragment: async (_d, ctx) => (
      <AdminOrganizations
        organizations={await listAllOrganizations(deps.database)}
        status={statusFilter(new URL(ctx.request.url).searchParams.get("status"))}
      />
    ),
  });
  registerView("PATCH", "/web/orgs/current/members/:userId", {
    // one's own role changed: the whole page, since what it shows depends on that role
    redirect: (_d, ctx) => (ctx.params.userId === sessionOf(ctx.request)?.user.id ? "/org" : null),
    fragment: async (data, ctx) => {
      const d = data as { userId: string; role: string };
      const who = (await listMembers(deps.database, (await viewer(ctx)).org.id)).find((m) => m.userId === d.userId)?.email ?? "The member";
      return members(ctx, `${who} is now ${d.role}.`);
    },
  });
  registerView("DELETE", "/web/orgs/current/members/:userId", {
    // leaving: the organization's pages are no longer this person's
    redirect: (_d, ctx) => (ctx.params.userId === sessionOf(ctx.request)?.user.id ? "/" : null),
    fragment: (_d, ctx) => members(ctx, "The member was removed; their access ended at once."),
  });
  registerView("POST", "/web/orgs/current/invitations", {
    fragment: (data, ctx) => {
      const d = data as { email: string; role: string };
      return invitations(
        ctx,
        `${d.email} is invited as ${d.role}. ${deps.config.smtpUrl ? "The mail is on its way; " : ""}the accept link is below.`,
      );
    },
  });
  registerView("POST", "/web/orgs/current/invitations/:id/resend", {
    fragment: (data, ctx) =>
      invitations(
        ctx,
        `The invitation of ${(data as { email: string }).email} was sent again; it is valid 7 more days, with the same link.`,
      ),
  });
  registerView("DELETE", "/web/orgs/current/invitations/:id", {
    fragment: (_d, ctx) => invitations(ctx, "The invitation was revoked; its link no longer works."),
  });
  const codeHosting = async (ctx: ViewContext, notice: string) => {
    const { org } = await viewer(ctx);
    return <CodeHostingSection codeHosting={await getCodeHosting(deps.database, org.id)} admin={true} notice={notice} />;
  };
  registerView("PUT", "/web/orgs/current/code-hosting", { fragment: (_d, ctx) => codeHosting(ctx, "Code hosting saved.") });
  registerView("DELETE", "/web/orgs/current/code-hosting", { fragment: (_d, ctx) => codeHosting(ctx, "Code hosting cleared.") });
  registerView("POST", "/web/admin/organizations/:id/:operation", {
    fragment: async (data, ctx) => {
      const o = (data as { organization: { name: string; status: string } }).organization;
      return (
        <AdminOrganizations
          organizations={await listAllOrganizations(deps.database)}
          status={refererStatus(ctx.request)}
          notice={`${o.name} is now ${o.status}.`}
        />
      );
    },
  });
}
