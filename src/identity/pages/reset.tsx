/** @jsxImportSource hono/jsx */
/**
 * Password reset, for scripts and for people: `POST /api/auth/password-reset` and
 * `POST /api/auth/password-reset/confirm` (JSON), and the `/reset-password` page (ask for a
 * link; with `?token=`, choose the new password), whose forms post normally (no JavaScript)
 * and answer pages, never JSON. The logic is in passwordReset.ts.
 */
import { Elysia, t } from "elysia";
import type { SignInDeps } from "../limits";
import { clientMeta } from "../../http/client";
import { checkSameOrigin } from "../../http/csrf";
import { AppError } from "../../http/errors";
import { formField } from "../../http/form";
import { routeGuard, routePattern } from "../../http/route";
import { AUTH } from "../routes/describe";
import { Layout, page } from "../../ui/layout";
import { Field, FormActions } from "../../ui/form";
import { Alert } from "../../ui/parts";
import { email, password } from "../model";
import { passwordProblem } from "../passwords";
import { requestPasswordReset, RESET_REQUESTED, resetPassword, resetTokenValid } from "../passwordReset";
import { sessionCookie } from "../../auth/sessions";
import { EMAIL_PATTERN } from "../users";

function RequestForm(props: { email?: string; error?: string }) {
  return (
    <form method="post" action="/reset-password">
      <Alert text={props.error} />
      <Field id="email" label="E-mail of your account">
        <input name="email" type="email" required maxlength={254} autocomplete="email" value={props.email ?? ""} />
      </Field>
      <FormActions>
        <button type="submit">Send me a link</button>
      </FormActions>
    </form>
  );
}

/** The page in each of its states. */
function ResetPage(props: {
  state: "request" | "requested" | "choose" | "invalid" | "done";
  email?: string;
  token?: string;
  error?: string;
}) {
  const s = props.state;
  const title =
    s === "choose"
      ? "Choose a new password"
      : s === "done"
        ? "Your password is set"
        : s === "invalid"
          ? "This link does not work"
          : "Reset your password";
  return (
    <Layout title={title}>
      <div class="card narrow">
        <h1>{title}</h1>
        {s === "request" ? (
          <>
            <p>Give the e-mail of your account: we send it a link to choose a new password.</p>
            <RequestForm email={props.email} error={props.error} />
            <p class="muted">
              Remembered it? <a href="/login">Sign in</a>.
            </p>
          </>
        ) : s === "requested" ? (
          <>
            <p role="status">{RESET_REQUESTED}</p>
            <p class="muted">
              Nothing arrived? Look in the spam folder, or <a href="/reset-password">ask again</a>. <a href="/login">Back to sign-in</a>.
            </p>
          </>
        ) : s === "choose" ? (
          <form method="post" action="/reset-password/confirm">
            <Alert text={props.error} />
            <input type="hidden" name="token" value={props.token ?? ""} />
            <Field id="password" label="New password" help="At least 10 characters.">
              <input name="password" type="password" required minlength={10} maxlength={256} autocomplete="new-password" />
            </Field>
            <FormActions>
              <button type="submit">Set the new password</button>
            </FormActions>
            <p class="muted">Every other session of your account ends: devices signed in will have to sign in again.</p>
          </form>
        ) : s === "invalid" ? (
          <>
            <p class="error" role="alert">
              This password-reset link is invalid, expired or already used. A link works once, within 30 minutes. Ask for a new one:
            </p>
            <RequestForm />
          </>
        ) : (
          <>
            <p role="status">Your new password is set and you are signed in. Every other session of your account has ended.</p>
            <p>
              <a class="button" href="/">
                Continue to your projects
              </a>
            </p>
          </>
        )}
      </div>
    </Layout>
  );
}

const field = (body: unknown, name: string): string => formField(body, name) ?? "";

export function passwordResetRoutes(deps: SignInDeps): Elysia {
  // typed as a plain Elysia: the app's chain of plugin types is near TypeScript's depth limit
  const plugin = new Elysia()
    .post(
      routePattern(AUTH.passwordReset),
      async ({ body, request, server, set }) => {
        checkSameOrigin(deps.config, request, false);
        await requestPasswordReset(deps, body.email, clientMeta(request, server));
        set.status = 202;
        return { requested: true, message: RESET_REQUESTED };
      },
      { ...routeGuard(AUTH.passwordReset), body: t.Object({ email }) },
    )
    .post(
      routePattern(AUTH.passwordResetConfirm),
      async ({ body, request, server, set }) => {
        checkSameOrigin(deps.config, request, false);
        const r = await resetPassword(deps.database, body.token, body.password, clientMeta(request, server));
        set.headers["set-cookie"] = sessionCookie(deps.config, r.session.token, r.session.expiresAt);
        return { reset: true, otherSessionsEnded: true, user: r.user };
      },
      { ...routeGuard(AUTH.passwordResetConfirm), body: t.Object({ token: t.String({ minLength: 1, maxLength: 200 }), password }) },
    )
    .get("/reset-password", async ({ request }) => {
      const token = new URL(request.url).searchParams.get("token");
      if (token === null) return page(<ResetPage state="request" />);
      return (await resetTokenValid(deps.database, token))
        ? page(<ResetPage state="choose" token={token} />)
        : page(<ResetPage state="invalid" />, 410);
    })
    .post("/reset-password", async ({ body, request, server }) => {
      const address = field(body, "email").trim().slice(0, 320);
      try {
        checkSameOrigin(deps.config, request, false);
        if (!EMAIL_PATTERN.test(address) || address.length > 254)
          return page(<ResetPage state="request" email={address} error={`"${address}" is not an e-mail address.`} />, 400);
        await requestPasswordReset(deps, address, clientMeta(request, server));
        return page(<ResetPage state="requested" />, 200);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        return page(<ResetPage state="request" email={address} error={e.message} />, e.status, e.headers);
      }
    })
    .post("/reset-password/confirm", async ({ body, request, server }) => {
      const token = field(body, "token").slice(0, 200);
      const pw = field(body, "password").slice(0, 1024);
      try {
        checkSameOrigin(deps.config, request, false);
        const problem = passwordProblem(pw);
        if (problem) {
          if (!(await resetTokenValid(deps.database, token))) return page(<ResetPage state="invalid" />, 410);
          return page(<ResetPage state="choose" token={token} error={`The password ${problem}.`} />, 400);
        }
        const r = await resetPassword(deps.database, token, pw, clientMeta(request, server));
        return page(<ResetPage state="done" />, 200, { "set-cookie": sessionCookie(deps.config, r.session.token, r.session.expiresAt) });
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        if (e.code === "reset_link_invalid") return page(<ResetPage state="invalid" />, 410);
        return page(<ResetPage state="choose" token={token} error={e.message} />, e.status, e.headers);
      }
    });
  return plugin as unknown as Elysia;
}
