/** @jsxImportSource hono/jsx */
/**
 * `/login` (spec D: "Sign-in or account creation"): one page with the sign-in form and the
 * account-creation form, both posting normally (no JavaScript needed) and answering a page
 * with the problem next to the form it concerns, never JSON. `next` (a path of this site)
 * is where the browser goes afterwards: the OAuth consent, an invitation, or home.
 * `POST /logout` ends the browser's session from any page.
 */
import { Elysia } from "elysia";
import type { ComposedDeps } from "../app";
import { optionalSession } from "../auth/session";
import { clientMeta } from "../http/client";
import { checkSameOrigin } from "../http/csrf";
import { AppError } from "../http/errors";
import { formField } from "../http/form";
import { safeNext } from "../http/next";
import { Layout, page } from "../web/layout";
import { passwordProblem } from "./passwords";
import { signIn, signUp } from "./service";
import { deleteSessionByToken, sessionCookie, sessionTokenFrom } from "./sessions";
import { EMAIL_PATTERN } from "./users";

/** Which form a problem belongs to, and what the person had typed (never the password). */
interface Attempt {
  form: "sign-in" | "sign-up";
  error: string;
  email?: string;
  name?: string;
}

export function LoginPage(props: { next: string; signedInAs?: string | null; attempt?: Attempt }) {
  const a = props.attempt;
  const mine = (form: Attempt["form"]) => (a?.form === form ? a : undefined);
  const signInErr = mine("sign-in");
  const signUpErr = mine("sign-up");
  return (
    <Layout title="Sign in">
      <div class="card narrow">
        <h1>Sign in</h1>
        {props.signedInAs ? (
          <p class="muted">
            Signed in as {props.signedInAs}. <a href={props.next}>Continue</a>, or sign in with another account.
          </p>
        ) : null}
        <form method="post" action="/login">
          {signInErr ? <p class="error" role="alert">{signInErr.error}</p> : null}
          <input type="hidden" name="next" value={props.next} />
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" required autocomplete="username" value={signInErr?.email ?? ""} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" required autocomplete="current-password" />
          <p><button type="submit">Sign in</button></p>
          <p class="small"><a href="/reset-password">Forgot your password?</a></p>
        </form>
      </div>
      <div class="card narrow" id="create-account">
        <h2>New here? Create an account</h2>
        <form method="post" action="/login/sign-up">
          {signUpErr ? <p class="error" role="alert">{signUpErr.error}</p> : null}
          <input type="hidden" name="next" value={props.next} />
          <label for="new-email">E-mail</label>
          <input id="new-email" name="email" type="email" required autocomplete="email" value={signUpErr?.email ?? ""} />
          <label for="new-name">Name</label>
          <input id="new-name" name="name" type="text" maxlength={100} autocomplete="name" value={signUpErr?.name ?? ""} />
          <label for="new-password">Password (at least 10 characters)</label>
          <input id="new-password" name="password" type="password" required minlength={10} maxlength={256} autocomplete="new-password" />
          <p><button type="submit">Create account</button></p>
        </form>
      </div>
    </Layout>
  );
}

const field = (body: unknown, name: string): string => formField(body, name) ?? "";

/** Why a new account's fields cannot be used, or null (the page's version of SignUpBody's rules). */
export function newAccountProblem(email: string, password: string, name: string): string | null {
  if (!EMAIL_PATTERN.test(email.trim()) || email.length > 254) return `"${email}" is not an e-mail address.`;
  if (name.length > 100) return "The name must be at most 100 characters.";
  const p = passwordProblem(password);
  return p ? `The password ${p}.` : null;
}

export function loginPages(deps: ComposedDeps) {
  const limiters = deps.authLimiters;
  const signedIn = (next: string, token: string, expiresAt: number) =>
    new Response(null, { status: 303, headers: { location: next, "set-cookie": sessionCookie(deps.config, token, expiresAt), "cache-control": "no-store" } });

  return new Elysia()
    .get("/login", async ({ request }) => {
      const next = safeNext(new URL(request.url).searchParams.get("next"));
      const session = await optionalSession(deps.database, request);
      return page(<LoginPage next={next} signedInAs={session?.user.email ?? null} />);
    })
    .post("/login", async ({ request, body, server }) => {
      const next = safeNext(field(body, "next"));
      const email = field(body, "email").slice(0, 320);
      try {
        checkSameOrigin(deps.config, request, false);
        const r = await signIn(deps.database, limiters, { email, password: field(body, "password").slice(0, 1024) }, clientMeta(request, server), sessionTokenFrom(request));
        return signedIn(next, r.session.token, r.session.expiresAt);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        return page(<LoginPage next={next} attempt={{ form: "sign-in", error: e.message, email }} />, e.status, e.headers);
      }
    })
    .post("/login/sign-up", async ({ request, body, server }) => {
      const next = safeNext(field(body, "next"));
      const email = field(body, "email").slice(0, 320);
      const name = field(body, "name").slice(0, 200);
      const password = field(body, "password").slice(0, 1024);
      const fail = (error: string, status: number, headers: Record<string, string> = {}) =>
        page(<LoginPage next={next} attempt={{ form: "sign-up", error, email, name }} />, status, headers);
      try {
        checkSameOrigin(deps.config, request, false);
        const problem = newAccountProblem(email, password, name);
        if (problem) return fail(problem, 400);
        const r = await signUp(deps.database, deps.authLimiters, { email, password, name: name.trim() || undefined }, clientMeta(request, server));
        return signedIn(next, r.session.token, r.session.expiresAt);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        const message = e.code === "conflict" ? `An account with ${email.trim().toLowerCase()} already exists: sign in above instead.` : e.message;
        return fail(message, e.status, e.headers);
      }
    })
    .post("/logout", async ({ request }) => {
      const token = sessionTokenFrom(request);
      if (token) {
        checkSameOrigin(deps.config, request, true);
        await deps.database.write((tx) => deleteSessionByToken(tx, token));
      }
      return new Response(null, { status: 303, headers: { location: "/login", "set-cookie": sessionCookie(deps.config, null), "cache-control": "no-store" } });
    });
}
