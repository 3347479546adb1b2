/**
 * The descriptors of the organization's outbox routes (`/web/orgs/current/mail…`: routes.ts), docs/api.md
 * "The organization's mail": each route's OpenAPI row, answer and view (http/route.ts), collected by app.ts.
 */
import type { RouteDescriptor } from "../http/route";
import type { OrgPlace } from "../ui/places";
import { a, B, I, n, o, S, str } from "../http/schema";

const Mail = o({
  id: S,
  kind: S,
  to: S,
  subject: S,
  status: S,
  attempts: I,
  lastError: n(S),
  nextAttemptAt: n(S),
  createdAt: S,
  sentAt: n(S),
});

/** The outbox: owners and admins. */
export const MAIL = {
  list: {
    method: "GET",
    path: "/web/orgs/current/mail",
    summary: "The organization's mails not delivered yet (pending, sending, failed), without bodies",
    access: "admin",
    query: [{ name: "status", schema: str({ enum: ["pending", "sending", "sent", "failed"] }) }],
    errors: [400],
    answer: o({ mails: a(Mail), smtp: B }),
  },
  retry: {
    method: "POST",
    path: "/web/orgs/current/mail/{id}/retry",
    summary: "Send a failed or waiting mail again now",
    access: "admin",
    errors: [404, 409],
    answer: o({ mail: Mail }),
    view: () => ({
      // a retry (htmx or a plain form, back to /org/mail): the status line says what it did
      status: (d) => {
        const m = (d as { mail: { to: string; status: string } }).mail;
        return m.status === "sent" ? `The mail to ${m.to} was sent.` : `The mail to ${m.to} is queued again.`;
      },
    }),
  },
} satisfies Record<string, RouteDescriptor>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const MAIL_ROUTES: RouteDescriptor[] = Object.values(MAIL);

/** The navigation entry of its page (pages.tsx); the platform's /admin/mail is tenancy's. */
export const MAIL_PLACES: OrgPlace[] = [
  {
    href: "/org/mail",
    label: "Mail",
    title: "Mail",
    text: "invitations and other mails that failed or wait to be sent",
    admin: true,
    header: false,
  },
];
