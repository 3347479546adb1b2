/**
 * The small holes of the authorization server, over app.handle on a real database file: the
 * authorization request's redirect URI port range, a refresh after the user left the
 * organization or the organization lost its approval, and the lifetime and global budget of
 * dynamic client registrations.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { randomBytes } from "node:crypto";
import { purgeExpired } from "../../src/ops/housekeeping";
import { CLIENT_IDLE_MS } from "../../src/oauth/clients";
import { s256 } from "../../src/oauth/grants";
import { orgWithProject, testEnv, withKey, type TestEnv, type WebClient } from "../helpers";
import { formFields } from "../mcp-support";

let env: TestEnv;
let base: string;
beforeAll(async () => {
  env = await testEnv();
  base = env.config.baseUrl;
});
afterAll(() => env.close());

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const REDIRECT = "http://127.0.0.1:8976/callback";
const sql = (q: string, args: (string | number)[] = []) => env.database.client.execute({ sql: q, args });

async function json(res: Response): Promise<{ status: number; body: any; res: Response }> {
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, res };
}

const register = async (body: Record<string, unknown> = { client_name: "Agent", redirect_uris: [REDIRECT] }, on: TestEnv = env) =>
  json(
    await on.request("/oauth/register", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  );

function authorizeQuery(p: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ response_type: "code", redirect_uri: REDIRECT, code_challenge_method: "S256", state: "xyz", ...p }))
    if (v !== undefined) q.set(k, v);
  return `/oauth/authorize?${q}`;
}

const get = (path: string, who: WebClient) => env.request(path, { headers: who.cookie ? { cookie: who.cookie } : {} });

const tokenRequest = (fields: Record<string, string>) =>
  env.request("/oauth/token", { method: "POST", headers: FORM, body: new URLSearchParams(fields).toString() }).then(json);

/** An approved organization with a project, and tokens its owner granted to a new client. */
async function tokens() {
  const o = await orgWithProject(env);
  const clientId = (await register()).body.client_id as string;
  const verifier = randomBytes(32).toString("base64url");
  const resource = `${base}/mcp/${o.project.id}`;
  const page = await get(authorizeQuery({ client_id: clientId, code_challenge: s256(verifier), resource }), o.owner);
  expect(page.status).toBe(200);
  const { fields } = formFields(await page.text());
  const consent = await env.request("/oauth/authorize", {
    method: "POST",
    headers: { ...FORM, cookie: o.owner.cookie!, origin: new URL(base).origin },
    body: new URLSearchParams({ ...fields, decision: "allow" }).toString(),
  });
  const code = new URL(consent.headers.get("location")!).searchParams.get("code")!;
  const t = await tokenRequest({
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    resource,
  });
  expect(t.status).toBe(200);
  return { ...o, clientId, access: t.body.access_token as string, refresh: t.body.refresh_token as string };
}

const refresh = (clientId: string, refreshToken: string) =>
  tokenRequest({ grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken });

describe("authorize: the redirect URI's port is in range before any URL is built from it", () => {
  test("port 70000 on a registered loopback URI → 400 refusal page, never a redirect, never a 500", async () => {
    const o = await orgWithProject(env);
    const clientId = (await register()).body.client_id;
    const r = await get(
      authorizeQuery({ client_id: clientId, redirect_uri: "http://127.0.0.1:70000/callback", code_challenge: s256("x".repeat(43)) }),
      o.owner,
    );
    expect(r.status).toBe(400);
    expect(r.headers.get("location")).toBeNull();
    expect(await r.text()).toContain("not a valid URL");
  });

  test("property: any port string → 200 consent when it is 0–65535 in at most 5 digits, else 400 page; never 5xx", async () => {
    const o = await orgWithProject(env);
    const hosts = ["localhost", "127.0.0.1", "[::1]"];
    const clientId = (await register({ client_name: "Agent", redirect_uris: hosts.map((h) => `http://${h}/callback`) })).body.client_id;
    const resource = `${base}/mcp/${o.project.id}`;
    const challenge = s256("y".repeat(43));
    const port = fc.oneof(fc.integer({ min: 0, max: 10_000_000 }).map(String), fc.stringMatching(/^[0-9]{1,12}$/));
    await fc.assert(
      fc.asyncProperty(port, fc.constantFrom(...hosts), async (p, host) => {
        const r = await get(
          authorizeQuery({ client_id: clientId, redirect_uri: `http://${host}:${p}/callback`, code_challenge: challenge, resource }),
          o.owner,
        );
        const inRange = p.length <= 5 && Number(p) <= 65535;
        expect(r.status).toBe(inRange ? 200 : 400);
        expect(r.headers.get("location")).toBeNull();
        await r.body?.cancel();
      }),
      { numRuns: 150 },
    );
  });
});

describe("refresh re-checks the grant's standing: membership and the organization's approval", () => {
  test("the user removed from the organization → invalid_grant, and every token of the family is revoked (re-adding does not revive it)", async () => {
    const t = await tokens();
    const role = (await sql("SELECT role FROM members WHERE user_id = ? AND organization_id = ?", [t.owner.userId, t.org.id])).rows[0]!
      .role as string;
    await sql("DELETE FROM members WHERE user_id = ? AND organization_id = ?", [t.owner.userId, t.org.id]);
    const r = await refresh(t.clientId, t.refresh);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_grant");
    expect(r.body.error_description).toContain("no longer a member");
    const live = await sql("SELECT count(*) AS n FROM oauth_tokens WHERE client_id = ? AND revoked_at IS NULL", [t.clientId]);
    expect(Number(live.rows[0]!.n)).toBe(0);
    await sql("INSERT INTO members (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)", [
      t.org.id,
      t.owner.userId,
      role,
      Date.now(),
    ]);
    expect((await refresh(t.clientId, t.refresh)).body.error).toBe("invalid_grant");
    expect((await withKey(env, t.access, "/api/doctor")).status).toBe(401);
  });

  for (const status of ["suspended", "pending"]) {
    test(`the organization ${status} → invalid_grant naming it, and the family revoked`, async () => {
      const t = await tokens();
      await sql("UPDATE organizations SET status = ? WHERE id = ?", [status, t.org.id]);
      const r = await refresh(t.clientId, t.refresh);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("invalid_grant");
      expect(r.body.error_description).toContain(status);
      await sql("UPDATE organizations SET status = 'approved' WHERE id = ?", [t.org.id]);
      expect((await refresh(t.clientId, t.refresh)).body.error).toBe("invalid_grant");
      expect((await withKey(env, t.access, "/api/doctor")).status).toBe(401);
    });
  }

  test("a member of an approved organization still refreshes", async () => {
    const t = await tokens();
    const r = await refresh(t.clientId, t.refresh);
    expect(r.status).toBe(200);
    expect((await withKey(env, r.body.access_token, "/api/doctor")).status).toBe(200);
  });
});

describe("dynamic registrations: expire when unused for 30 days, within a global budget (OAUTH_MAX_CLIENTS)", () => {
  const lastUse = async (id: string, on: TestEnv = env) =>
    (await on.database.client.execute({ sql: "SELECT last_used_at AS t FROM oauth_clients WHERE id = ?", args: [id] })).rows[0]?.t ??
    "gone";
  const age = (id: string, ms: number, on: TestEnv = env, column = "last_used_at") =>
    on.database.client.execute({ sql: `UPDATE oauth_clients SET ${column} = ? WHERE id = ?`, args: [Date.now() - ms, id] });

  test("registration and every token issued (code exchange, refresh) mark the client used", async () => {
    const t = await tokens();
    const issued = Number(await lastUse(t.clientId));
    expect(issued).toBeGreaterThan(Date.now() - 60_000);
    await age(t.clientId, 10 * 24 * 3600 * 1000);
    expect((await refresh(t.clientId, t.refresh)).status).toBe(200);
    expect(Number(await lastUse(t.clientId))).toBeGreaterThanOrEqual(issued);
  });

  test("housekeeping deletes a client unused for 30 days with its tokens, keeps one used 29 days ago; a row without last_used_at goes by created_at", async () => {
    const idle = await tokens();
    const recent = (await register()).body.client_id as string;
    const legacy = (await register()).body.client_id as string;
    await age(idle.clientId, CLIENT_IDLE_MS + 60_000);
    await age(recent, CLIENT_IDLE_MS - 24 * 3600 * 1000);
    await sql("UPDATE oauth_clients SET last_used_at = NULL, created_at = ? WHERE id = ?", [Date.now() - CLIENT_IDLE_MS - 60_000, legacy]);
    const gone = await purgeExpired(env.database);
    expect(gone.oauthClients).toBe(2);
    expect(await lastUse(idle.clientId)).toBe("gone");
    expect(await lastUse(legacy)).toBe("gone");
    expect(await lastUse(recent)).not.toBe("gone");
    expect(Number((await sql("SELECT count(*) AS n FROM oauth_tokens WHERE client_id = ?", [idle.clientId])).rows[0]!.n)).toBe(0);
    const r = await refresh(idle.clientId, idle.refresh);
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_client");
  });

  test("the budget full → 503 temporarily_unavailable with Retry-After; an idle client is deleted first to make room", async () => {
    const small = await testEnv({ OAUTH_MAX_CLIENTS: "3" });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await register(undefined, small);
        expect(r.status).toBe(201);
        ids.push(r.body.client_id);
      }
      const full = await register(undefined, small);
      expect(full.status).toBe(503);
      expect(full.body.error).toBe("temporarily_unavailable");
      expect(full.body.error_description).toContain("maximum of 3");
      expect(full.res.headers.get("retry-after")).toBe("3600");
      await age(ids[0]!, CLIENT_IDLE_MS + 60_000, small);
      const room = await register(undefined, small);
      expect(room.status).toBe(201);
      expect(await lastUse(ids[0]!, small)).toBe("gone");
      const n = (await small.database.client.execute("SELECT count(*) AS n FROM oauth_clients")).rows[0]!.n;
      expect(Number(n)).toBe(3);
    } finally {
      small.close();
    }
  });
});
