/** @jsxImportSource hono/jsx */
/**
 * `/accept-invitation/:id`, the page an invitation mail links to (docs/api.md "The invitation page"). Signed in as the
 * invitee: an Accept button. Signed in as someone else: says so. Not signed in: sign in (the
 * `/login` page, returning here) or create the account with the invited address and join.
 */
import { passwordProblem } from "../../identity/passwords";
import { utcMinute } from "../../lib/time";
import { Elysia } from "elysia";
import { eq } from "drizzle-orm";
import type { SignInDeps } from "../../identity/limits";
import { optionalSession } from "../../auth/session";
import { checkSameOrigin } from "../../http/csrf";
import { invitations, organizations } from "../../db/schema";
import { clientMeta } from "../../http/client";
import { AppError } from "../../http/errors";
import { formField } from "../../http/form";
import { signUp } from "../../identity/service";
import { sessionCookie, setActiveOrganization } from "../../auth/sessions";
import { normalizeEmail } from "../../identity/users";
import { Layout, page } from "../../ui/layout";
import { Field, FormActions } from "../../ui/form";
import { Alert } from "../../ui/parts";
import { NameAndPasswordFields } from "../../identity/pages/accountFields";
import { acceptInvitation } from "../service";

interface InvitationView {
  id: string;
  email: string;
  role: string;
  status: string;
  expiresAt: number;
  organizationName: string;
}

function Message(props: { title: string; text: string; link?: { href: string; label: string }; status?: string }) {
  return (
    <Layout title={props.title} status={props.status}>
      <div class="card">
        <h1>{props.title}</h1>
        <p>{props.text}</p>
        {props.link ? (
          <p>
            <a class="button" href={props.link.href}>
              {props.link.label}
            </a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}

/** A refusal on the invitation page: its message, and the sign-up field it concerns (none: the page as a whole). */
interface InvitationProblem {
  field?: "email" | "name" | "password";
  message: string;
}

/** The account-creation form of a visitor without an account, on the one form layout (its refusals under their fields). */
function SignUpForm(props: { inv: InvitationView; error?: InvitationProblem; name?: string }) {
  const here = `/accept-invitation/${props.inv.id}`;
  const at = (field: InvitationProblem["field"]) => (props.error?.field === field ? (props.error?.message ?? null) : null);
  return (
    <div>
      <p>
        Have an account? <a href={`/login?next=${encodeURIComponent(here)}`}>Sign in as {props.inv.email}</a>, then accept.
      </p>
      <h2>New here? Create your account</h2>
      <form method="post" action={`${here}/sign-up`}>
        <Field id="email" label="E-mail" help="The invited address." error={at("email")}>
          <input name="email" type="email" value={props.inv.email} readonly />
        </Field>
        <NameAndPasswordFields name={props.name} error={at} />
        <FormActions>
          <button type="submit">Create account and join</button>
        </FormActions>
      </form>
    </div>
  );
}

function InvitationPage(props: { inv: InvitationView; signedInAs: string | null; error?: InvitationProblem; name?: string }) {
  const { inv } = props;
  const here = `/accept-invitation/${inv.id}`;
  const whole = props.error && !props.error.field ? props.error.message : null;
  return (
    <Layout title={`Join ${inv.organizationName}`} user={props.signedInAs ? { email: props.signedInAs } : null}>
      <div class="card narrow">
        <h1>Join {inv.organizationName}</h1>
        <p>
          {inv.email} is invited to the organization <strong>{inv.organizationName}</strong> as {inv.role}. The invitation expires{" "}
          {utcMinute(inv.expiresAt)} UTC.
        </p>
        <Alert text={whole} />
        {props.signedInAs === inv.email ? (
          <form method="post" action={here}>
            <FormActions>
              <button type="submit">Accept and join</button>
            </FormActions>
          </form>
        ) : props.signedInAs ? (
          <p class="error">
            You are signed in as {props.signedInAs}, but this invitation is for {inv.email}.{" "}
            <a href={`/login?next=${encodeURIComponent(here)}`}>Sign in as {inv.email}</a>.
          </p>
        ) : (
          <SignUpForm inv={inv} error={props.error} name={props.name} />
        )}
      </div>
    </Layout>
  );
}

const field = (body: unknown, name: string): string => formField(body, name) ?? "";

/**
 * The welcome after joining, its status line saying so; `cookie`: the new account's session. A new account's address is
 * not verified by the invitation (its inviter holds the same link): the welcome points to the verification mail.
 */
const joined = (inv: InvitationView, cookie?: string) =>
  page(
    <Message
      title={`Welcome to ${inv.organizationName}`}
      text={`You are now a member of ${inv.organizationName} (${inv.role}); it is your active organization.${
        cookie ? ` To verify ${inv.email}, open the link we mailed to it.` : ""
      }`}
      link={{ href: "/", label: "Go to the dashboard" }}
      status={`You joined ${inv.organizationName} as ${inv.role}.`}
    />,
    200,
    cookie ? { "set-cookie": cookie } : {},
  );

export function invitationPages(deps: SignInDeps) {
  const load = async (id: string): Promise<InvitationView | Response> => {
    const row = (
      await deps.database.db
        .select({
          id: invitations.id,
          email: invitations.email,
          role: invitations.role,
          status: invitations.status,
          expiresAt: invitations.expiresAt,
          organizationName: organizations.name,
        })
        .from(invitations)
        .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
        .where(eq(invitations.id, id))
        .limit(1)
    )[0];
    if (!row || row.status === "revoked")
      return page(<Message title="Invitation not found" text="This invitation does not exist or was withdrawn. Ask for a new one." />, 404);
    if (row.status === "accepted")
      return page(<Message title="Already accepted" text={`This invitation to ${row.organizationName} was already accepted.`} />, 409);
    if (row.expiresAt <= Date.now())
      return page(
        <Message title="Invitation expired" text={`This invitation to ${row.organizationName} has expired. Ask for a new one.`} />,
        410,
      );
    return row;
  };
  const session = (request: Request) => optionalSession(deps, request);
  return new Elysia()
    .get("/accept-invitation/:id", async ({ params, request }) => {
      const inv = await load(params.id);
      if (inv instanceof Response) return inv;
      const s = await session(request);
      return page(<InvitationPage inv={inv} signedInAs={s?.user.email ?? null} />, 200);
    })
    .post("/accept-invitation/:id", async ({ params, request }) => {
      const inv = await load(params.id);
      if (inv instanceof Response) return inv;
      const s = await session(request);
      if (!s)
        return new Response(null, {
          status: 303,
          headers: { location: `/login?next=${encodeURIComponent(`/accept-invitation/${inv.id}`)}` },
        });
      checkSameOrigin(deps.config, request, true);
      try {
        await deps.database.write(async (tx) => {
          const a = await acceptInvitation(tx, inv.id, s.user);
          await setActiveOrganization(tx, s.id, a.organizationId);
        });
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        return page(<InvitationPage inv={inv} signedInAs={s.user.email} error={{ message: e.message }} />, e.status);
      }
      return joined(inv);
    })
    .post("/accept-invitation/:id/sign-up", async ({ params, request, body, server }) => {
      const inv = await load(params.id);
      if (inv instanceof Response) return inv;
      checkSameOrigin(deps.config, request, false);
      const email = normalizeEmail(field(body, "email") || inv.email);
      const password = field(body, "password");
      const name = field(body, "name").slice(0, 100);
      const fail = (error: InvitationProblem, status = 400) =>
        page(<InvitationPage inv={inv} signedInAs={null} error={error} name={name} />, status);
      if (email !== inv.email) return fail({ field: "email", message: `This invitation is for ${inv.email}.` }, 403);
      const problem = passwordProblem(password);
      if (problem) return fail({ field: "password", message: `The password ${problem}.` });
      try {
        const r = await signUp(
          deps.database,
          deps.authLimiters,
          { email, password, name: name || undefined },
          clientMeta(request, server),
          deps,
        );
        await deps.database.write(async (tx) => {
          const a = await acceptInvitation(tx, inv.id, { id: r.user.id, email: r.user.email });
          await setActiveOrganization(tx, r.session.id, a.organizationId);
        });
        return joined(inv, sessionCookie(deps.config, r.session.token, r.session.expiresAt));
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        const taken = e.code === "conflict";
        return fail(
          taken ? { field: "email", message: `An account with ${inv.email} exists: sign in instead.` } : { message: e.message },
          e.status,
        );
      }
    });
}
