/**
 * The descriptors of the authentication routes (`/api/auth/*`: routes/account.tsx, routes/sso.ts,
 * pages/reset.tsx, pages/verify.tsx) and of the person's own account (`/web/account…`:
 * routes/accountWeb.ts), docs/api.md "Authentication" and "Your account": each route's OpenAPI
 * row, answer and view (http/route.ts), collected by app.ts.
 */

import type { RouteDescriptor } from "../../http/route";
import { a, B, I, n, o, obj, S, str } from "../../http/schema";

/** Each account change goes back to `/account`, its status line saying what it did. */
const back = () => "/account";

export const User = o({ id: S, email: S, name: S, role: S });
/** An organization as its member sees it. */
export const Membership = o({ id: S, slug: S, name: S, status: S, role: S });
/** Who is signed in: the sign-up's, the sign-in's and the session's answer. */
const SignedIn = { user: User, activeOrganizationId: n(S), organizations: a(Membership) };
/** A new password's bounds. */
const PASSWORD = str({ minLength: 10, maxLength: 256 });
/** A password changed: every other session ended. */
const PasswordChanged = o({ changed: B, otherSessionsEnded: B });

const PASSWORD_CHANGE = obj({ currentPassword: str(), newPassword: PASSWORD, repeatPassword: str() }, [
  "currentPassword",
  "newPassword",
  "repeatPassword",
]);

/** Authentication: sign-up and sign-in, password reset, e-mail verification, identity providers and organization SSO. */
export const AUTH = {
  signUp: {
    method: "POST",
    path: "/api/auth/sign-up",
    summary: "Create an account and sign in",
    access: "public",
    body: obj({ email: str({ format: "email" }), password: PASSWORD, name: str({ maxLength: 100 }) }, ["email", "password"]),
    ok: 201,
    errors: [400, 403, 409, 429],
    answer: o(SignedIn),
  },
  signIn: {
    method: "POST",
    path: "/api/auth/sign-in",
    summary: "Sign in with e-mail and password",
    access: "public",
    body: obj({ email: str(), password: str() }, ["email", "password"]),
    errors: [400, 401, 403, 429],
    answer: o(SignedIn),
  },
  signOut: {
    method: "POST",
    path: "/api/auth/sign-out",
    summary: "End this session",
    access: "public",
    errors: [403],
    answer: o({ signedOut: B }),
  },
  session: {
    method: "GET",
    path: "/api/auth/session",
    summary: "The signed-in user, organizations and active one",
    access: "session",
    answer: o({ ...SignedIn, expiresAt: S }),
  },
  passwordReset: {
    method: "POST",
    path: "/api/auth/password-reset",
    summary: "Ask for a password-reset mail (same answer whether the account exists or not)",
    access: "public",
    body: obj({ email: str({ format: "email" }) }, ["email"]),
    ok: 202,
    errors: [400, 403, 429],
    answer: o({ requested: B, message: S }),
  },
  passwordResetConfirm: {
    method: "POST",
    path: "/api/auth/password-reset/confirm",
    summary: "Set a new password with a reset token (single use, 30 min); every session ends, a new one is set",
    access: "public",
    body: obj({ token: str(), password: PASSWORD }, ["token", "password"]),
    errors: [400, 403, 410],
    answer: o({ reset: B, otherSessionsEnded: B, user: User }),
  },
  verifyEmail: {
    method: "POST",
    path: "/api/auth/verify-email",
    summary: "Confirm the account's e-mail address with the token of the mailed link (single use, 48 h)",
    access: "public",
    body: obj({ token: str() }, ["token"]),
    errors: [400, 403, 410],
    answer: o({ verified: B, email: S }),
  },
  verifyEmailResend: {
    method: "POST",
    path: "/api/auth/verify-email/resend",
    summary: "Mail a new verification link to the signed-in account (202), or say it is verified already (200); at most 5 an hour",
    access: "session",
    ok: 202,
    errors: [401, 403, 429],
    answer: o({ sent: B, verified: B }),
  },
  changePassword: {
    method: "POST",
    path: "/api/auth/change-password",
    summary: "Change the password; every session ends, a new one is set",
    access: "session",
    body: obj({ currentPassword: str(), newPassword: str({ minLength: 10 }) }, ["currentPassword", "newPassword"]),
    errors: [400, 401, 429],
    answer: PasswordChanged,
  },
  oauthStart: {
    method: "GET",
    path: "/api/auth/oauth/{provider}",
    summary:
      "Sign in with an external identity provider (github, gitlab, google, microsoft, oidc): 302 to it with state, PKCE and nonce in a " +
      "10-minute cookie",
    access: "public",
    query: [{ name: "next", schema: str(), description: "a path of this site to go to afterwards" }],
    ok: 302,
  },
  oauthCallback: {
    method: "GET",
    path: "/api/auth/oauth/{provider}/callback",
    summary: "The provider's redirect back: signs in (303 to next), or 303 to /login?error=<code>",
    access: "public",
    ok: 303,
  },
  ssoStart: {
    method: "GET",
    path: "/api/auth/sso/{domain}",
    summary: "Organization SSO for an e-mail domain: 302 to the organization's IdP (OIDC or SAML), or 303 to /login?error=<code>",
    access: "public",
    query: [{ name: "next", schema: str() }],
    ok: 302,
  },
  oidcCallback: {
    method: "GET",
    path: "/api/auth/sso/oidc/callback",
    summary: "An organization's OIDC IdP redirect back: signs in and joins the organization, or 303 to /login?error=<code>",
    access: "public",
    ok: 303,
  },
  samlAcs: {
    method: "POST",
    path: "/api/auth/saml/{orgId}/acs",
    summary: "SAML assertion consumer service (HTTP-POST binding): signs in and joins the organization, or 303 to /login?error=saml",
    access: "public",
    body: obj({ SAMLResponse: str(), RelayState: str() }, ["SAMLResponse"]),
    ok: 303,
  },
  samlMetadata: {
    method: "GET",
    path: "/api/auth/saml/{orgId}/metadata",
    summary: "The SAML service provider metadata of an organization (entity ID, ACS URL)",
    access: "public",
    errors: [404],
    answer: { media: "application/samlmetadata+xml" },
  },
} satisfies Record<string, RouteDescriptor>;

/** What each change says in the status line (also the page's answer to a form posted without JavaScript). */
export const ACCOUNT_STATUSES = {
  renamed: "Your name is saved.",
  password: "Your password is changed: every other session of yours is signed out.",
  endedOthers: (n: number) =>
    n === 0 ? "No other session was open." : `Signed out elsewhere: ${n} other session${n === 1 ? "" : "s"} ended.`,
  endedOne: "That session is signed out.",
  verification: (sent: boolean, email: string) =>
    sent ? `A new verification link is on its way to ${email}.` : "Your e-mail is already verified.",
};

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const AUTH_ROUTES: RouteDescriptor[] = Object.values(AUTH);

const Account = o({
  user: o({ id: S, email: S, name: S, emailVerified: B, hasPassword: B }),
  sessions: a(o({ id: S, current: B, userAgent: n(S), ip: n(S), createdAt: S, lastSeenAt: S })),
  identities: a(o({ provider: S, label: S, linkedAt: S })),
  keys: a(
    o({
      id: S,
      name: S,
      tools: a(S),
      automation: B,
      projectId: S,
      projectName: S,
      organizationName: S,
      createdAt: S,
      lastUsedAt: n(S),
      expiresAt: n(S),
    }),
  ),
});

/** The account routes: a session only. */
export const ACCOUNT = {
  account: {
    method: "GET",
    path: "/web/account",
    summary: "Your account: name, e-mail and its verification, active sessions, linked identities, the keys you created",
    access: "session",
    answer: Account,
  },
  update: {
    method: "PATCH",
    path: "/web/account",
    summary: "Change your name",
    access: "session",
    body: obj({ name: str({ maxLength: 100 }) }, ["name"]),
    errors: [400],
    answer: o({ user: o({ id: S, email: S, name: S }) }),
    view: () => ({ redirect: back, status: () => ACCOUNT_STATUSES.renamed }),
  },
  password: {
    method: "POST",
    path: "/web/account/password",
    summary:
      "Change your password: a wrong current one → 400 naming currentPassword (CHANGE_PASSWORD_LIMIT per 15 min, then 429); every other session ends, a new cookie is set",
    access: "session",
    body: PASSWORD_CHANGE,
    errors: [400, 429],
    answer: PasswordChanged,
    view: () => ({ redirect: back, status: () => ACCOUNT_STATUSES.password }),
  },
  verification: {
    method: "POST",
    path: "/web/account/verification",
    summary: "Mail a new verification link (202), or say the address is verified already (200)",
    access: "session",
    ok: 202,
    errors: [429],
    answer: o({ sent: B, verified: B, email: S }),
    view: () => ({
      redirect: back,
      status: (d) => ACCOUNT_STATUSES.verification((d as { sent: boolean }).sent, (d as { email: string }).email),
    }),
  },
  signOutOthers: {
    method: "POST",
    path: "/web/account/sessions/sign-out-others",
    summary: "Sign out elsewhere: every other session of yours ends",
    access: "session",
    answer: o({ ended: I }),
    view: () => ({ redirect: back, status: (d) => ACCOUNT_STATUSES.endedOthers((d as { ended: number }).ended) }),
  },
  endSession: {
    method: "DELETE",
    path: "/web/account/sessions/{sessionId}",
    summary: "End one of your sessions (another person's: 404)",
    access: "session",
    errors: [404],
    answer: o({ ended: B, current: B }),
    view: () => ({
      redirect: (d) => ((d as { current: boolean }).current ? "/login" : "/account"),
      status: () => ACCOUNT_STATUSES.endedOne,
    }),
  },
} satisfies Record<string, RouteDescriptor>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const ACCOUNT_ROUTES: RouteDescriptor[] = Object.values(ACCOUNT);
