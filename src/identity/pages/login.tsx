/** @jsxImportSource hono/jsx */
/**
 * `/login` (docs/api.md "Pages (HTML)": sign-in or account creation): one page with the sign-in form and the
 * account-creation form, both posting normally (no JavaScript needed) and answering a page
 * with the problem next to the form it concerns, never JSON. `next` (a path of this site)
 * is where the browser goes afterwards: the OAuth consent, an invitation, or home.
 * `POST /logout` ends the browser's session from any page.
 */
import { Elysia } from "elysia";
import type { SignInDeps } from "../limits";
import { optionalSession } from "../../auth/session";
import { clientMeta } from "../../http/client";
import { checkSameOrigin } from "../../http/csrf";
import { AppError } from "../../http/errors";
import { formField } from "../../http/form";
import { safeNext } from "../../http/next";
import { Layout, page } from "../../ui/layout";
import { Field, FormActions } from "../../ui/form";
import { Alert, Isolated } from "../../ui/parts";
import { passwordProblem } from "../passwords";
import { signIn, signUp } from "../service";
import { deleteSessionByToken, sessionCookie, sessionTokenFrom } from "../../auth/sessions";
import { EMAIL_PATTERN } from "../users";
import { emailDomain } from "../external";
import { enabledProviders, providerLabel } from "../providers";
import type { SignInErrorCode } from "../routes/sso";
import { usableSsoForDomain } from "../sso";
import type { Config } from "../../config";

/** What /login says for `?error=<code>` after a provider or SSO sign-in failed (the codes of routes/sso.ts). */
export function signInErrorSentence(
  config: Config,
  code: string,
  provider: string | null,
  domain: string | null,
  email: string | null = null,
): string | null {
  const who = provider ? providerLabel(config, provider) : "Your organization's sign-in";
  const sentences: Record<SignInErrorCode, string> = {
    provider_unknown: "That sign-in method is not offered here.",
    denied: `${who} did not sign you in: the sign-in was cancelled or refused there. You can try again.`,
    provider_error: `${who} answered with an error and did not sign you in. Try again, or sign in another way.`,
    state: "The sign-in could not be completed: it did not start in this browser, or took longer than 10 minutes. Please start again.",
    exchange: `${who} did not confirm the sign-in: the code it gave was refused (expired, already used, or not ours). Please start again.`,
    token: `${who}'s answer did not check out (its identity token was not valid for this sign-in), so you were not signed in. Please start again.`,
    unavailable: `${who} cannot be reached right now. Try again later, or sign in another way.`,
    no_email: `Your ${provider ? providerLabel(config, provider) : "identity provider"} account did not share an e-mail address, so it cannot be used to sign in here.`,
    unverified: `Your ${provider ? providerLabel(config, provider) : "identity provider"} account's e-mail address is not verified there: verify it with the provider, or sign in another way.`,
    sso_unknown: `No organization has set up single sign-on for ${domain ?? "that e-mail domain"}: sign in with your password.`,
    sso_not_approved: "Your organization's single sign-on cannot be used yet: the organization is not approved.",
    sso_domain:
      "Your organization's identity provider vouched for an e-mail address outside the organization's domains, so you were not signed in.",
    saml:
      "Your organization's identity provider sent an answer that did not check out (signature, audience, destination, expiry or a " +
      "replay), so you were not signed in. Please start again.",
    enforced: `Accounts at ${domain ?? "this domain"} sign in through their organization's single sign-on: enter your e-mail and continue without a password.`,
    admin_sso: "A platform administrator signs in with a password or an identity provider, never through an organization's single sign-on.",
    link_required: `An account with ${email ?? "this e-mail"} already exists here. To use ${provider ? providerLabel(config, provider) : "your organization's single sign-on"} with it, sign in to it the way you usually do: you will then be asked to confirm the link.`,
  };
  return (sentences as Record<string, string>)[code] ?? null;
}

/**
 * Who a sign-in is for, when `next` is an application's authorization request (the OAuth sign-in
 * step): its name, the host that described it (a metadata document), where it returns. The
 * OAuth server answers it (oauth/pages.tsx `signInClient`); app.ts hands it in.
 */
export interface SignInClient {
  name: string;
  from?: string;
  redirectHost: string;
}

/** Reads the client of a `next` path, or null when `next` is not a valid authorization request. */
export type SignInClientOf = (next: string) => Promise<SignInClient | null>;

/** Which form a problem belongs to, and what the person had typed (never the password). */
interface Attempt {
  form: "sign-in" | "sign-up";
  error: string;
  email?: string;
  name?: string;
}

export function LoginPage(props: {
  next: string;
  signedInAs?: string | null;
  attempt?: Attempt;
  providers?: { id: string; label: string }[];
  notice?: string | null;
  client?: SignInClient | null;
}) {
  const a = props.attempt;
  const mine = (form: Attempt["form"]) => (a?.form === form ? a : undefined);
  const signInErr = mine("sign-in");
  const signUpErr = mine("sign-up");
  return (
    <Layout title="Sign in">
      <div class="card narrow">
        <h1>Sign in</h1>
        {props.client ? (
          <p id="sign-in-client">
            <strong>
              <Isolated text={props.client.name} />
            </strong>{" "}
            <span class="muted">
              ({props.client.from ? `described by ${props.client.from}, ` : ""}returns to {props.client.redirectHost})
            </span>{" "}
            asks to connect to a project: sign in to choose what it may do.
          </p>
        ) : null}
        {props.signedInAs ? (
          <p class="muted">
            Signed in as {props.signedInAs}. <a href={props.next}>Continue</a>, or sign in with another account.
          </p>
        ) : null}
        <Alert text={props.notice} id="sign-in-notice" />
        <form method="post" action="/login">
          <Alert text={signInErr?.error} />
          <input type="hidden" name="next" value={props.next} />
          <Field id="email" label="E-mail">
            <input name="email" type="email" required autocomplete="username" value={signInErr?.email ?? ""} />
          </Field>
          <Field id="password" label="Password" help="Your organization uses single sign-on? Leave the password empty and continue.">
            <input name="password" type="password" autocomplete="current-password" />
          </Field>
          <FormActions>
            <button type="submit">Sign in</button>
          </FormActions>
          <p class="small">
            <a href="/reset-password">Forgot your password?</a>
          </p>
        </form>
        {props.providers && props.providers.length > 0 ? (
          <div class="providers">
            <p class="muted">Or sign in with</p>
            <ul class="provider-list">
              {props.providers.map((p) => (
                <li>
                  <a class="button secondary" href={`/api/auth/oauth/${p.id}?next=${encodeURIComponent(props.next)}`} data-provider={p.id}>
                    {p.label}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
      <div class="card narrow" id="create-account">
        <h2>New here? Create an account</h2>
        <form method="post" action="/login/sign-up">
          <Alert text={signUpErr?.error} />
          <input type="hidden" name="next" value={props.next} />
          <Field id="new-email" label="E-mail">
            <input name="email" type="email" required autocomplete="email" value={signUpErr?.email ?? ""} />
          </Field>
          <Field id="new-name" label="Name">
            <input name="name" type="text" maxlength={100} autocomplete="name" value={signUpErr?.name ?? ""} />
          </Field>
          <Field id="new-password" label="Password" help="At least 10 characters.">
            <input name="password" type="password" required minlength={10} maxlength={256} autocomplete="new-password" />
          </Field>
          <FormActions>
            <button type="submit">Create account</button>
          </FormActions>
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

type Server = Parameters<typeof clientMeta>[1];
type Providers = ReturnType<typeof enabledProviders>;

/** Signed in: the session cookie and a 303 to `next`. */
function signedIn(deps: SignInDeps, next: string, token: string, expiresAt: number): Response {
  return new Response(null, {
    status: 303,
    headers: { location: next, "set-cookie": sessionCookie(deps.config, token, expiresAt), "cache-control": "no-store" },
  });
}

/** `GET /login`: the page, with the sentence of `?error=` (400) when there is one. */
async function loginPage(deps: SignInDeps, providers: Providers, request: Request, clientOf?: SignInClientOf): Promise<Response> {
  const q = new URL(request.url).searchParams;
  const next = safeNext(q.get("next"));
  const session = await optionalSession(deps, request);
  const error = q.get("error");
  const domain = q.get("domain");
  const email = q.get("email");
  const shownEmail = email && email.length <= 254 && EMAIL_PATTERN.test(email) ? email : null;
  const notice = error
    ? signInErrorSentence(deps.config, error, q.get("provider"), domain && /^[a-z0-9.-]{1,253}$/.test(domain) ? domain : null, shownEmail)
    : null;
  const client = clientOf && next.startsWith("/oauth/authorize?") ? await clientOf(next) : null;
  return page(
    <LoginPage next={next} signedInAs={session?.user.email ?? null} providers={providers} notice={notice} client={client} />,
    notice ? 400 : 200,
  );
}

/** `POST /login`: e-mail first (an SSO domain goes to its IdP), then the password. */
async function loginPost(deps: SignInDeps, providers: Providers, request: Request, body: unknown, server: Server): Promise<Response> {
  const next = safeNext(field(body, "next"));
  const email = field(body, "email").slice(0, 320);
  const password = field(body, "password").slice(0, 1024);
  try {
    checkSameOrigin(deps.config, request, false);
    // e-mail first: a domain with an approved organization's SSO goes to its IdP
    const domain = emailDomain(email.trim());
    if (password === "") {
      const sso = domain && EMAIL_PATTERN.test(email.trim()) ? await usableSsoForDomain(deps.database, domain) : null;
      if (sso)
        return new Response(null, {
          status: 303,
          headers: {
            location: `/api/auth/sso/${encodeURIComponent(domain!)}?next=${encodeURIComponent(next)}`,
            "cache-control": "no-store",
          },
        });
      const why = domain ? `No single sign-on is set up for ${domain}: enter your password.` : "Enter your e-mail and password.";
      return page(<LoginPage next={next} providers={providers} attempt={{ form: "sign-in", error: why, email }} />, 400);
    }
    const previous = sessionTokenFrom(deps.config, request);
    const r = await signIn(deps.database, deps.authLimiters, { email, password }, clientMeta(request, server), previous);
    return signedIn(deps, next, r.session.token, r.session.expiresAt);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return page(
      <LoginPage next={next} providers={providers} attempt={{ form: "sign-in", error: e.message, email }} />,
      e.status,
      e.headers,
    );
  }
}

/** `POST /login/sign-up`: a new account, signed in at once; the form again with the problem otherwise. */
async function signUpPost(deps: SignInDeps, providers: Providers, request: Request, body: unknown, server: Server): Promise<Response> {
  const next = safeNext(field(body, "next"));
  const email = field(body, "email").slice(0, 320);
  const name = field(body, "name").slice(0, 200);
  const password = field(body, "password").slice(0, 1024);
  const fail = (error: string, status: number, headers: Record<string, string> = {}) =>
    page(<LoginPage next={next} providers={providers} attempt={{ form: "sign-up", error, email, name }} />, status, headers);
  try {
    checkSameOrigin(deps.config, request, false);
    const problem = newAccountProblem(email, password, name);
    if (problem) return fail(problem, 400);
    const r = await signUp(
      deps.database,
      deps.authLimiters,
      { email, password, name: name.trim() || undefined },
      clientMeta(request, server),
      deps,
    );
    return signedIn(deps, next, r.session.token, r.session.expiresAt);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const message =
      e.code === "conflict" ? `An account with ${email.trim().toLowerCase()} already exists: sign in above instead.` : e.message;
    return fail(message, e.status, e.headers);
  }
}

/** `/login`, `/login/sign-up` and `/logout`; `clientOf` names the application an OAuth sign-in is for. */
export function loginPages(deps: SignInDeps, clientOf?: SignInClientOf) {
  const providers = enabledProviders(deps.config);
  return new Elysia()
    .get("/login", ({ request }) => loginPage(deps, providers, request, clientOf))
    .post("/login", ({ request, body, server }) => loginPost(deps, providers, request, body, server))
    .post("/login/sign-up", ({ request, body, server }) => signUpPost(deps, providers, request, body, server))
    .post("/logout", async ({ request }) => {
      const token = sessionTokenFrom(deps.config, request);
      if (token) {
        checkSameOrigin(deps.config, request, true);
        await deps.database.write((tx) => deleteSessionByToken(tx, token));
      }
      return new Response(null, {
        status: 303,
        headers: { location: "/login", "set-cookie": sessionCookie(deps.config, null), "cache-control": "no-store" },
      });
    });
}
