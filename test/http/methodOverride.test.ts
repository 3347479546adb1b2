/**
 * docs/design.md "Pages work without JavaScript; htmx enhances them": a
 * browser form can only GET or POST, so a /web form post names its route's method in
 * `?_method=` (src/http/methodOverride.ts). These are the rule's edges over app.handle and over
 * a listening server (Bun's own router); the pages themselves are driven without JavaScript in
 * nojs.browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, orgWithProject, signedUp, testEnv, type TestEnv } from "../helpers";
import { connect } from "node:net";
import { liveEnv } from "../mcp-support";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "true" });
});
afterAll(() => env.close());

const ORIGIN = "http://localhost:8787";
type Owner = Awaited<ReturnType<typeof orgWithProject>>["owner"];

/** A form post as Chromium sends one without JavaScript (a navigation, same origin). */
function formPost(who: Owner, path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return env.request(path, {
    method: "POST",
    headers: {
      cookie: who.cookie!,
      origin: ORIGIN,
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/html,application/xhtml+xml",
      "sec-fetch-mode": "navigate",
      "sec-fetch-site": "same-origin",
      ...headers,
    },
    body,
  });
}

const keyStatus = async (who: Owner, projectId: string, keyId: string) =>
  (await who.get(`/web/projects/${projectId}/keys`)).body.keys.find((k: { id: string }) => k.id === keyId)?.status;

describe("a /web form post with ?_method= takes that method before routing", () => {
  test("?_method=DELETE, confirmed: the DELETE route runs (its guard, its change) and the browser is sent back with a 303", async () => {
    const o = await orgWithProject(env);
    const k = await createKey(o.owner, o.project.id, ["validate"]);
    const r = await formPost(
      o.owner,
      `/web/projects/${o.project.id}/keys/${k.key.id}?_method=DELETE`,
      `confirm=yes&return=${encodeURIComponent(`/projects/${o.project.id}?tab=keys`)}`,
    );
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe(`/projects/${o.project.id}?tab=keys`);
    expect(await keyStatus(o.owner, o.project.id, k.key.id)).toBe("revoked");
  });

  test("destructive, not confirmed: nothing changes; the browser gets a page asking the question with a button that posts it confirmed (400 validation_failed on `confirm` as JSON)", async () => {
    const o = await orgWithProject(env);
    const k = await createKey(o.owner, o.project.id, ["validate"], { name: "ci hook" });
    const path = `/web/projects/${o.project.id}/keys/${k.key.id}?_method=DELETE`;
    const page = await formPost(o.owner, path, "", { referer: `${ORIGIN}/projects/${o.project.id}?tab=keys` });
    expect(page.status).toBe(400);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain("Revoke the key “ci hook”? Calls with it fail at once.");
    expect(html).toContain(`<form method="post" action="${path}">`);
    expect(html).toContain('<input type="hidden" name="confirm" value="yes"/>');
    expect(html).toContain(`<input type="hidden" name="return" value="/projects/${o.project.id}?tab=keys"/>`); // back where the person was
    expect(await keyStatus(o.owner, o.project.id, k.key.id)).toBe("active");
    // a script posting the form gets the error model
    const json = await formPost(o.owner, path, "confirm=no", { accept: "*/*", "sec-fetch-mode": "cors" });
    expect(json.status).toBe(400);
    const body = await json.json();
    expect(body).toMatchObject({ error: "validation_failed", issues: [{ path: "confirm" }], confirm: { label: "Revoke “ci hook”" } });
    expect(await keyStatus(o.owner, o.project.id, k.key.id)).toBe("active");
  });

  test("an unknown or another organization's id is 404 before anything is asked (nothing of it named)", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const k = await createKey(a.owner, a.project.id, ["validate"], { name: "secret name" });
    const r = await formPost(b.owner, `/web/projects/${a.project.id}/keys/${k.key.id}?_method=DELETE`, "");
    expect(r.status).toBe(404);
    expect(await r.text()).not.toContain("secret name");
    const unknownKey = await formPost(a.owner, `/web/projects/${a.project.id}/keys/key_unknown?_method=DELETE`, "confirm=yes");
    expect(unknownKey.status).toBe(404);
    expect(await keyStatus(a.owner, a.project.id, k.key.id)).toBe("active");
  });

  test("?_method=patch in any case, and a multipart/form-data body, are taken too", async () => {
    const o = await orgWithProject(env);
    const form = new FormData();
    form.set("name", "Renamed by multipart");
    // as a browser sends it: the encoded body with its length
    const encoded = new Response(form);
    const type = encoded.headers.get("content-type")!;
    const bytes = await encoded.arrayBuffer();
    const r = await env.request(`/web/projects/${o.project.id}?_method=patch`, {
      method: "POST",
      headers: {
        cookie: o.owner.cookie!,
        origin: ORIGIN,
        accept: "text/html",
        "content-type": type,
        "content-length": String(bytes.byteLength),
      },
      body: bytes,
    });
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe(`/projects/${o.project.id}?tab=settings`);
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).body.project.name).toBe("Renamed by multipart");
  });

  test("a bad field of an overridden form is the route's own 400 with its issues, shown as a page", async () => {
    const o = await orgWithProject(env);
    const r = await formPost(o.owner, `/web/projects/${o.project.id}?_method=PATCH`, "name=");
    expect(r.status).toBe(400);
    const html = await r.text();
    expect(html).toContain("That did not work");
    expect(html).toContain(">Name must be text of 1 to 100 characters</li>");
  });

  test("typed-name deletion: a wrong name is 400 on `confirm` and keeps the project; the exact name deletes it; a DELETE that is not a form post (htmx, scripts) is not asked again", async () => {
    const o = await orgWithProject(env, "Typed Co");
    const path = `/web/projects/${o.project.id}?_method=DELETE`;
    const wrong = await formPost(o.owner, path, "confirm=Typed+Co+projec");
    expect(wrong.status).toBe(400);
    const html = await wrong.text();
    expect(html).toContain("Nothing was deleted: type the project&#39;s name, Typed Co project, to confirm.");
    expect((await formPost(o.owner, path, "")).status).toBe(400);
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(200);
    const right = await formPost(o.owner, path, "confirm=Typed+Co+project");
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe("/");
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(404);
    const other = await orgWithProject(env);
    expect((await other.owner.del(`/web/projects/${other.project.id}`)).status).toBe(200);
  });

  test("the request keeps its id through the second routing, and is logged once", async () => {
    const o = await orgWithProject(env);
    const k = await createKey(o.owner, o.project.id, ["validate"]);
    const before = env.logs.length;
    const r = await formPost(o.owner, `/web/projects/${o.project.id}/keys/${k.key.id}?_method=DELETE`, "confirm=yes", {
      "x-request-id": "override-check-1",
    });
    expect(r.status).toBe(303);
    expect(r.headers.get("x-request-id")).toBe("override-check-1");
    await new Promise((resolve) => setTimeout(resolve, 20)); // the access log is written after the response
    const lines = env.logs.slice(before).filter((l) => l.includes("override-check-1") && l.includes('"msg":"request"'));
    expect(lines.length).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ method: "DELETE", status: 303 });
  });
});

describe("where ?_method= is not applied", () => {
  test("on a GET: the GET route answers (200) and nothing is deleted", async () => {
    const o = await orgWithProject(env);
    const r = await env.request(`/web/projects/${o.project.id}?_method=DELETE`, { headers: { cookie: o.owner.cookie! } });
    expect(r.status).toBe(200);
    expect((await r.json()).project.id).toBe(o.project.id);
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(200);
  });

  test("outside /web/: the POST stays a POST (here no POST route: 404 not_found) and nothing changes", async () => {
    const o = await orgWithProject(env);
    const k = await createKey(o.owner, o.project.id, ["prepare_task"]);
    const r = await env.request(`/api/projects/${o.project.id}/talents?_method=PATCH`, {
      method: "POST",
      headers: { authorization: `Bearer ${k.value}`, "content-type": "application/x-www-form-urlencoded" },
      body: "install=typescript-strict",
    });
    expect(r.status).toBe(404);
    expect((await r.json()).error).toBe("not_found");
    expect((await o.owner.get(`/web/projects/${o.project.id}/installed`)).body.talents).toEqual([]);
  });

  test("with a JSON body: 400 validation_failed on `_method` (never run as the POST it is), nothing deleted", async () => {
    const o = await orgWithProject(env);
    const r = await o.owner.json("POST", `/web/projects/${o.project.id}?_method=DELETE`, { confirm: o.project.name });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: "validation_failed", issues: [{ path: "_method" }] });
    expect(r.body.issues[0].message).toContain("only accepted on a form post");
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(200);
  });

  test("an unknown method, or GET/POST named in _method: 400 validation_failed on `_method`, nothing changed", async () => {
    const o = await orgWithProject(env);
    for (const m of ["FOO", "GET", "POST", "HEAD", ""]) {
      const r = await formPost(o.owner, `/web/projects/${o.project.id}?_method=${m}`, `confirm=${encodeURIComponent(o.project.name)}`, {
        accept: "*/*",
        "sec-fetch-mode": "cors",
      });
      expect(r.status).toBe(400);
      expect((await r.json()).issues).toEqual([{ path: "_method", message: "must be PUT, PATCH or DELETE" }]);
    }
    // a browser sees it as a page, not JSON
    const page = await formPost(o.owner, `/web/projects/${o.project.id}?_method=FOO`, "");
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("must be PUT, PATCH or DELETE");
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(200);
  });

  test("the CSRF rule still applies to the overridden request: another origin, an opaque origin or none → 403 csrf_rejected, nothing changed", async () => {
    const o = await orgWithProject(env);
    const path = `/web/projects/${o.project.id}?_method=DELETE`;
    const body = `confirm=${encodeURIComponent(o.project.name)}`;
    const attempts: Record<string, string>[] = [
      { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      { origin: "null", "sec-fetch-site": "cross-site" },
      { origin: "https://evil.example" },
    ];
    for (const headers of attempts) {
      const r = await env.request(path, {
        method: "POST",
        headers: { cookie: o.owner.cookie!, "content-type": "application/x-www-form-urlencoded", ...headers },
        body,
      });
      expect(r.status).toBe(403);
      expect((await r.json()).error).toBe("csrf_rejected");
    }
    const none = await env.request(path, {
      method: "POST",
      headers: { cookie: o.owner.cookie!, "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    expect(none.status).toBe(403);
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(200);
  });

  test("unauthenticated: 401, as the route's guard says", async () => {
    const o = await orgWithProject(env);
    const r = await env.request(`/web/projects/${o.project.id}?_method=DELETE`, {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
      body: "confirm=x",
    });
    expect(r.status).toBe(401);
  });
});

describe("over a listening server (Bun's router picks a route by the socket's method first)", () => {
  test("a path with both a POST and a DELETE route (/web/orgs/current/sso) runs the DELETE when the form says so", async () => {
    const live = await liveEnv({ AUTO_APPROVE_ORGS: "true" });
    try {
      const owner = await signedUp(live.env);
      await owner.post("/web/orgs", { name: "Live SSO" });
      const saved = await owner.post("/web/orgs/current/sso", {
        type: "oidc",
        domains: ["override-live.example"],
        oidc: { issuer: "http://127.0.0.1:9", clientId: "c", clientSecret: "s" },
      });
      expect(saved.status).toBe(200);
      const post = (body: string) =>
        fetch(`${live.base}/web/orgs/current/sso?_method=DELETE`, {
          method: "POST",
          redirect: "manual",
          headers: { cookie: owner.cookie!, origin: live.base, accept: "text/html", "content-type": "application/x-www-form-urlencoded" },
          body,
        });
      const asked = await post("");
      expect(asked.status).toBe(400);
      expect(await asked.text()).toContain("Remove single sign-on? People of these domains will sign in with passwords again.");
      expect((await owner.get("/web/orgs/current/sso")).body.sso).not.toBeNull();
      const done = await post("confirm=yes&return=%2Forg%2Fsso");
      expect(done.status).toBe(303);
      expect(done.headers.get("location")).toBe("/org/sso");
      expect((await owner.get("/web/orgs/current/sso")).body.sso).toBeNull();
    } finally {
      await live.close();
    }
  }, 30_000);
});

/** A multipart/form-data body as a browser (or curl -F) encodes it: its bytes and its content-type with the boundary. */
async function multipart(fields: [string, string][]): Promise<{ type: string; bytes: Uint8Array }> {
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  const encoded = new Response(form);
  return { type: encoded.headers.get("content-type")!, bytes: new Uint8Array(await encoded.arrayBuffer()) };
}

/**
 * An HTTP/1.1 POST written by hand on a socket: with `content-length`, or `transfer-encoding:
 * chunked` and the body cut in `pieces` chunks (what curl -T, CLIs and proxies may send). The
 * answer's status, location and body.
 */
function rawPost(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
  framing: "length" | "chunked",
  pieces = 3,
): Promise<{ status: number; location: string | null; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      const head = [
        `POST ${path} HTTP/1.1`,
        `host: ${url.host}`,
        "connection: close",
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      if (framing === "length") {
        socket.write([...head, `content-length: ${body.byteLength}`, "", ""].join("\r\n"));
        socket.write(body);
        return;
      }
      socket.write([...head, "transfer-encoding: chunked", "", ""].join("\r\n"));
      const size = Math.ceil(body.byteLength / pieces);
      for (let at = 0; at < body.byteLength; at += size) {
        const part = body.subarray(at, at + size);
        socket.write(`${part.byteLength.toString(16)}\r\n`);
        socket.write(part);
        socket.write("\r\n");
      }
      socket.write("0\r\n\r\n");
    });
    const received: Buffer[] = [];
    socket.on("data", (d: Buffer) => received.push(d));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(received).toString("utf8");
      const [head, ...rest] = text.split("\r\n\r\n");
      const lines = head!.split("\r\n");
      const header = (name: string) =>
        lines
          .find((l) => l.toLowerCase().startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim() ?? null;
      resolve({ status: Number(lines[0]!.split(" ")[1]), location: header("location"), body: rest.join("\r\n\r\n") });
    });
  });
}

describe("a multipart/form-data body sent chunked (no content-length) parses as the one with a length (src/http/edge.ts)", () => {
  test("create a project, install two talents (a repeated field), rename through ?_method=PATCH: the same answers and changes chunked as with a length, over a real socket", async () => {
    const live = await liveEnv({ AUTO_APPROVE_ORGS: "true" });
    try {
      const owner = await signedUp(live.env);
      await owner.post("/web/orgs", { name: "Chunked Multipart" });
      const headers = (type: string, extra: Record<string, string> = {}) => ({
        cookie: owner.cookie!,
        origin: live.base,
        "content-type": type,
        accept: "application/json",
        ...extra,
      });
      for (const framing of ["length", "chunked"] as const) {
        const created = await multipart([
          ["name", `By ${framing}`],
          ["repository", `group/${framing}`],
        ]);
        const c = await rawPost(live.base, "/web/projects", headers(created.type), created.bytes, framing);
        expect(`${framing} ${c.status}`).toBe(`${framing} 201`);
        const project = JSON.parse(c.body).project;
        expect(project).toMatchObject({ name: `By ${framing}`, repository: `group/${framing}` });

        const talents = await multipart([
          ["talents", "typescript-strict"],
          ["talents", "javascript-base"],
        ]);
        const i = await rawPost(live.base, `/web/projects/${project.id}/talents`, headers(talents.type), talents.bytes, framing);
        expect(i.status).toBe(201);
        const installed = ((await owner.get(`/web/projects/${project.id}/installed`)).body.talents as { id: string }[])
          .map((t) => t.id)
          .sort();
        expect(installed).toEqual(["javascript-base", "typescript-strict"]);

        const renamed = await multipart([["name", `Renamed by ${framing}`]]);
        const r = await rawPost(
          live.base,
          `/web/projects/${project.id}?_method=PATCH`,
          headers(renamed.type, { accept: "text/html" }),
          renamed.bytes,
          framing,
        );
        expect(r.status).toBe(303);
        expect(r.location).toBe(`/projects/${project.id}?tab=settings`);
        expect((await owner.get(`/web/projects/${project.id}`)).body.project.name).toBe(`Renamed by ${framing}`);

        // a bad field is the route's own 400 naming it, not a body read as text
        const bad = await multipart([["name", ""]]);
        const b = await rawPost(live.base, `/web/projects/${project.id}?_method=PATCH`, headers(bad.type), bad.bytes, framing);
        expect(b.status).toBe(400);
        expect(JSON.parse(b.body)).toMatchObject({ error: "validation_failed", issues: [{ path: "name" }] });
      }
    } finally {
      await live.close();
    }
  }, 30_000);

  test("a chunked multipart body over BODY_LIMIT → 413 payload_too_large, nothing created", async () => {
    const live = await liveEnv({ AUTO_APPROVE_ORGS: "true", BODY_LIMIT: "4096" });
    try {
      const owner = await signedUp(live.env);
      await owner.post("/web/orgs", { name: "Chunked Limit" });
      const big = await multipart([
        ["name", "Too big"],
        ["description", "d".repeat(5000)],
      ]);
      const r = await rawPost(
        live.base,
        "/web/projects",
        { cookie: owner.cookie!, origin: live.base, "content-type": big.type },
        big.bytes,
        "chunked",
        6,
      );
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body)).toMatchObject({ error: "payload_too_large", limit: 4096 });
      expect((await owner.get("/web/projects")).body.projects).toEqual([]);
    } finally {
      await live.close();
    }
  }, 30_000);
});
