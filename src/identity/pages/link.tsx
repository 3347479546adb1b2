/** @jsxImportSource hono/jsx */
/**
 * `/account/link`: the account holder's consent to link an identity a provider or an
 * organization's SSO vouched for (linking.ts, rule 4). The refused sign-in left a pending link
 * in a cookie; signed in the usual way, the person sees what would be linked and confirms or
 * declines. Forms post normally; the answer is a page.
 */
import { Elysia } from "elysia";
import type { SignInDeps } from "../limits";
import { optionalSession } from "../../auth/session";
import { clientMeta } from "../../http/client";
import { cookieValue } from "../../http/cookies";
import { checkSameOrigin } from "../../http/csrf";
import { formField } from "../../http/form";
import { Layout, page } from "../../ui/layout";
import { cancelPendingLink, confirmPendingLink, LINK_COOKIE, linkCookie, readPendingLink, type PendingLink } from "../linking";
import { providerLabel } from "../providers";
import { recordSecurityEvent } from "../security";

type State =
  | { kind: "ask"; link: PendingLink; label: string; email: string }
  | { kind: "none" }
  | { kind: "linked"; label: string }
  | { kind: "declined" };

function LinkPage(props: { state: State }) {
  const s = props.state;
  const title =
    s.kind === "ask"
      ? "Link a sign-in method"
      : s.kind === "linked"
        ? "Linked"
        : s.kind === "declined"
          ? "Nothing was linked"
          : "No link to confirm";
  return (
    <Layout title={title}>
      <div class="card narrow">
        <h1>{title}</h1>
        {s.kind === "ask" ? (
          <form method="post" action="/account/link">
            <p>
              {s.label} vouched that you are <strong>{s.email}</strong>. Link it to this account, so that you can sign in with it from now
              on?
              {s.link.organization ? (
                <>
                  {" "}
                  You also join <strong>{s.link.organization.name}</strong> as a member.
                </>
              ) : null}
            </p>
            <p class="muted">If you did not just try to sign in with {s.label}, decline: someone else may be trying to use your address.</p>
            <p>
              <button type="submit" name="decision" value="link">
                Link it
              </button>{" "}
              <button type="submit" name="decision" value="decline" class="secondary">
                Decline
              </button>
            </p>
          </form>
        ) : s.kind === "linked" ? (
          <p role="status">
            {s.label} is linked to your account: you can sign in with it from now on. <a href="/">Continue</a>.
          </p>
        ) : s.kind === "declined" ? (
          <p role="status">
            Nothing was linked. <a href="/">Continue</a>.
          </p>
        ) : (
          <p role="status">
            There is no sign-in method waiting to be linked to this account (the request expires after 15 minutes). <a href="/">Continue</a>
            .
          </p>
        )}
      </div>
    </Layout>
  );
}

/** The consent page and its form post. */
export function linkPages(deps: SignInDeps): Elysia {
  const label = (link: PendingLink) =>
    link.organization ? `${link.organization.name}'s single sign-on` : providerLabel(deps.config, link.provider);
  const toLogin = () =>
    new Response(null, { status: 303, headers: { location: "/login?next=%2Faccount%2Flink", "cache-control": "no-store" } });
  const plugin = new Elysia()
    .get("/account/link", async ({ request }) => {
      const session = await optionalSession(deps, request);
      if (!session) return toLogin();
      const link = await readPendingLink(deps.database.db, cookieValue(request, LINK_COOKIE));
      if (!link || link.userId !== session.user.id) return page(<LinkPage state={{ kind: "none" }} />);
      return page(<LinkPage state={{ kind: "ask", link, label: label(link), email: session.user.email }} />);
    })
    .post("/account/link", async ({ request, body, server }) => {
      checkSameOrigin(deps.config, request, true);
      const session = await optionalSession(deps, request);
      if (!session) return toLogin();
      const token = cookieValue(request, LINK_COOKIE);
      const clear = { "set-cookie": linkCookie(deps.config, null) };
      if (formField(body, "decision") !== "link") {
        // only this account's pending link: another account's token declines nothing (410, as for linking)
        const dropped = await deps.database.write((tx) => cancelPendingLink(tx, token, session.user.id));
        return dropped
          ? page(<LinkPage state={{ kind: "declined" }} />, 200, clear)
          : page(<LinkPage state={{ kind: "none" }} />, 410, clear);
      }
      const linked = await deps.database.write(async (tx) => {
        const done = await confirmPendingLink(tx, token, session.user.id);
        if (done) {
          await recordSecurityEvent(tx, {
            kind: "identity.linked",
            userId: session.user.id,
            email: session.user.email,
            ...clientMeta(request, server),
            detail: { provider: done.provider, organizationId: done.organization?.id ?? null },
          });
        }
        return done;
      });
      if (!linked) return page(<LinkPage state={{ kind: "none" }} />, 410, clear);
      return page(<LinkPage state={{ kind: "linked", label: label(linked) }} />, 200, clear);
    });
  return plugin as unknown as Elysia;
}
