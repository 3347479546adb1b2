/** @jsxImportSource hono/jsx */
/**
 * The organization's sections (tenancy/pages/org.tsx, and the fragments of its routes:
 * fragments.tsx): its approval status, its members with their roles, its invitations (with the
 * accept link, for installs without mail).
 *
 * Who sees which control follows the service's rules (service.ts): owners change any role
 * (the owner role included) and remove anyone; admins change and remove members and admins;
 * everyone may leave. The last owner is not hidden from these controls: the server refuses
 * (409 last_owner) and the page says why.
 */
import type { MemberRole, OrgStatus } from "../../db/schema";
import { MEMBER_ROLES } from "../../db/schema";
import { confirmations } from "../../ui/confirmations";
import { Breakable, Notice, when } from "../../ui/parts";
import { type OrgMembership } from "../service";
import { DataTable } from "../../ui/layout";
import { Field, FormActions, RefusalLine, type Refusal } from "../../ui/form";

const STATUS_TEXT: Record<OrgStatus, string> = {
  pending:
    "A platform administrator must approve it before its projects, catalog, members and settings can be used. Nothing else is needed " +
    "from you: this page shows the change as soon as it is made.",
  approved: "Approved: its projects, catalog and settings are in use.",
  rejected: "A platform administrator declined it. Its projects cannot be used; ask a platform administrator if this is a mistake.",
  suspended:
    "A platform administrator suspended it. Its projects, keys and agents are refused until it is reactivated; ask a platform " +
    "administrator.",
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
      <DataTable
        label="Members"
        caption={`Members of ${props.orgName} and their roles`}
        columns={["Member", "Role", "Joined (UTC)", "Actions"]}
      >
        {props.members.map((m) => {
          const self = m.userId === viewer.userId;
          const roles = assignable(viewer.role, m.role);
          const target = `/web/orgs/current/members/${m.userId}`;
          return (
            <tr data-member={m.email}>
              <td>
                <Breakable text={m.email} />
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
                {self && m.role === "owner" && owners === 1 ? (
                  // the server refuses it (409 last_owner): the only owner is told what to do instead
                  <span class="muted small" data-last-owner>
                    The only owner: make another member owner to leave
                  </span>
                ) : self ? (
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
      </DataTable>
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

/** A refused invitation posted without JavaScript (`POST /org/invitations`): what was typed, and the problems by field. */
export interface InvitationAttempt {
  values: { email: string; role: string };
  refusal: Refusal;
}

/** The invitation form's field of each issue's path (a 409 names `email`). */
export const invitationFieldOf = (path: string): string => ({ email: "invite-email", role: "invite-role" })[path] ?? "";

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
  attempt?: InvitationAttempt;
}) {
  const now = props.now ?? Date.now();
  const base = "/web/orgs/current/invitations";
  const a = props.attempt;
  const at = (field: string) => a?.refusal.fields[field] ?? null;
  const chosen = a?.values.role ?? "member";
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
                <td>
                  <Breakable text={i.email} />
                </td>
                <td>{i.role}</td>
                <td class="small">
                  {expired ? <span class="state expired">expired</span> : null} {when(i.expiresAt)}
                </td>
                <td>
                  <div class="copy-row">
                    <code id={`link-${i.id}`} class="small">
                      <Breakable text={`${props.baseUrl}/accept-invitation/${i.id}`} />
                    </code>
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
      <form class="card sub" method="post" action="/org/invitations" hx-post={base} hx-target="#invitations" hx-swap="outerHTML">
        <h3>Invite someone</h3>
        <RefusalLine id="invite-refused" refusal={a?.refusal} />
        <Field id="invite-email" label="E-mail" error={at("invite-email")}>
          <input name="email" type="email" required maxlength={254} autocomplete="off" value={a?.values.email} />
        </Field>
        <Field id="invite-role" label="Role" error={at("invite-role")}>
          <select name="role">
            {(props.viewerRole === "owner" ? MEMBER_ROLES : MEMBER_ROLES.filter((r) => r !== "owner")).map((r) => (
              <option value={r} selected={r === chosen}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <FormActions>
          <button type="submit">Send the invitation</button> <span class="muted small">valid 7 days</span>
        </FormActions>
      </form>
    </section>
  );
}
