import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hasValidChecksum } from "../../src/lib/crypto";
import { createKey, joinedMember, makePlatformAdmin, nextTurn, orgWithProject, signedUp, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

/** Status, headers (minus per-request ones) and body bytes of a response. */
async function fingerprint(r: Response): Promise<string> {
  const headers = [...r.headers.entries()].filter(([k]) => !["x-request-id", "date"].includes(k)).sort();
  return JSON.stringify({ status: r.status, headers, body: await r.text() });
}

describe("project API keys (docs/api.md 'Key API')", () => {
  test("create → 201 with the value once: svc_pk_ + base62 + checksum; the listing never shows it", async () => {
    const { owner, project } = await orgWithProject(env);
    const r = await owner.post(`/web/projects/${project.id}/keys`, { name: "ci hook", tools: ["validate", "doctor"] });
    expect(r.status).toBe(201);
    expect(r.body.value).toMatch(/^svc_pk_[0-9A-Za-z]{43,}$/);
    expect(hasValidChecksum(r.body.value, "svc_pk_")).toBe(true);
    expect(r.body.key).toMatchObject({
      name: "ci hook",
      tools: ["validate", "doctor"],
      status: "active",
      expiresAt: null,
      createdBy: { email: owner.email },
    });
    const list = await owner.get(`/web/projects/${project.id}/keys`);
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(r.body.value);
    expect(text).not.toContain(r.body.value.slice(7, 20));
    expect(list.body.keys[0]).not.toHaveProperty("keyHash");
    expect(Object.keys(list.body.keys[0]).sort()).toEqual([
      "automation",
      "createdAt",
      "createdBy",
      "expiresAt",
      "id",
      "lastUsedAt",
      "name",
      "projectId",
      "revokedAt",
      "status",
      "tools",
    ]);
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ["an empty name", { name: "  ", tools: ["doctor"] }, "name"],
    ["a name over 100 characters", { name: "n".repeat(101), tools: ["doctor"] }, "name"],
    ["no tools", { name: "k", tools: [] }, "tools"],
    ["an unknown scope", { name: "k", tools: ["doctor", "admin"] }, "tools"],
    ["an expiration in the past", { name: "k", tools: ["doctor"], expiresAt: "2001-01-01T00:00:00Z" }, "expiresAt"],
    ["a malformed expiration", { name: "k", tools: ["doctor"], expiresAt: "tomorrow" }, "expiresAt"],
    ["no name", { tools: ["doctor"] }, "name"],
  ];
  for (const [what, body, field] of bad) {
    test(`create with ${what} → 400 validation_failed on ${field}`, async () => {
      const { owner, project } = await orgWithProject(env);
      const r = await owner.post(`/web/projects/${project.id}/keys`, body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
      expect(r.body.issues.map((i: { path: string }) => i.path)).toContain(field);
      expect((await owner.get(`/web/projects/${project.id}/keys`)).body.keys).toEqual([]);
    });
  }

  test("a key can never create or revoke keys, nor open any /web route (401)", async () => {
    const { owner, project } = await orgWithProject(env);
    const k = await createKey(owner, project.id, [
      "prepare_task",
      "validate",
      "record_validation",
      "deepen",
      "doctor",
      "catalog",
      "discover",
      "install",
    ]);
    const create = await withKey(env, k.value, `/web/projects/${project.id}/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x", tools: ["doctor"] }),
    });
    expect(create.status).toBe(401);
    expect((await withKey(env, k.value, `/web/projects/${project.id}/keys/${k.key.id}`, { method: "DELETE" })).status).toBe(401);
    expect((await withKey(env, k.value, "/web/projects")).status).toBe(401);
  });

  test("any member of the project's organization lists and revokes all its keys", async () => {
    const { owner, project } = await orgWithProject(env);
    const k = await createKey(owner, project.id, ["catalog"]);
    const m = await joinedMember(env, owner);
    expect((await m.get(`/web/projects/${project.id}/keys`)).body.keys.map((x: { id: string }) => x.id)).toEqual([k.key.id]);
    const rev = await m.del(`/web/projects/${project.id}/keys/${k.key.id}`);
    expect(rev.status).toBe(200);
    expect(rev.body.key.status).toBe("revoked");
    expect((await m.del(`/web/projects/${project.id}/keys/key_nope`)).status).toBe(404);
  });
});

describe("the key guard, evaluated on every call (docs/api.md 'Key API')", () => {
  test("GET /api/catalog with a catalog key → 200, paged with an opaque cursor", async () => {
    const { owner, project } = await orgWithProject(env);
    const k = await createKey(owner, project.id, ["catalog"]);
    const first = await (await withKey(env, k.value, "/api/catalog?limit=20")).json();
    expect(first.talents).toHaveLength(20);
    expect(first.total).toBeGreaterThanOrEqual(40);
    const second = await (await withKey(env, k.value, `/api/catalog?limit=200&cursor=${first.nextCursor}`)).json();
    expect(second.talents[0].id > first.talents.at(-1).id).toBe(true);
    expect(first.talents.length + second.talents.length).toBe(first.total);
    expect(second.nextCursor).toBeNull();
    expect((await withKey(env, k.value, "/api/catalog?limit=201")).status).toBe(400);
    expect((await withKey(env, k.value, "/api/catalog?cursor=garbage")).status).toBe(400);
    for (const q of ["limit=201", "limit=0", "cursor=garbage"])
      expect(`${q} → ${(await (await withKey(env, k.value, `/api/catalog?${q}`)).json()).error}`).toBe(`${q} → validation_failed`);
  });

  test("unknown, malformed, revoked, expired key and keys disabled → one byte-identical 401 invalid_token", async () => {
    const { owner, project } = await orgWithProject(env);
    const revoked = await createKey(owner, project.id, ["catalog"]);
    await owner.del(`/web/projects/${project.id}/keys/${revoked.key.id}`);
    const expiring = await createKey(owner, project.id, ["catalog"], { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await env.database.client.execute({ sql: "UPDATE api_keys SET expires_at = ? WHERE id = ?", args: [Date.now() - 1, expiring.key.id] });
    const live = await createKey(owner, project.id, ["catalog"]);
    const unknown = live.value.slice(0, 12) + (live.value[12] === "a" ? "b" : "a") + live.value.slice(13); // checksum now wrong
    const forged = "svc_pk_" + "A".repeat(43);
    const disabled = await testEnv({ KEYS_ENABLED: "false" });
    try {
      const prints = [
        await fingerprint(await withKey(env, unknown, "/api/catalog")),
        await fingerprint(await withKey(env, forged, "/api/catalog")),
        await fingerprint(await env.request("/api/catalog", { headers: { authorization: "Basic dXNlcjpwYXNz" } })),
        await fingerprint(await env.request("/api/catalog")),
        await fingerprint(await withKey(env, revoked.value, "/api/catalog")),
        await fingerprint(await withKey(env, expiring.value, "/api/catalog")),
        await fingerprint(await withKey(disabled, live.value, "/api/catalog")),
      ];
      expect(JSON.parse(prints[0]!).status).toBe(401);
      expect(JSON.parse(JSON.parse(prints[0]!).body)).toMatchObject({ error: "invalid_token" });
      for (const p of prints) expect(p).toBe(prints[0]!);
      expect((await withKey(env, live.value, "/api/catalog")).status).toBe(200);
    } finally {
      disabled.close();
    }
  });

  // a SQLite trigger (its syntax) makes the write fail; PostgreSQL's transactions are the same all-or-nothing
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "a key and its security event commit together: when the event cannot be written, no key is stored (its value was never shown)",
    async () => {
      const { owner, project } = await orgWithProject(env);
      await env.database.client.execute(
        "CREATE TRIGGER test_no_key_events BEFORE INSERT ON security_events WHEN NEW.kind = 'key.created' BEGIN SELECT RAISE(ABORT, 'security log unavailable'); END",
      );
      try {
        const r = await owner.post(`/web/projects/${project.id}/keys`, { name: "lost", tools: ["catalog"] });
        expect(`${r.status} ${r.body.error}`).toBe("500 internal_error");
        expect(JSON.stringify(r.body)).not.toContain("svc_pk_");
        expect((await owner.get(`/web/projects/${project.id}/keys`)).body.keys).toEqual([]);
      } finally {
        await env.database.client.execute("DROP TRIGGER test_no_key_events");
      }
    },
  );

  test("a key without the tool's scope → 403 insufficient_scope with requiredScope", async () => {
    const { owner, project } = await orgWithProject(env);
    const k = await createKey(owner, project.id, ["validate"]);
    const r = await withKey(env, k.value, "/api/catalog");
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ error: "insufficient_scope", requiredScope: "catalog" });
    expect(r.headers.get("www-authenticate")).toContain('scope="catalog"');
  });

  test("authentication comes before input validation: a bad query without a key → 401, not 400", async () => {
    expect((await env.request("/api/catalog?limit=9999")).status).toBe(401);
  });

  test("revocation takes effect on the very next call", async () => {
    const { owner, project } = await orgWithProject(env);
    const k = await createKey(owner, project.id, ["catalog"]);
    expect((await withKey(env, k.value, "/api/catalog")).status).toBe(200);
    await owner.del(`/web/projects/${project.id}/keys/${k.key.id}`);
    expect((await withKey(env, k.value, "/api/catalog")).status).toBe(401);
  });

  test("the creator leaving the organization → 403 not_a_member on the next call; rejoining restores the key", async () => {
    const { owner, project } = await orgWithProject(env);
    const m = await joinedMember(env, owner);
    const k = await createKey(m, project.id, ["catalog"]);
    expect((await withKey(env, k.value, "/api/catalog")).status).toBe(200);
    await owner.del(`/web/orgs/current/members/${m.userId}`);
    const r = await withKey(env, k.value, "/api/catalog");
    expect(r.status).toBe(403);
    expect((await r.json()).error).toBe("not_a_member");
    await joinedMember(env, owner, m); // rejoin
    expect((await withKey(env, k.value, "/api/catalog")).status).toBe(200);
  });

  test("a key acts with its creator's current role: doctor shows broken catalog entries to owners' and admins' keys only, and a role change applies on the next call", async () => {
    const { owner, project } = await orgWithProject(env);
    const m = await joinedMember(env, owner);
    const k = await createKey(m, project.id, ["doctor"]);
    const doctor = async () => (await (await withKey(env, k.value, "/api/doctor")).json()) as Record<string, unknown>;
    for (let i = 0; i < 2; i++) expect("brokenCatalogEntries" in (await doctor())).toBe(false); // a plain member (twice: cached)
    expect((await owner.patch(`/web/orgs/current/members/${m.userId}`, { role: "admin" })).status).toBe(200);
    expect("brokenCatalogEntries" in (await doctor())).toBe(true);
    expect((await owner.patch(`/web/orgs/current/members/${m.userId}`, { role: "member" })).status).toBe(200);
    expect("brokenCatalogEntries" in (await doctor())).toBe(false);
  });

  test("the organization no longer approved → 403 organization_not_approved", async () => {
    const { owner, org, project } = await orgWithProject(env);
    const k = await createKey(owner, project.id, ["catalog"]);
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    await admin.post(`/web/admin/organizations/${org.id}/suspend`);
    const r = await withKey(env, k.value, "/api/catalog");
    expect(r.status).toBe(403);
    expect((await r.json()).error).toBe("organization_not_approved");
    await admin.post(`/web/admin/organizations/${org.id}/reactivate`);
    expect((await withKey(env, k.value, "/api/catalog")).status).toBe(200);
  });

  test("the project deleted → 404 (its keys are gone with it; a revoked one stays 401)", async () => {
    const { owner, project } = await orgWithProject(env);
    const k = await createKey(owner, project.id, ["catalog"]);
    const dead = await createKey(owner, project.id, ["catalog"]);
    await owner.del(`/web/projects/${project.id}/keys/${dead.key.id}`);
    expect((await owner.del(`/web/projects/${project.id}`)).status).toBe(200);
    const r = await withKey(env, k.value, "/api/catalog");
    expect(r.status).toBe(404);
    expect((await r.json()).error).toBe("not_found");
    expect((await withKey(env, dead.value, "/api/catalog")).status).toBe(401);
    expect(
      (await env.database.client.execute({ sql: "SELECT count(*) AS n FROM api_keys WHERE project_id = ?", args: [project.id] })).rows[0]!
        .n,
    ).toBe(0);
  });

  // another process opens the SQLite file; PostgreSQL keeps no key between requests (docs/operations.md)
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "rights are re-read after any commit, even one made outside this app (another process): no stale cached key",
    async () => {
      const { owner, project } = await orgWithProject(env);
      const k = await createKey(owner, project.id, ["catalog"]);
      for (let i = 0; i < 3; i++) expect((await withKey(env, k.value, "/api/catalog")).status).toBe(200); // warm any cache
      const { createClient } = await import("@libsql/client");
      const other = createClient({ url: env.config.databaseUrl, timeout: 5000 } as Parameters<typeof createClient>[0]); // waits for the service's own commits (last use)
      await other.execute({ sql: "UPDATE api_keys SET revoked_at = ? WHERE id = ?", args: [Date.now(), k.key.id] });
      other.close();
      await nextTurn(); // a request sent after the commit arrives in a later turn
      expect((await withKey(env, k.value, "/api/catalog")).status).toBe(401);
    },
  );

  // another process opens the SQLite file; PostgreSQL keeps no key between requests (docs/operations.md)
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "over a socket: a key revoked by another process is refused on the very next request (no helper turn)",
    async () => {
      const { liveEnv } = await import("../mcp-support");
      const live = await liveEnv();
      try {
        const { owner, project } = await orgWithProject(live.env);
        const k = await createKey(owner, project.id, ["catalog"]);
        const call = () => fetch(`${live.base}/api/catalog?limit=1`, { headers: { authorization: `Bearer ${k.value}` } });
        for (let i = 0; i < 3; i++) expect((await call()).status).toBe(200); // warm the cache
        const path = live.env.config.databaseUrl.slice("file:".length);
        const proc = Bun.spawn(
          [
            process.execPath,
            "-e",
            `const D = require("libsql"); const d = new D(${JSON.stringify(path)}); d.exec("PRAGMA busy_timeout = 5000"); d.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(Date.now(), ${JSON.stringify(k.key.id)}); d.close();`,
          ],
          { stderr: "pipe" },
        );
        expect({ exit: await proc.exited, stderr: await new Response(proc.stderr).text() }).toEqual({ exit: 0, stderr: "" });
        expect((await call()).status).toBe(401);
      } finally {
        await live.close();
      }
    },
  );

  // what SQLite's data version and configuration epoch keep; PostgreSQL keeps nothing between requests yet
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "the service's own activity commits (a prepare-task's resolution, trace events) keep the key and the selection cached; a configuration change drops them",
    async () => {
      const { owner, project } = await orgWithProject(env);
      await owner.post(`/web/projects/${project.id}/talents`, { talents: ["typescript-strict"] });
      const k = await createKey(owner, project.id, ["prepare_task"]);
      const prepare = () =>
        withKey(env, k.value, "/api/prepare-task", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ talentIds: ["typescript-strict"] }),
        });
      const reads: string[] = [];
      const get = env.database.get;
      env.database.get = (sql, args) => {
        if (sql.includes("FROM api_keys k")) reads.push("key");
        if (sql.includes("selection_rev")) reads.push("selection");
        return get(sql, args);
      };
      try {
        expect((await prepare()).status).toBe(201); // records the key's first use: a configuration change (once a minute at most)
        await env.database.idle();
        expect((await prepare()).status).toBe(201);
        await nextTurn();
        reads.length = 0;
        for (let i = 0; i < 3; i++) {
          expect((await prepare()).status).toBe(201); // each one commits a resolution
          await nextTurn();
        }
        expect(reads).toEqual([]);
        expect((await owner.patch(`/web/projects/${project.id}/talents/typescript-strict`, { enabled: false })).status).toBe(200); // a configuration change
        await nextTurn();
        expect((await prepare()).status).toBe(400); // the disabled talent is refused at once
        expect(reads).toEqual(["key", "selection"]);
      } finally {
        env.database.get = get;
      }
    },
  );

  test("x-svc-project sent with a key is ignored", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const k = await createKey(a.owner, a.project.id, ["catalog"]);
    const r = await withKey(env, k.value, "/api/catalog", { headers: { "x-svc-project": b.project.id } });
    expect(r.status).toBe(200);
  });

  test("last used is recorded (at most once a minute)", async () => {
    const { owner, project } = await orgWithProject(env);
    const k = await createKey(owner, project.id, ["catalog"]);
    await withKey(env, k.value, "/api/catalog");
    await Bun.sleep(20);
    const listed = (await owner.get(`/web/projects/${project.id}/keys`)).body.keys[0];
    expect(listed.lastUsedAt).not.toBeNull();
  });
});

describe("the raw key value is never stored nor logged", () => {
  // reads SQLite's catalog (sqlite_master, PRAGMA table_info)
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "scan every text column of every table, and every log line, after creating keys",
    async () => {
      const { owner, project } = await orgWithProject(env);
      const values = [
        (await createKey(owner, project.id, ["catalog"])).value,
        (await createKey(owner, project.id, ["doctor", "validate"])).value,
      ];
      await withKey(env, values[0]!, "/api/catalog");
      const tables = (await env.database.client.execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows.map((r) =>
        String(r.name),
      );
      let scanned = 0;
      for (const table of tables) {
        const cols = (await env.database.client.execute(`PRAGMA table_info(${table})`)).rows;
        for (const c of cols) {
          const rows = (await env.database.client.execute(`SELECT "${c.name}" AS v FROM "${table}"`)).rows;
          for (const r of rows) {
            if (typeof r.v !== "string") continue;
            scanned++;
            for (const v of values) {
              expect(r.v.includes(v)).toBe(false);
              expect(r.v.includes(v.slice(7, 27))).toBe(false);
            }
          }
        }
      }
      expect(scanned).toBeGreaterThan(10);
      for (const line of env.logs) for (const v of values) expect(line.includes(v.slice(7, 27))).toBe(false);
    },
  );
});
