/** @jsxImportSource hono/jsx */
/**
 * `/org/mail`: the organization's mails that did not leave yet (pending, being sent, failed)
 * with the last error and a retry button, for owner/admin (anyone else gets the 404 page).
 * Reads and retries without JavaScript: the button is a form posting to the `/web` route,
 * which answers a 303 back here.
 */
import { utcSecond } from "../lib/time";
import { Elysia } from "elysia";
import type { ViewDeps } from "../deps";
import { createPageGuard, type PageSessions } from "../ui/pageGuard";
import { DataTable, Layout, page } from "../ui/layout";
import { Breakable } from "../ui/parts";
import { listOrgMail, type MailView } from "./outbox";

const when = (ms: number | null): string => (ms === null ? "—" : utcSecond(ms));

/** The undelivered mails as a table; with `retry`, each waiting or failed one gets its retry form (an organization's, on /org/mail). */
export function MailTable(props: { mails: MailView[]; retry?: boolean }) {
  return (
    <DataTable
      label="Mails not delivered yet"
      caption="Mails not delivered yet, newest first"
      columns={["Queued (UTC)", "To", "Subject", "Status", "Attempts", "Last error", ...(props.retry ? ["Action"] : [])]}
    >
      {props.mails.map((m) => (
        <tr id={`mail-${m.id}`}>
          <td class="small">{when(m.createdAt)}</td>
          <td>
            <Breakable text={m.to} />
          </td>
          <td>{m.subject}</td>
          <td>
            <strong class={m.status === "failed" ? "error" : undefined}>{m.status}</strong>
            {m.status === "pending" && m.attempts > 0 ? <span class="muted small"> next try {when(m.nextAttemptAt)}</span> : null}
          </td>
          <td>{m.attempts}</td>
          <td class="small break">{m.lastError ?? "—"}</td>
          {props.retry ? (
            <td>
              {m.status === "failed" || m.status === "pending" ? (
                <form method="post" action={`/web/orgs/current/mail/${m.id}/retry`}>
                  <input type="hidden" name="return" value="/org/mail" />
                  <button type="submit" class="small" aria-label={`Retry the mail to ${m.to}: ${m.subject}`}>
                    {m.status === "failed" ? "Retry" : "Try now"}
                  </button>
                </form>
              ) : null}
            </td>
          ) : null}
        </tr>
      ))}
    </DataTable>
  );
}

/** The /org/mail page; `sessions` finds the signed-in person and their organizations (the kit's page guard). */
export function mailPages(deps: ViewDeps, sessions: PageSessions): Elysia {
  // typed as a plain Elysia: the app's chain of plugin types is near TypeScript's depth limit
  const plugin = new Elysia().use(createPageGuard(sessions)).get(
    "/org/mail",
    async ({ page: ctx, org }) => {
      const mails = await listOrgMail(deps.database, org.id);
      const failed = mails.filter((m) => m.status === "failed").length;
      // without SMTP nothing is delivered: the page says that, never also that everything was
      const smtp = deps.config.smtpUrl !== undefined;
      return page(
        <Layout title={`Mail · ${org.name}`} user={ctx.session.user} nav={ctx.nav}>
          <p class="crumbs">
            <a href="/org">{org.name}</a> /
          </p>
          <h1>{smtp ? "Mail not delivered yet" : "Mail"}</h1>
          {smtp ? (
            <p class="muted">
              Invitations of this organization wait here until the mail server accepts them; a mail that keeps failing stops being retried
              and waits for you.
            </p>
          ) : (
            <p id="mail-state">
              No SMTP server is configured (SMTP_URL), so talentd sends no mail: invitations are written to the server's log for the
              operator to hand over, and each invitation's accept link is on <a href="/org">the organization's page</a>.
            </p>
          )}
          {mails.length === 0 ? (
            smtp ? (
              <p id="mail-state">Every mail of {org.name} was delivered.</p>
            ) : null
          ) : (
            <>
              <p>
                {mails.length} not delivered yet{failed > 0 ? `, ${failed} of them failed (no more automatic attempts)` : ""}.
              </p>
              <MailTable mails={mails} retry />
            </>
          )}
        </Layout>,
      );
    },
    { orgPage: { admin: "This page is for the organization's owners and admins." } },
  );
  return plugin as unknown as Elysia;
}
