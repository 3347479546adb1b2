/**
 * The declared success answers of the platform administrators' routes (`/web/admin/*`) and the
 * organization policy's, a part of ANSWERS (openapiAnswers.ts), which also carries the account routes' (openapiAccount.ts).
 */
import { ACCOUNT_ANSWERS } from "./openapiAccount";
import { a, B, I, N, n, o, open, S, type Schema } from "./schema";

const AdminUser = o({ id: S, email: S, name: S, role: S, disabled: B, disabledAt: n(S), createdAt: S });
const BackupRecord = n(o({ file: n(S), ok: B, startedAt: S, finishedAt: S, bytes: I, error: S, skipped: B }));

const Policy = o({ requiredTalents: a(S), allowedTalents: n(a(S)), setBy: n(o({ id: S, name: S })), updatedAt: n(S) });

/** The admin routes' answers, by `METHOD /path`. */
export const ADMIN_ANSWERS: Record<string, Schema> = {
  ...ACCOUNT_ANSWERS,
  "GET /web/orgs/current/policy": o({ policy: Policy }),
  "PUT /web/orgs/current/policy": o({ policy: Policy, projects: a(o({ projectId: S, installed: a(S) })) }),
  "GET /web/admin/organizations": o({
    organizations: a(o({ id: S, slug: S, name: S, status: S, createdAt: S, statusChangedAt: n(S), members: I })),
  }),
  "POST /web/admin/organizations/{id}/{operation}": o({ organization: o({ id: S, slug: S, name: S, status: S, statusChangedAt: n(S) }) }),
  "GET /web/admin/users": o({ users: a(AdminUser) }),
  "PATCH /web/admin/users/{id}": o({ user: AdminUser }),
  "DELETE /web/admin/users/{id}": o({ removed: S }),
  "GET /web/admin/backups": o({
    scheduled: B,
    intervalSeconds: n(N),
    keep: n(I),
    folder: S,
    running: B,
    nextAt: n(S),
    last: BackupRecord,
    lastSuccess: BackupRecord,
    lastFailure: BackupRecord,
    succeeded: I,
    failed: I,
    skipped: I,
    files: a(o({ name: S, bytes: I, createdAt: S, kind: S })),
  }),
  "GET /web/admin/security-events": o({
    events: a(o({ id: S, kind: S, userId: n(S), email: n(S), ip: n(S), userAgent: n(S), detail: n(open), createdAt: S })),
    nextBefore: n(I),
  }),
};
