/**
 * Sending an invitation to the active organization: `POST /web/orgs/current/invitations` (routes.ts) and the
 * invitation form of `/org` without JavaScript (`POST /org/invitations`, pages/org.tsx) check and store it the same way,
 * the invitation and its mail in one transaction.
 */
import type { CoreDeps } from "../deps";
import type { Tx } from "../db/client";
import { MEMBER_ROLES, type MemberRole } from "../db/schema";
import { validationFailed } from "../http/errors";
import { normalizeEmail } from "../identity/users";
import { queueMail } from "../mail/outbox";
import { invitationMail } from "../mail/templates";
import { userActor } from "../audit/record";
import { createInvitation } from "./service";

/** The e-mail address an invitation is sent to, as the routes check it. */
export const INVITE_EMAIL_PATTERN = "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$";
export const INVITE_EMAIL_ISSUE = "must be an e-mail address";
export const INVITE_ROLE_ISSUE = "must be owner, admin or member";

/** Queues the invitation mail (inside the caller's transaction, with the accept link from BASE_URL); returns the link. */
export async function mailInvitation(
  deps: CoreDeps,
  tx: Tx,
  from: string,
  org: { id: string; name: string },
  i: { id: string; email: string; role: string; expiresAt: number },
): Promise<string> {
  const link = `${deps.config.baseUrl}/accept-invitation/${i.id}`;
  await queueMail(
    tx,
    deps,
    invitationMail({
      to: i.email,
      inviter: from,
      organizationId: org.id,
      organizationName: org.name,
      role: i.role,
      link,
      expiresAt: i.expiresAt,
    }),
  );
  return link;
}

/**
 * Checks what was sent (400 naming `email` or `role`), then invites: 409 `conflict` when the address is already a
 * member's, 403 when an admin invites an owner. Returns the invitation with its accept link.
 */
export async function sendInvitation(
  deps: CoreDeps,
  user: { id: string; email: string },
  org: { id: string; name: string; role: MemberRole },
  input: { email: string; role?: string },
) {
  const issues = [];
  if (input.email.length > 254 || !new RegExp(INVITE_EMAIL_PATTERN).test(input.email))
    issues.push({ path: "email", message: INVITE_EMAIL_ISSUE });
  const role = input.role ?? "member";
  if (!(MEMBER_ROLES as readonly string[]).includes(role)) issues.push({ path: "role", message: INVITE_ROLE_ISSUE });
  if (issues.length > 0) throw validationFailed(issues);
  const email = normalizeEmail(input.email);
  return deps.database.write(async (tx) => {
    const i = await createInvitation(tx, {
      organizationId: org.id,
      email,
      role: role as MemberRole,
      actor: { ...userActor(user), role: org.role },
    });
    return { ...i, link: await mailInvitation(deps, tx, user.email, org, i) };
  });
}

/** What sending an invitation says in the status line. */
export function invitedLine(deps: { config: { smtpUrl?: string } }, i: { email: string; role: string }): string {
  return `${i.email} is invited as ${i.role}. ${deps.config.smtpUrl ? "The mail is on its way; " : ""}the accept link is below.`;
}
