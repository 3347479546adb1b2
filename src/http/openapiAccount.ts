/**
 * The rows and answers of the person's own account routes (`/web/account…`, docs/api.md "Your account")
 * in the OpenAPI document: openapi.ts spreads the rows, openapiAdminAnswers.ts the answers.
 */
import { a, B, I, n, o, obj, S, type Operation, type Schema, str } from "./schema";

const PASSWORD_CHANGE = obj({ currentPassword: str(), newPassword: str({ minLength: 10, maxLength: 256 }), repeatPassword: str() }, [
  "currentPassword",
  "newPassword",
  "repeatPassword",
]);

/** The account routes: a session only. */
export const ACCOUNT_OPERATIONS: Operation[] = [
  {
    method: "GET",
    path: "/web/account",
    summary: "Your account: name, e-mail and its verification, active sessions, linked identities, the keys you created",
    access: "session",
  },
  {
    method: "PATCH",
    path: "/web/account",
    summary: "Change your name",
    access: "session",
    body: obj({ name: str({ maxLength: 100 }) }, ["name"]),
    errors: [400],
  },
  {
    method: "POST",
    path: "/web/account/password",
    summary:
      "Change your password: a wrong current one → 400 naming currentPassword (CHANGE_PASSWORD_LIMIT per 15 min, then 429); every other session ends, a new cookie is set",
    access: "session",
    body: PASSWORD_CHANGE,
    errors: [400, 429],
  },
  {
    method: "POST",
    path: "/web/account/verification",
    summary: "Mail a new verification link (202), or say the address is verified already (200)",
    access: "session",
    ok: 202,
    errors: [429],
  },
  {
    method: "POST",
    path: "/web/account/sessions/sign-out-others",
    summary: "Sign out elsewhere: every other session of yours ends",
    access: "session",
  },
  {
    method: "DELETE",
    path: "/web/account/sessions/{sessionId}",
    summary: "End one of your sessions (another person's: 404)",
    access: "session",
    errors: [404],
  },
];

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

/** The account routes' answers, by `METHOD /path`. */
export const ACCOUNT_ANSWERS: Record<string, Schema> = {
  "GET /web/account": Account,
  "PATCH /web/account": o({ user: o({ id: S, email: S, name: S }) }),
  "POST /web/account/password": o({ changed: B, otherSessionsEnded: B }),
  "POST /web/account/verification": o({ sent: B, verified: B, email: S }),
  "POST /web/account/sessions/sign-out-others": o({ ended: I }),
  "DELETE /web/account/sessions/{sessionId}": o({ ended: B, current: B }),
};
