/** @jsxImportSource hono/jsx */
/**
 * E-mail verification, for people and scripts: the `/verify-email?token=` page (a button
 * confirms: opening the link alone changes nothing), `POST /api/auth/verify-email` (JSON) and
 * `POST /api/auth/verify-email/resend` (a signed-in account asks for a new link). The logic is
 * in emailVerification.ts.
 */
import { Elysia, t } from "elysia";
import type { SignInDeps } from "../limits";
import type { Guards } from "../../auth/guards";
import { checkSameOrigin } from "../../http/csrf";
import { AppError } from "../../http/errors";
import { formField } from "../../http/form";
import { routeGuard, routePattern } from "../../http/route";
import { AUTH } from "../routes/describe";
import { Layout, page } from "../../ui/layout";
import { confirmEmail, resendEmailVerification, verificationTokenValid } from "../emailVerification";

function VerifyPage(props: { state: "confirm" | "done" | "invalid"; token?: string; email?: string }) {
  const title =
    props.state === "done"
      ? "Your e-mail address is confirmed"
      : props.state === "invalid"
        ? "This link does not work"
        : "Confirm your e-mail address";
  return (
    <Layout title={title}>
      <div class="card narrow">
        <h1>{title}</h1>
        {props.state === "confirm" ? (
          <form method="post" action="/verify-email">
            <input type="hidden" name="token" value={props.token ?? ""} />
            <p>Confirm that this address is yours: your account can then be linked to your organization's single sign-on.</p>
            <p>
              <button type="submit">Confirm my address</button>
            </p>
          </form>
        ) : props.state === "done" ? (
          <p role="status">
            {props.email} is confirmed. <a href="/">Continue</a>.
          </p>
        ) : (
          <p class="error" role="alert">
            This verification link is invalid, expired or already used. Sign in and ask for a new one from the home page.
          </p>
        )}
      </div>
    </Layout>
  );
}

/** The page, its form post, and the JSON routes. */
export function verifyEmailRoutes(deps: SignInDeps, guards: Guards): Elysia {
  const plugin = new Elysia()
    .use(guards)
    .get("/verify-email", async ({ request }) => {
      const token = new URL(request.url).searchParams.get("token") ?? "";
      return (await verificationTokenValid(deps.database, token))
        ? page(<VerifyPage state="confirm" token={token} />)
        : page(<VerifyPage state="invalid" />, 410);
    })
    .post("/verify-email", async ({ body, request }) => {
      checkSameOrigin(deps.config, request, false);
      try {
        const r = await confirmEmail(deps.database, (formField(body, "token") ?? "").slice(0, 200));
        return page(<VerifyPage state="done" email={r.email} />);
      } catch (e) {
        if (!(e instanceof AppError) || e.code !== "verification_link_invalid") throw e;
        return page(<VerifyPage state="invalid" />, 410);
      }
    })
    .post(
      routePattern(AUTH.verifyEmail),
      async ({ body, request }) => {
        checkSameOrigin(deps.config, request, false);
        const r = await confirmEmail(deps.database, body.token);
        return { verified: true, email: r.email };
      },
      { ...routeGuard(AUTH.verifyEmail), body: t.Object({ token: t.String({ minLength: 1, maxLength: 200 }) }) },
    )
    .post(
      routePattern(AUTH.verifyEmailResend),
      async ({ auth, set }) => {
        const sent = await resendEmailVerification(deps.database, deps, auth.user.id);
        set.status = sent ? 202 : 200;
        return sent ? { sent: true, verified: false } : { sent: false, verified: true };
      },
      routeGuard(AUTH.verifyEmailResend),
    );
  return plugin as unknown as Elysia;
}
