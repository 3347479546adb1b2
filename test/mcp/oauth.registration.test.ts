/**
 * Dynamic client registration is bounded: a global budget an hour beside the per-address one, a
 * 4 KiB cap on the metadata, page URIs only over https, and registrations that never get a token
 * deleted by housekeeping after OAUTH_UNUSED_CLIENT_DAYS (default 1), over app.handle on a real
 * database file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { ConfigError } from "../../src/configParsers";
import { purgeExpired } from "../../src/ops/housekeeping";
import { CLIENT_METADATA_MAX_BYTES } from "../../src/oauth/clients";
import { orgWithProject, testEnv, type TestEnv } from "../helpers";

const REDIRECT = "http://127.0.0.1:8977/callback";
const HOUR = 3600 * 1000;
let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

async function register(body: unknown = { client_name: "Agent", redirect_uris: [REDIRECT] }, on: TestEnv = env) {
  const res = await on.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, res };
}

const sql = (q: string, args: (string | number)[] = [], on: TestEnv = env) => on.database.client.execute({ sql: q, args });
const exists = async (id: string, on: TestEnv = env) =>
  Number((await sql("SELECT count(*) AS n FROM oauth_clients WHERE id = ?", [id], on)).rows[0]!.n) === 1;
/** Moves a client's registration `ms` into the past; `used` also marks a token issued an hour after it. */
const registeredAgo = (id: string, ms: number, used = false, on: TestEnv = env) =>
  sql(
    "UPDATE oauth_clients SET created_at = ?, last_used_at = ? WHERE id = ?",
    [Date.now() - ms, Date.now() - ms + (used ? HOUR : 0), id],
    on,
  );

describe("registration: budgets and metadata bounds", () => {
  test("the global budget (OAUTH_REGISTRATION_GLOBAL_LIMIT_PER_HOUR=3): the fourth registration in an hour → 429 too_many_requests with Retry-After", async () => {
    const small = await testEnv({ OAUTH_REGISTRATION_GLOBAL_LIMIT_PER_HOUR: "3" });
    try {
      for (let i = 0; i < 3; i++) expect((await register(undefined, small)).status).toBe(201);
      const refused = await register(undefined, small);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe("too_many_requests");
      // the wait until the oldest of the hour's registrations leaves the window; on PostgreSQL, where
      // the budget is counted in the database by hour windows with the previous one weighted (shared by
      // every replica), the wait until the current window ends
      const wait = Number(refused.res.headers.get("retry-after"));
      if (process.env.TEST_DATABASE === "postgres") expect(wait).toBeGreaterThan(0);
      else expect(wait).toBeGreaterThan(3500);
      expect(wait).toBeLessThanOrEqual(3600);
      expect(Number((await sql("SELECT count(*) AS n FROM oauth_clients", [], small)).rows[0]!.n)).toBe(3);
    } finally {
      small.close();
    }
  });

  test("metadata over 4 KiB as JSON → 400 invalid_client_metadata, nothing stored; just under is accepted", async () => {
    const base = { client_name: "Agent", redirect_uris: [REDIRECT], software_id: "" };
    const overhead = Buffer.byteLength(JSON.stringify(base));
    const fits = await register({ ...base, software_id: "a".repeat(CLIENT_METADATA_MAX_BYTES - overhead) });
    expect(fits.status).toBe(201);
    const before = (await sql("SELECT count(*) AS n FROM oauth_clients")).rows[0]!.n;
    const big = await register({ ...base, software_id: "a".repeat(CLIENT_METADATA_MAX_BYTES - overhead + 1) });
    expect(big.status).toBe(400);
    expect(big.body.error).toBe("invalid_client_metadata");
    expect(big.body.error_description).toContain("4 KiB");
    const many = await register({
      ...base,
      redirect_uris: Array.from({ length: 10 }, (_, i) => `https://x.example/${"p".repeat(600)}${i}`),
    });
    expect(many.status).toBe(400);
    expect(many.body.error).toBe("invalid_client_metadata");
    expect((await sql("SELECT count(*) AS n FROM oauth_clients")).rows[0]!.n).toBe(before);
  });

  test("client_uri and logo_uri only https: javascript:, data:, http: or not a URL → 400 invalid_client_metadata; https kept", async () => {
    for (const field of ["client_uri", "logo_uri"]) {
      for (const bad of ["javascript:alert(1)", "data:text/html,x", "http://agent.example/", "not a url", 42]) {
        const r = await register({ client_name: "Agent", redirect_uris: [REDIRECT], [field]: bad });
        expect(r.status).toBe(400);
        expect(r.body.error).toBe("invalid_client_metadata");
        expect(r.body.error_description).toContain(field);
      }
    }
    const ok = await register({
      client_name: "Agent",
      redirect_uris: [REDIRECT],
      client_uri: "https://agent.example/",
      logo_uri: "https://agent.example/logo.png",
    });
    expect(ok.status).toBe(201);
    expect(ok.body.client_uri).toBe("https://agent.example/");
    expect(ok.body.logo_uri).toBe("https://agent.example/logo.png");
    const stored = (await sql("SELECT metadata FROM oauth_clients WHERE id = ?", [ok.body.client_id])).rows[0]!.metadata as string;
    expect(JSON.parse(stored).client_uri).toBe("https://agent.example/");
  });
});

describe("registration: unused registrations expire (OAUTH_UNUSED_CLIENT_DAYS, default 1)", () => {
  test("housekeeping deletes a registration that never got a token after a day; keeps a younger one and one that got a token", async () => {
    const unused = (await register()).body.client_id as string;
    const young = (await register()).body.client_id as string;
    const used = (await register()).body.client_id as string;
    await registeredAgo(unused, 25 * HOUR);
    await registeredAgo(young, 23 * HOUR);
    await registeredAgo(used, 25 * HOUR, true);
    const gone = await purgeExpired(env.database);
    expect(gone.oauthClients).toBe(1);
    expect(await exists(unused)).toBe(false);
    expect(await exists(young)).toBe(true);
    expect(await exists(used)).toBe(true);
  });

  test("an unused registration holding a live authorization code (a consent on its way to the token) is kept", async () => {
    const id = (await register()).body.client_id as string;
    await registeredAgo(id, 25 * HOUR);
    const o = await orgWithProject(env);
    await sql(
      `INSERT INTO oauth_codes (code_hash, client_id, user_id, project_id, redirect_uri, code_challenge, scopes, resource, expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, 'c', '["doctor"]', 'r', ?, ?)`,
      [`live-${id}`, id, o.owner.userId, o.project.id, REDIRECT, Date.now() + 60_000, Date.now()],
    );
    await purgeExpired(env.database);
    expect(await exists(id)).toBe(true);
  });

  test("the expiry is a setting: with OAUTH_UNUSED_CLIENT_DAYS=3 a day-old unused registration stays; 0 or 31 is refused at start", async () => {
    const id = (await register()).body.client_id as string;
    await registeredAgo(id, 25 * HOUR);
    const days = loadConfig({ DATA_DIR: "/tmp", OAUTH_UNUSED_CLIENT_DAYS: "3" }).oauthUnusedClientDays;
    expect(days).toBe(3);
    await purgeExpired(env.database, Date.now(), days * 24 * HOUR);
    expect(await exists(id)).toBe(true);
    expect(loadConfig({ DATA_DIR: "/tmp" }).oauthUnusedClientDays).toBe(1);
    for (const bad of ["0", "31", "1.5"])
      expect(() => loadConfig({ DATA_DIR: "/tmp", OAUTH_UNUSED_CLIENT_DAYS: bad })).toThrow(ConfigError);
  });

  test("a full budget (OAUTH_MAX_CLIENTS) deletes the unused registrations first to make room", async () => {
    const small = await testEnv({ OAUTH_MAX_CLIENTS: "2" });
    try {
      const a = (await register(undefined, small)).body.client_id as string;
      expect((await register(undefined, small)).status).toBe(201);
      expect((await register(undefined, small)).status).toBe(503);
      await registeredAgo(a, 25 * HOUR, false, small);
      expect((await register(undefined, small)).status).toBe(201);
      expect(await exists(a, small)).toBe(false);
    } finally {
      small.close();
    }
  });
});
