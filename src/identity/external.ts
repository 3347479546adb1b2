/**
 * Sign-in with an identity someone else vouches for: an external identity provider (GitHub,
 * GitLab, Google, Microsoft Entra ID, a generic OIDC provider) or an organization's SSO.
 * Whatever the protocol, it ends here with `{provider, subject, email, emailVerified}`; which
 * account it opens is decided by the rules of linking.ts (a linked identity signs in; a new
 * e-mail gets a new account; an unverified account is reclaimed; a verified one waits for its
 * holder's consent). Organization SSO then makes the person a member of its organization (new
 * members join as `member`) and acts in it.
 */
import type { Database } from "../db/client";
import { users } from "../db/schema";
import { eq } from "drizzle-orm";
import { listMemberships } from "../auth/memberships";
import { chooseAccount, joinThroughSso } from "./linking";
import { recordSecurityEvent } from "./security";
import { createSession, deleteSessionByToken } from "../auth/sessions";
import type { ClientMeta } from "./service";
import { EMAIL_PATTERN, normalizeEmail } from "./users";
import { ssoEnforcedFor } from "./sso";

/** What a provider said about the person, after its protocol's checks passed. */
export interface ExternalIdentity {
  /** `github`, `gitlab`, `google`, `microsoft`, `oidc`, or `sso:<organizationId>`. */
  provider: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name?: string | null;
}

/** A sign-in refused after the provider answered, with the /login code of its sentence. */
export class SignInRefused extends Error {
  override name = "SignInRefused";
  constructor(
    message: string,
    readonly code: "no_email" | "unverified" | "enforced" | "admin_sso" = "no_email",
    readonly domain?: string,
  ) {
    super(message);
  }
}

/** The identity belongs to a verified account that has not agreed to it yet: the person confirms at /account/link. */
export class LinkRequired extends Error {
  override name = "LinkRequired";
  constructor(
    readonly token: string,
    readonly email: string,
  ) {
    super(`An account with ${email} exists: sign in to it and confirm the link.`);
  }
}

/** The domain part of an e-mail address (lower case), or null. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf("@");
  return at > 0
    ? email
        .slice(at + 1)
        .trim()
        .toLowerCase()
    : null;
}

/**
 * Signs the person in (a new session; this browser's previous one ends). `joinOrganizationId`
 * (organization SSO): the user becomes a member if not already, and the session acts there.
 * Throws SignInRefused (a /login sentence) or LinkRequired (consent first).
 */
export async function signInExternal(
  database: Database,
  identity: ExternalIdentity,
  meta: ClientMeta,
  previousToken: string | null,
  joinOrganizationId?: string,
): Promise<{ userId: string; email: string; session: { token: string; expiresAt: number }; created: boolean; linked: boolean }> {
  const email = identity.email && EMAIL_PATTERN.test(identity.email.trim()) ? normalizeEmail(identity.email) : null;
  const label = identity.provider.startsWith("sso:") ? "single sign-on" : identity.provider;
  try {
    // a member of an organization that enforces its SSO never signs in through another provider
    const enforcedBefore = !joinOrganizationId && email && identity.emailVerified ? await ssoEnforcedFor(database, email) : null;
    if (enforcedBefore)
      throw new SignInRefused(
        `Accounts at ${enforcedBefore} sign in through their organization's single sign-on.`,
        "enforced",
        enforcedBefore,
      );
    const result = await database.write(async (tx) => {
      const choice = await chooseAccount(tx, {
        provider: identity.provider,
        subject: identity.subject,
        email: identity.emailVerified ? email : null,
        name: identity.name,
        organizationId: joinOrganizationId,
      });
      if (choice.kind === "admin") {
        throw new SignInRefused(
          "A platform administrator signs in with a password or an identity provider, never through an organization's single sign-on.",
          "admin_sso",
        );
      }
      if (choice.kind === "no_email") {
        if (!email) throw new SignInRefused(`Your ${label} account did not share an e-mail address, so it cannot be used to sign in here.`);
        throw new SignInRefused(
          `Your ${label} account's e-mail address ${email} is not verified there: verify it with the provider, or sign in another way.`,
          "unverified",
        );
      }
      if (choice.kind === "consent") return choice;
      if (joinOrganizationId) await joinThroughSso(tx, joinOrganizationId, choice.userId);
      const user = (await tx.select({ email: users.email }).from(users).where(eq(users.id, choice.userId)).limit(1))[0]!;
      if (previousToken) await deleteSessionByToken(tx, previousToken);
      return { ...choice, email: user.email, activeOrganizationId: joinOrganizationId ?? null };
    });
    if (result.kind === "consent") {
      await recordSecurityEvent(database, {
        kind: "sign_in.link_required",
        userId: result.userId,
        email,
        ...meta,
        detail: { provider: identity.provider },
      });
      throw new LinkRequired(result.token, email!);
    }
    // an identity provider never opens an account whose domain enforces its organization's SSO
    if (!joinOrganizationId) {
      const domain = await ssoEnforcedFor(database, result.email);
      if (domain) throw new SignInRefused(`Accounts at ${domain} sign in through their organization's single sign-on.`, "enforced", domain);
    }
    const orgs = result.activeOrganizationId ? null : await listMemberships(database, result.userId);
    const session = await database.write((tx) =>
      createSession(tx, result.userId, { ...meta, activeOrganizationId: result.activeOrganizationId ?? orgs?.[0]?.id ?? null }),
    );
    await recordSecurityEvent(database, {
      kind: "sign_in.success",
      userId: result.userId,
      email: result.email,
      ...meta,
      detail: {
        method: identity.provider.startsWith("sso:") ? "sso" : "oauth",
        provider: identity.provider,
        created: result.created,
        linked: result.linked,
        reclaimed: result.reclaimed,
      },
    });
    return { userId: result.userId, email: result.email, session, created: result.created, linked: result.linked };
  } catch (e) {
    if (e instanceof SignInRefused) await recordExternalFailure(database, identity.provider, e.message, meta, email);
    throw e;
  }
}

/** Records a refused sign-in through a provider or SSO (before or after its protocol's checks). */
export async function recordExternalFailure(
  database: Database,
  provider: string,
  reason: string,
  meta: ClientMeta,
  email?: string | null,
): Promise<void> {
  await recordSecurityEvent(database, {
    kind: "sign_in.failure",
    email: email ?? null,
    ...meta,
    detail: { method: provider.startsWith("sso:") ? "sso" : "oauth", provider, reason: reason.slice(0, 300) },
  });
}
