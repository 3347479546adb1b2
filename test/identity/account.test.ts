/**
 * The person's own account (src/identity/account.ts, routes/accountWeb.ts, pages/account.tsx) over app.handle:
 * `/web/account…` as JSON and with htmx, `/account` and its forms without JavaScript, and their failure paths.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, formPost, htmxForm, nextTurn, orgWithProject, signedUp, testEnv, type TestEnv, textOfId, WebClient } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const PASSWORD = "correct horse battery"; // signedUp's
const NEW = "a brand new passphrase";

/** A second browser of the same person, signed in with `password`. */
async function secondBrowser(email: string, password = PASSWORD, userAgent = "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0") {
  const c = new WebClient(env, { "user-agent": userAgent });
  const r = await c.post("/api/auth/sign-in", { email, password });
  if (r.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(r.body)}`);
  return c;
}

describe("GET /web/account and /account", () => {
  test("the account: name, e-mail and its verification state, sessions with the current one marked, the keys the person created across projects", async () => {
    const o = await orgWithProject(env, "Account Keys");
    const other = await secondBrowser(o.owner.email);
    const key = await createKey(o.owner, o.project.id, ["prepare_task"]);
    const r = await o.owner.get("/web/account");
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ email: o.owner.email, emailVerified: false, hasPassword: true });
    expect(r.body.sessions.length).toBe(2);
    expect(r.body.sessions.filter((s: { current: boolean }) => s.current).length).toBe(1);
    expect(r.body.sessions.some((s: { userAgent: string }) => s.userAgent?.includes("Firefox"))).toBe(true);
    expect(r.body.keys).toEqual([expect.objectContaining({ id: key.key.id, projectId: o.project.id, projectName: o.project.name })]);
    expect(r.body.identities).toEqual([]);
    const html = await (await o.owner.call("GET", "/account", undefined, { accept: "text/html" })).text();
    expect(html).toContain(`href="/projects/${o.project.id}?tab=keys"`);
    expect(html).toContain("Firefox on Linux");
    expect(html).toContain("not verified yet");
    expect(html).toContain("Send the verification mail again");
    expect(html).toContain('<a href="/account" class="muted" title="Your account">'); // the header's e-mail
    void other;
  });

  test("not signed in: the page redirects to /login, the JSON routes answer 401", async () => {
    const page = await env.request("/account", { headers: { accept: "text/html" } });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/login?next=%2Faccount");
    const anon = new WebClient(env);
    expect((await anon.get("/web/account")).status).toBe(401);
    expect((await anon.post("/web/account/password", { currentPassword: PASSWORD, newPassword: NEW, repeatPassword: NEW })).status).toBe(
      401,
    );
    expect((await anon.post("/web/account/sessions/sign-out-others")).status).toBe(401);
    expect((await anon.del("/web/account/sessions/ses_x")).status).toBe(401);
  });

  test("an htmx GET of /web/account answers its JSON, never an empty 204 with HX-Refresh", async () => {
    const c = await signedUp(env);
    const r = await c.call("GET", "/web/account", undefined, { "hx-request": "true" });
    expect(r.status).toBe(200);
    expect(r.headers.get("hx-refresh")).toBeNull();
    expect((await r.json()).user.email).toBe(c.email);
  });
});

test("linked identities are listed read-only with their provider's name, an organization's SSO by the organization's name", async () => {
  const o = await orgWithProject(env, "Account SSO Co");
  for (const provider of ["github", `sso:${o.org.id}`]) {
    await env.database.client.execute({
      sql: "INSERT INTO external_accounts (provider, provider_user_id, user_id, created_at) VALUES (?, ?, ?, ?)",
      args: [provider, `subject-${provider}`, o.owner.userId, Date.now()],
    });
  }
  await nextTurn();
  const ids = (await o.owner.get("/web/account")).body.identities.map((i: { label: string }) => i.label).sort();
  expect(ids).toEqual(["GitHub", "Single sign-on of Account SSO Co"]);
  const html = await (await o.owner.call("GET", "/account", undefined, { accept: "text/html" })).text();
  expect(html).toContain("Single sign-on of Account SSO Co");
});

test("an account without a password (an identity provider's) is offered a reset link instead of the change form", async () => {
  const c = await signedUp(env);
  await env.database.client.execute({ sql: "UPDATE users SET password_hash = NULL WHERE id = ?", args: [c.userId] });
  await nextTurn();
  expect((await c.get("/web/account")).body.user.hasPassword).toBe(false);
  const html = await (await c.call("GET", "/account", undefined, { accept: "text/html" })).text();
  expect(html).toContain('<a href="/reset-password">A reset link</a>');
  expect(html).not.toContain('id="acc-password-form"');
});

describe("PATCH /web/account: the name", () => {
  test("renamed; a name over 100 characters → 400 naming name", async () => {
    const c = await signedUp(env);
    expect((await c.patch("/web/account", { name: "  Ada Lovelace " })).body.user.name).toBe("Ada Lovelace");
    const long = await c.patch("/web/account", { name: "x".repeat(101) });
    expect(long.status).toBe(400);
    expect(long.body.issues).toEqual([{ path: "name", message: "name must be at most 100 characters" }]);
    expect((await c.get("/web/account")).body.user.name).toBe("Ada Lovelace");
  });
});

describe("POST /web/account/password: a password change", () => {
  test("a wrong current password → 400 naming currentPassword; the password stays", async () => {
    const c = await signedUp(env);
    const r = await c.post("/web/account/password", { currentPassword: "not the password", newPassword: NEW, repeatPassword: NEW });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      error: "validation_failed",
      issues: [{ path: "currentPassword", message: "currentPassword is not your current password" }],
    });
    expect((await secondBrowser(c.email)).cookie).not.toBeNull(); // the old password still signs in
  });

  test("a weak new password → 400 naming the rule; a repeat that differs → 400 naming repeatPassword; nothing hashed or changed", async () => {
    const c = await signedUp(env);
    const weak = await c.post("/web/account/password", { currentPassword: PASSWORD, newPassword: "short", repeatPassword: "short" });
    expect(weak.status).toBe(400);
    expect(weak.body.issues).toEqual([{ path: "newPassword", message: "newPassword must be at least 10 characters" }]);
    const mismatch = await c.post("/web/account/password", { currentPassword: PASSWORD, newPassword: NEW, repeatPassword: `${NEW}!` });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.issues).toEqual([
      { path: "repeatPassword", message: "repeatPassword does not match the new password: type it again" },
    ]);
    expect((await secondBrowser(c.email)).cookie).not.toBeNull();
  });

  test("CHANGE_PASSWORD_LIMIT wrong current passwords per person → 429", async () => {
    const limited = await testEnv({ CHANGE_PASSWORD_LIMIT: "2" });
    try {
      const c = await signedUp(limited);
      const wrong = { currentPassword: "not the password", newPassword: NEW, repeatPassword: NEW };
      expect((await c.post("/web/account/password", wrong)).status).toBe(400);
      expect((await c.post("/web/account/password", wrong)).status).toBe(400);
      expect((await c.post("/web/account/password", wrong)).status).toBe(429);
    } finally {
      limited.close();
    }
  });

  test("the right current password → changed: the other sessions end, this browser gets a fresh cookie and stays signed in", async () => {
    const c = await signedUp(env);
    const other = await secondBrowser(c.email);
    const r = await c.post("/web/account/password", { currentPassword: PASSWORD, newPassword: NEW, repeatPassword: NEW });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ changed: true, otherSessionsEnded: true });
    expect((await c.get("/web/account")).status).toBe(200);
    expect((await other.get("/web/account")).status).toBe(401);
    expect((await secondBrowser(c.email, NEW)).cookie).not.toBeNull();
  });

  test("with htmx: a refusal is the #flash fragment naming the field; a change redirects to /account with its status and keeps the new session cookie", async () => {
    const c = await signedUp(env);
    const refused = await htmxForm(env, c, "POST", "/web/account/password", {
      currentPassword: "nope nope nope",
      newPassword: NEW,
      repeatPassword: NEW,
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("hx-retarget")).toBe("#flash");
    expect(refused.html).toContain('data-field="currentPassword"');
    const ok = await htmxForm(env, c, "POST", "/web/account/password", {
      currentPassword: PASSWORD,
      newPassword: NEW,
      repeatPassword: NEW,
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("hx-redirect")).toBe("/account");
    const cookies = ok.headers.getSetCookie().join("\n");
    expect(cookies).toContain("talentd_status=");
    const fresh = /talentd_session=([^;]+)/.exec(cookies)?.[1];
    expect(fresh).toBeTruthy();
    const next = new WebClient(env);
    next.cookie = `talentd_session=${fresh}`;
    expect((await next.get("/web/account")).status).toBe(200);
  });
});

describe("POST /account?form=…: the forms without JavaScript", () => {
  test("a wrong current password → 400 with the page again, the problem under the current-password field", async () => {
    const c = await signedUp(env);
    const r = await formPost(env, c, "/account?form=password", {
      currentPassword: "not the password",
      newPassword: NEW,
      repeatPassword: NEW,
    });
    expect(r.status).toBe(400);
    expect(r.html).toContain("<h1>Your account</h1>");
    expect(textOfId(r.html, "acc-current-error")).toBe("Current password is not your current password");
    expect(textOfId(r.html, "acc-repeat-error")).toBeNull();
  });

  test("a weak and unrepeated new password → each under its field", async () => {
    const c = await signedUp(env);
    const r = await formPost(env, c, "/account?form=password", {
      currentPassword: PASSWORD,
      newPassword: "short",
      repeatPassword: "other",
    });
    expect(r.status).toBe(400);
    expect(textOfId(r.html, "acc-new-error")).toBe("New password must be at least 10 characters");
    expect(textOfId(r.html, "acc-repeat-error")).toBe("Repeat password does not match the new password: type it again");
  });

  test("the right one → 303 to /account with the status cookie and a fresh session cookie; the name form saves", async () => {
    const c = await signedUp(env);
    const r = await formPost(env, c, "/account?form=password", { currentPassword: PASSWORD, newPassword: NEW, repeatPassword: NEW });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/account");
    const cookies = r.headers.getSetCookie().join("\n");
    expect(cookies).toContain("talentd_status=");
    c.cookie = `talentd_session=${/talentd_session=([^;]+)/.exec(cookies)![1]}`;
    const named = await formPost(env, c, "/account?form=name", { name: "Grace" });
    expect(named.status).toBe(303);
    expect((await c.get("/web/account")).body.user.name).toBe("Grace");
  });
});

describe("sessions: sign out elsewhere, and one session", () => {
  test("sign out elsewhere ends every other session of the person, not this one nor anyone else's", async () => {
    const c = await signedUp(env);
    const second = await secondBrowser(c.email);
    const third = await secondBrowser(c.email);
    const stranger = await signedUp(env);
    const r = await c.post("/web/account/sessions/sign-out-others");
    expect(r.body).toEqual({ ended: 2 });
    expect((await second.get("/web/account")).status).toBe(401);
    expect((await third.get("/web/account")).status).toBe(401);
    expect((await c.get("/web/account")).status).toBe(200);
    expect((await stranger.get("/web/account")).status).toBe(200);
    const events = await env.database.client.execute({
      sql: "SELECT detail FROM security_events WHERE kind = 'sessions.ended' AND user_id = ?",
      args: [c.userId],
    });
    expect(events.rows.map((r) => JSON.parse(String(r.detail)))).toEqual([{ scope: "others", ended: 2 }]);
  });

  test("another person's session → 404, and it goes on; the person's own other session ends", async () => {
    const c = await signedUp(env);
    const stranger = await signedUp(env);
    const theirs = (await stranger.get("/web/account")).body.sessions[0].id;
    const r = await c.del(`/web/account/sessions/${theirs}`);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("not_found");
    expect((await stranger.get("/web/account")).status).toBe(200);
    const second = await secondBrowser(c.email);
    const mine = (await c.get("/web/account")).body.sessions.find((s: { current: boolean }) => !s.current).id;
    expect((await c.del(`/web/account/sessions/${mine}`)).body).toEqual({ ended: true, current: false });
    expect((await second.get("/web/account")).status).toBe(401);
  });

  test("without JavaScript: the buttons post to the /web routes and come back to /account with the status", async () => {
    const c = await signedUp(env);
    const second = await secondBrowser(c.email);
    const r = await formPost(env, c, "/web/account/sessions/sign-out-others", {});
    expect(r.status).toBe(303);
    expect(r.location).toBe("/account");
    expect((await second.get("/web/account")).status).toBe(401);
  });
});

describe("POST /web/account/verification", () => {
  test("an unverified address gets a new link (202); a session of nobody → 401", async () => {
    const c = await signedUp(env);
    const r = await c.post("/web/account/verification");
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ sent: true, verified: false });
    expect((await new WebClient(env).post("/web/account/verification")).status).toBe(401);
  });
});
