/**
 * Sign-in with an identity someone else vouches for: an external identity provider (GitHub,
 * GitLab, Google, Microsoft Entra ID, a generic OIDC provider) or an organization's SSO.
 * Whatever the protocol, it ends here with `{provider, subject, email, emailVerified}`:
 *   1. an account already linked to (provider, subject) signs in;
 *   2. otherwise a verified e-mail of an existing user links the account to that user;
 *   3. otherwise a new user is created, and only for a verified e-mail (an unverified one
 *      would let whoever types someone's address at a provider hold that address here).
 * Organization SSO then makes the person a member of its organization (new members join as
 * `member`) and acts in it.
 */
import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { externalAccounts, members, users } from "../db/schema";
import { newId } from "../lib/ids";
import { listMemberships } from "../tenancy/service";
import { recordSecurityEvent } from "./security";
import { createSession, deleteSessionByToken } from "./sessions";
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
    readonly code: "no_email" | "unverified" | "enforced" = "no_email",
    readonly domain?: string,
  ) {
    super(message);
  }
}

/** The domain part of an e-mail address (lower case), or null. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf("@");
  return at > 0 ? email.slice(at + 1).trim().toLowerCase() : null;
}

/**
 * Signs the person in (a new session; this browser's previous one ends). `joinOrganizationId`
 * (organization SSO): the user becomes a member if not already, and the session acts there.
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
    const result = await database.write(async (tx) => {
      let created = false;
      let linked = false;
      const link = (await tx.select().from(externalAccounts).where(and(eq(externalAccounts.provider, identity.provider), eq(externalAccounts.providerUserId, identity.subject))).limit(1))[0];
      let userId = link?.userId;
      if (!userId) {
        if (!email) throw new SignInRefused(`Your ${label} account did not share an e-mail address, so it cannot be used to sign in here.`);
        if (!identity.emailVerified) {
          throw new SignInRefused(`Your ${label} account's e-mail address ${email} is not verified there: verify it with the provider, or sign in another way.`, "unverified");
        }
        const existing = (await tx.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1))[0];
        const now = Date.now();
        if (existing) userId = existing.id;
        else {
          userId = newId("usr");
          await tx.insert(users).values({ id: userId, email, name: (identity.name ?? "").slice(0, 100), passwordHash: null, role: "user", createdAt: now, updatedAt: now });
          created = true;
        }
        await tx.insert(externalAccounts).values({ provider: identity.provider, providerUserId: identity.subject, userId, createdAt: now });
        linked = true;
      }
      if (joinOrganizationId) {
        const member = await tx.select().from(members).where(and(eq(members.organizationId, joinOrganizationId), eq(members.userId, userId))).limit(1);
        if (member.length === 0) await tx.insert(members).values({ organizationId: joinOrganizationId, userId, role: "member", createdAt: Date.now() });
      }
      const user = (await tx.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1))[0]!;
      if (previousToken) await deleteSessionByToken(tx, previousToken);
      return { userId, email: user.email, created, linked, activeOrganizationId: joinOrganizationId ?? null };
    });
    // an identity provider never opens an account whose domain enforces its organization's SSO
    if (!joinOrganizationId) {
      const domain = await ssoEnforcedFor(database, result.email);
      if (domain) throw new SignInRefused(`Accounts at ${domain} sign in through their organization's single sign-on.`, "enforced", domain);
    }
    const orgs = result.activeOrganizationId ? null : await listMemberships(database, result.userId);
    const session = await database.write((tx) => createSession(tx, result.userId, { ...meta, activeOrganizationId: result.activeOrganizationId ?? orgs?.[0]?.id ?? null }));
    await recordSecurityEvent(database, {
      kind: "sign_in.success",
      userId: result.userId,
      email: result.email,
      ...meta,
      detail: { method: identity.provider.startsWith("sso:") ? "sso" : "oauth", provider: identity.provider, created: result.created, linked: result.linked },
    });
    return { userId: result.userId, email: result.email, session, created: result.created, linked: result.linked };
  } catch (e) {
    if (e instanceof SignInRefused) await recordExternalFailure(database, identity.provider, e.message, meta, email);
    throw e;
  }
}

/** Records a refused sign-in through a provider or SSO (before or after its protocol's checks). */
export async function recordExternalFailure(database: Database, provider: string, reason: string, meta: ClientMeta, email?: string | null): Promise<void> {
  await recordSecurityEvent(database, {
    kind: "sign_in.failure",
    email: email ?? null,
    ...meta,
    detail: { method: provider.startsWith("sso:") ? "sso" : "oauth", provider, reason: reason.slice(0, 300) },
  });
}
