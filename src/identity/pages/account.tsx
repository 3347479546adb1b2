/** @jsxImportSource hono/jsx */
/**
 * `/account` (docs/api.md "Your account"): the signed-in person's name, e-mail and its verification,
 * password change, active sessions (sign out one, or every other), linked identities and the keys
 * they created. With JavaScript each form sends its `/web/account…` route (a refusal in #flash and
 * under its fields, a change answered by this page again with its status line); without, the name
 * and password forms post to `POST /account?form=name|password`, answered by a 303 back here or by
 * this page again (400) with each problem under its field; the session buttons post to their
 * `/web` routes (a 303 back here).
 */
import { Elysia } from "elysia";
import type { SessionRecord } from "../../auth/sessions";
import { sessionCookie } from "../../auth/sessions";
import { clientMeta } from "../../http/client";
import { AppError } from "../../http/errors";
import { formField } from "../../http/form";
import { Field, FormActions, RefusalLine, refusalOf, type Refusal } from "../../ui/form";
import { Card, DataTable, Layout, page } from "../../ui/layout";
import { createPageGuard, type PageContext, type PageOrg, type PageSessions } from "../../ui/pageGuard";
import { when } from "../../ui/parts";
import { statusCookie } from "../../ui/status";
import {
  type Account,
  type AccountSession,
  changeOwnPassword,
  MAX_NAME_LENGTH,
  readAccount,
  readName,
  readPasswordChange,
  renameSelf,
} from "../account";
import type { SignInDeps } from "../limits";
import { ACCOUNT_STATUSES } from "../routes/describe";

/** The field of each issue's path. */
const FIELDS: Record<string, string> = {
  name: "acc-name",
  currentPassword: "acc-current",
  newPassword: "acc-new",
  repeatPassword: "acc-repeat",
};
const fieldOf = (path: string): string => FIELDS[path] ?? "";

/** A refused form posted without JavaScript: which form, what was typed (never a password), the problems by field. */
interface AccountAttempt {
  form: "name" | "password";
  name?: string;
  refusal: Refusal;
}

/** "Firefox on Linux": the browser and system a User-Agent names, or the header itself when neither is known. */
export function deviceOf(userAgent: string | null): string {
  if (!userAgent) return "Unknown device";
  const browser = [
    ["Edg/", "Edge"],
    ["OPR/", "Opera"],
    ["Firefox/", "Firefox"],
    ["Chrome/", "Chrome"],
    ["Safari/", "Safari"],
    ["curl/", "curl"],
  ].find(([mark]) => userAgent.includes(mark!))?.[1];
  const system = [
    ["Android", "Android"],
    ["iPhone", "iOS"],
    ["iPad", "iPadOS"],
    ["Windows", "Windows"],
    ["Mac OS X", "macOS"],
    ["CrOS", "ChromeOS"],
    ["Linux", "Linux"],
  ].find(([mark]) => userAgent.includes(mark!))?.[1];
  if (!browser) return userAgent.slice(0, 60);
  return system ? `${browser} on ${system}` : browser;
}

function Profile(props: { account: Account; attempt?: AccountAttempt }) {
  const u = props.account.user;
  const refused = props.attempt?.form === "name" ? props.attempt : undefined;
  return (
    <Card id="acc-profile" title="Profile">
      <form method="post" action="/account?form=name" hx-patch="/web/account" hx-swap="none">
        <RefusalLine id="acc-name-refused" refusal={refused?.refusal} />
        <Field id="acc-name" label="Name" error={refused?.refusal.fields["acc-name"] ?? null}>
          <input name="name" maxlength={MAX_NAME_LENGTH} autocomplete="name" value={refused?.name ?? u.name} />
        </Field>
        <FormActions>
          <button type="submit">Save name</button>
        </FormActions>
      </form>
      <p id="acc-email">
        E-mail: <strong>{u.email}</strong> — {u.emailVerified ? "verified" : "not verified yet"}
      </p>
      {u.emailVerified ? null : (
        <form method="post" action="/web/account/verification" hx-post="/web/account/verification" hx-swap="none">
          <p class="muted">Until it is verified, no single sign-on identity is linked to this account.</p>
          <button type="submit">Send the verification mail again</button>
        </form>
      )}
    </Card>
  );
}

function Password(props: { account: Account; attempt?: AccountAttempt }) {
  const refused = props.attempt?.form === "password" ? props.attempt.refusal : undefined;
  const at = (field: string) => refused?.fields[field] ?? null;
  if (!props.account.user.hasPassword) {
    return (
      <Card id="acc-password" title="Password">
        <p class="muted">
          You sign in through an identity provider: this account has no password. <a href="/reset-password">A reset link</a> mailed to your
          address sets one.
        </p>
      </Card>
    );
  }
  return (
    <Card id="acc-password" title="Password">
      <form method="post" action="/account?form=password" hx-post="/web/account/password" hx-swap="none" id="acc-password-form">
        <RefusalLine id="acc-password-refused" refusal={refused} />
        <Field id="acc-current" label="Current password" error={at("acc-current")}>
          <input name="currentPassword" type="password" required autocomplete="current-password" />
        </Field>
        <Field id="acc-new" label="New password" help="At least 10 characters." error={at("acc-new")}>
          <input name="newPassword" type="password" required minlength={10} maxlength={256} autocomplete="new-password" />
        </Field>
        <Field id="acc-repeat" label="Repeat the new password" error={at("acc-repeat")}>
          <input name="repeatPassword" type="password" required autocomplete="new-password" />
        </Field>
        <FormActions>
          <button type="submit">Change password</button>
        </FormActions>
        <p class="muted">Every other session of yours is signed out when the password changes.</p>
      </form>
    </Card>
  );
}

function SessionRow(props: { s: AccountSession }) {
  const s = props.s;
  return (
    <tr>
      <td>
        {deviceOf(s.userAgent)}
        {s.current ? <strong> (this browser)</strong> : null}
      </td>
      <td>{s.ip ?? "—"}</td>
      <td>{when(s.lastSeenAt)}</td>
      <td>{when(s.createdAt)}</td>
      <td>
        {s.current ? (
          "—"
        ) : (
          <form
            method="post"
            action={`/web/account/sessions/${s.id}?_method=DELETE`}
            hx-delete={`/web/account/sessions/${s.id}`}
            hx-swap="none"
          >
            <button type="submit" class="link" aria-label={`Sign out ${deviceOf(s.userAgent)}, last seen ${when(s.lastSeenAt)}`}>
              Sign out
            </button>
          </form>
        )}
      </td>
    </tr>
  );
}

function Sessions(props: { account: Account }) {
  const others = props.account.sessions.filter((s) => !s.current).length;
  return (
    <Card id="acc-sessions" title="Active sessions">
      <DataTable caption="Your active sessions" columns={["Device", "Address", "Last seen (UTC)", "Signed in (UTC)", "Actions"]}>
        {props.account.sessions.map((s) => (
          <SessionRow s={s} />
        ))}
      </DataTable>
      {others > 0 ? (
        <form method="post" action="/web/account/sessions/sign-out-others" hx-post="/web/account/sessions/sign-out-others" hx-swap="none">
          <FormActions>
            <button type="submit">Sign out elsewhere</button>
          </FormActions>
        </form>
      ) : (
        <p class="muted">No other session is open.</p>
      )}
    </Card>
  );
}

function Identities(props: { account: Account }) {
  const ids = props.account.identities;
  return (
    <Card
      id="acc-identities"
      title="Linked identities"
      empty={ids.length === 0 && "No identity provider or single sign-on is linked to this account."}
    >
      <ul>
        {ids.map((i) => (
          <li>
            {i.label} <span class="muted">(linked {when(i.linkedAt)} UTC)</span>
          </li>
        ))}
      </ul>
    </Card>
  );
}

function Keys(props: { account: Account }) {
  const keys = props.account.keys;
  return (
    <Card id="acc-keys" title="Your keys" empty={keys.length === 0 && "You have created no key that still works."}>
      <DataTable caption="Keys you created" columns={["Key", "Project", "Tools", "Created (UTC)", "Last used (UTC)"]}>
        {keys.map((k) => (
          <tr>
            <td>
              {k.name}
              {k.automation ? <span class="muted"> (automation key)</span> : null}
            </td>
            <td>
              <a href={`/projects/${k.projectId}?tab=keys`}>{k.projectName}</a> <span class="muted">({k.organizationName})</span>
            </td>
            <td>{k.tools.join(", ")}</td>
            <td>{when(k.createdAt)}</td>
            <td>{when(k.lastUsedAt)}</td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}

/** The account page: `status` says what the change it answers did, `attempt` a refused form. */
function AccountPage(props: { ctx: PageContext; account: Account; attempt?: AccountAttempt }) {
  return (
    <Layout title="Your account" user={props.ctx.session.user} nav={props.ctx.nav}>
      <h1>Your account</h1>
      <Profile account={props.account} attempt={props.attempt} />
      <Password account={props.account} attempt={props.attempt} />
      <Sessions account={props.account} />
      <Identities account={props.account} />
      <Keys account={props.account} />
    </Layout>
  );
}

type AccountContext = PageContext<SessionRecord, PageOrg>;

/** `GET /account` and the name and password forms posted without JavaScript. */
export function accountPages(deps: SignInDeps, sessions: PageSessions<SessionRecord, PageOrg>) {
  const render = async (ctx: AccountContext, status = 200, attempt?: AccountAttempt) =>
    page(
      <AccountPage
        ctx={ctx}
        account={await readAccount(deps.database, deps.config, ctx.session.user.id, ctx.session.id)}
        attempt={attempt}
      />,
      status,
      { "cache-control": "no-store" },
    );
  const back = (request: Request, message: string, cookie?: string) => {
    const headers = new Headers({ location: "/account", "cache-control": "no-store" });
    if (cookie) headers.append("set-cookie", cookie);
    headers.append("set-cookie", statusCookie(message, request));
    return new Response(null, { status: 303, headers });
  };
  return new Elysia()
    .use(createPageGuard(sessions))
    .get("/account", ({ page: ctx }) => render(ctx as AccountContext), { page: "signedIn" })
    .post(
      "/account",
      async ({ page: ctx, body, query, request, server }) => {
        const c = ctx as AccountContext;
        const form = query.form === "password" ? "password" : query.form === "name" ? "name" : null;
        if (!form) throw new AppError("validation_failed", "form must be name or password");
        try {
          if (form === "name") {
            await renameSelf(deps.database, c.session.user.id, readName(body));
            return back(request, ACCOUNT_STATUSES.renamed);
          }
          const change = readPasswordChange(body);
          const s = await changeOwnPassword(deps.database, deps.authLimiters, c.session.user.id, change, clientMeta(request, server));
          return back(request, ACCOUNT_STATUSES.password, sessionCookie(deps.config, s.token, s.expiresAt));
        } catch (e) {
          if (!(e instanceof AppError) || e.code !== "validation_failed") throw e;
          return render(c, e.status, { form, name: formField(body, "name"), refusal: refusalOf(e, fieldOf) });
        }
      },
      { page: "signedIn" },
    );
}
