/**
 * `/web/orgs/current/mail`: the active organization's mails that are not delivered (pending,
 * being sent, failed), for its owner and admins, and the retry of one. Bodies never leave:
 * a link in a mail may be a secret (password-reset mails are never listed at all). The
 * `/org/mail` page (pages.tsx) comes with them.
 */
import { Elysia, t } from "elysia";
import type { ViewDeps } from "../deps";
import type { Guards } from "../auth/guards";
import { MAIL_STATUSES, type MailStatus } from "../db/schema";
import { iso } from "../lib/time";
import { listOrgMail, retryMail, UNDELIVERED, type MailView } from "./outbox";
import { mailPages } from "./pages";
import type { PageSessions } from "../ui/pageGuard";
import { record, userActor } from "../audit/record";
import { routeGuard, routePattern } from "../http/route";
import { MAIL } from "./describe";

/** A mail as JSON: times as ISO strings. */
export function mailJson(m: MailView) {
  return {
    id: m.id,
    kind: m.kind,
    to: m.to,
    subject: m.subject,
    status: m.status,
    attempts: m.attempts,
    lastError: m.lastError,
    nextAttemptAt: iso(m.nextAttemptAt),
    createdAt: iso(m.createdAt),
    sentAt: iso(m.sentAt),
  };
}

const Status = t.Union(
  MAIL_STATUSES.filter((s) => s !== "logged").map((s) => t.Literal(s)),
  { error: "must be pending, sending, sent or failed" },
);

/** The mail routes and the /org/mail page; `sessions` finds the signed-in person for the page (handed in by the composition root). */
export function mailRoutes(deps: ViewDeps, guards: Guards, sessions: PageSessions): Elysia {
  // typed as a plain Elysia: the app's chain of plugin types is near TypeScript's depth limit
  const plugin = new Elysia()
    .use(guards)
    .use(mailPages(deps, sessions))
    .get(
      routePattern(MAIL.list),
      async ({ org, query }) => {
        const statuses: MailStatus[] = query.status ? [query.status] : UNDELIVERED;
        return { mails: (await listOrgMail(deps.database, org.id, statuses)).map(mailJson), smtp: deps.config.smtpUrl !== undefined };
      },
      { ...routeGuard(MAIL.list), query: t.Object({ status: t.Optional(Status) }) },
    )
    .post(
      routePattern(MAIL.retry),
      async ({ auth, org, params }) => ({
        mail: mailJson(
          await deps.database.write(async (tx) => {
            const m = await retryMail(tx, org.id, params.id);
            await record(tx, {
              organizationId: org.id,
              actor: userActor(auth.user),
              action: "mail.retried",
              object: { kind: "mail", id: m.id },
              after: { to: m.to, subject: m.subject, status: m.status },
            });
            return m;
          }),
        ),
      }),
      { ...routeGuard(MAIL.retry), params: t.Object({ id: t.String({ maxLength: 64 }) }) },
    );
  return plugin as unknown as Elysia;
}
