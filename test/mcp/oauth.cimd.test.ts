/**
 * Client ID metadata documents (MCP authorization 2026-07-28): a client_id that is the URL of the
 * client's metadata, served here by a listener on 127.0.0.1 that counts its connections. The
 * failures — a document that never comes, one too large, one naming another client_id, a
 * redirect_uri it does not list, a non-https id, a loopback address behind another name — are
 * each a page naming the OAuth error, shown to a signed-in person (a visitor is sent to sign in
 * before anything is fetched), and nothing is written; a fetched document's refusal says only
 * that the client could not be verified. The journey: SDK v2's `auth()`
 * with that client_id through authorize → consent → token (checking `iss`) → tools/call.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auth, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { countingListener, httpAnswer, type CountingListener } from "../egress-support";
import { MetadataDocumentProvider, signedInBrowser, UNVERIFIED } from "../cimd-support";
import { orgWithProject } from "../helpers";
import { Browser, consentInBrowser, liveEnv, PASSWORD, toolJson, type LiveEnv } from "../mcp-support";

const REDIRECT = "http://127.0.0.1:53690/callback";
let live: LiveEnv; // OAUTH_CLIENT_METADATA_LOOPBACK=true: the documents below may live on 127.0.0.1
let strict: LiveEnv; // the default: only https ids on public addresses
let docs: CountingListener;
const served = new Map<string, { body: string; headers?: Record<string, string> } | "hang">();
/** A signed-in person per server: documents are fetched only for one. */
const people = new Map<LiveEnv, Browser>();

const docUrl = (name: string) => `http://127.0.0.1:${docs.port}/${name}`;
const documentOf = (id: string, over: Record<string, unknown> = {}) =>
  JSON.stringify({ client_id: id, client_name: "CIMD Agent", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", ...over });

beforeAll(async () => {
  docs = await countingListener((head) => {
    const path = /^GET (\S+)/.exec(head)?.[1] ?? "";
    const doc = served.get(path.slice(1));
    if (doc === "hang") return null;
    if (!doc) return httpAnswer(404, {}, "no");
    return httpAnswer(200, { "content-type": "application/json", ...doc.headers }, doc.body);
  });
  // the fetch budget has tests of its own (oauth.cimd-budget.test.ts): this file fetches more than its default
  live = await liveEnv({ OAUTH_CLIENT_METADATA_LOOPBACK: "true", OAUTH_METADATA_FETCH_LIMIT_PER_MINUTE: "1000" });
  strict = await liveEnv();
  for (const env of [live, strict])
    people.set(env, await signedInBrowser(env.base, { email: (await orgWithProject(env.env)).owner.email, password: PASSWORD }));
  served.set("good.json", { body: documentOf(docUrl("good.json")) });
  served.set("slow.json", "hang");
  served.set("big.json", { body: documentOf(docUrl("big.json"), { client_uri: `https://x.test/${"a".repeat(6000)}` }) });
  served.set("other.json", { body: documentOf(docUrl("good.json")) });
  served.set("cached.json", { body: documentOf(docUrl("cached.json")), headers: { "cache-control": "public, max-age=600" } });
  served.set("nostore.json", { body: documentOf(docUrl("nostore.json")), headers: { "cache-control": "no-store" } });
  served.set("secret.json", { body: documentOf(docUrl("secret.json"), { token_endpoint_auth_method: "client_secret_basic" }) });
}, 30_000);
afterAll(async () => {
  await live.close();
  await strict.close();
  await docs.stop();
});

const authorizeUrl = (base: string, clientId: string, redirectUri = REDIRECT, resource = `${base}/mcp`) =>
  `${base}/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    state: "st-1",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSDjtQ0c",
    code_challenge_method: "S256",
    resource,
  })}`;

async function rows(env: LiveEnv): Promise<number> {
  const q = async (t: string) => Number((await env.env.database.client.execute(`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n);
  return (await q("oauth_clients")) + (await q("oauth_codes")) + (await q("oauth_tokens"));
}

/** An authorization request that must be refused on a page (never redirected) naming `code` and `words`. */
async function refused(env: LiveEnv, url: string, code: "invalid_client" | "invalid_request", words: string) {
  const before = await rows(env);
  const r = await people.get(env)!.get(url);
  const text = (await r.text()).replaceAll("&#39;", "'").replaceAll("&quot;", '"');
  expect(r.status).toBe(400);
  expect(r.headers.get("location")).toBeNull();
  expect(text).toContain(`(${code})`);
  expect(text).toContain(words);
  expect(await rows(env)).toBe(before);
}

describe("client ID metadata documents: refusals (invalid_client / invalid_request, nothing written)", () => {
  test("the authorization server metadata advertises client_id_metadata_document_supported and iss in responses", async () => {
    const m = await (await fetch(`${live.base}/.well-known/oauth-authorization-server`)).json();
    expect(m.client_id_metadata_document_supported).toBe(true);
    expect(m.authorization_response_iss_parameter_supported).toBe(true);
    expect(m.registration_endpoint).toBe(`${live.base}/oauth/register`);
  });

  test("a document that does not come within 5 s → invalid_client (timeout); the failure is kept 30 s (one fetch for two requests)", async () => {
    const started = Date.now();
    await refused(live, authorizeUrl(live.base, docUrl("slow.json")), "invalid_client", UNVERIFIED);
    expect(Date.now() - started).toBeLessThan(9_000);
    const again = Date.now();
    await refused(live, authorizeUrl(live.base, docUrl("slow.json")), "invalid_client", UNVERIFIED);
    expect(Date.now() - again).toBeLessThan(1_000);
    expect(docs.heads.filter((h) => h.startsWith("GET /slow.json ")).length).toBe(1);
  }, 15_000);

  test("the sign-in step names a metadata-document client by its client_name, host and redirect host once the document is kept, never fetching it", async () => {
    served.set("named.json", { body: documentOf(docUrl("named.json")) });
    const url = authorizeUrl(live.base, docUrl("named.json"));
    const r = await fetch(url, { redirect: "manual" });
    expect(r.status).toBe(302);
    const login = new URL(r.headers.get("location")!, live.base);
    expect(await (await fetch(login)).text()).not.toContain("<strong><bdi>CIMD Agent</bdi></strong>");
    expect(docs.heads.filter((h) => h.startsWith("GET /named.json ")).length).toBe(0);
    await people.get(live)!.get(url); // a signed-in person's request fetches and keeps it
    const html = await (await fetch(login)).text();
    expect(html).toContain("<strong><bdi>CIMD Agent</bdi></strong>");
    expect(html).toContain(`described by 127.0.0.1:${docs.port}, returns to 127.0.0.1:53690`);
    expect(docs.heads.filter((h) => h.startsWith("GET /named.json ")).length).toBe(1);
  });

  test("a document over 5 KB → invalid_client (could not be verified)", async () => {
    await refused(live, authorizeUrl(live.base, docUrl("big.json")), "invalid_client", UNVERIFIED);
  });

  test("a document whose client_id is not its URL → invalid_client (could not be verified, the other id not shown)", async () => {
    await refused(live, authorizeUrl(live.base, docUrl("other.json")), "invalid_client", UNVERIFIED);
  });

  test("a confidential client's document (client_secret_basic) → invalid_client (could not be verified)", async () => {
    await refused(live, authorizeUrl(live.base, docUrl("secret.json")), "invalid_client", UNVERIFIED);
  });

  test("a redirect_uri the document does not list → invalid_request, never redirected to", async () => {
    await refused(
      live,
      authorizeUrl(live.base, docUrl("good.json"), "http://127.0.0.1:53690/elsewhere"),
      "invalid_request",
      "not registered",
    );
    await refused(live, authorizeUrl(live.base, docUrl("good.json"), "https://evil.example/callback"), "invalid_request", "not registered");
  });

  test("a non-https id, and a loopback id without OAUTH_CLIENT_METADATA_LOOPBACK → invalid_client, nothing fetched", async () => {
    const before = docs.connections;
    await refused(strict, authorizeUrl(strict.base, "http://client.example/meta.json"), "invalid_client", "must be an https URL");
    await refused(strict, authorizeUrl(strict.base, docUrl("good.json")), "invalid_client", "OAUTH_CLIENT_METADATA_LOOPBACK=true");
    await refused(strict, authorizeUrl(strict.base, "https://client.example/"), "invalid_client", "must have a path");
    await refused(strict, authorizeUrl(strict.base, "https://client.example/a/../meta.json"), "invalid_client", "normal form");
    expect(docs.connections).toBe(before);
  });

  test("the token endpoint takes a URL client_id only once a person consented (its row): before, 401 invalid_client", async () => {
    const r = await fetch(`${live.base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: docUrl("cached.json"),
        code: "svc_ac_x",
        code_verifier: "v".repeat(43),
        redirect_uri: REDIRECT,
      }),
    });
    expect(r.status).toBe(401);
    expect((await r.json()).error).toBe("invalid_client");
  });

  test("another host's loopback: an https id whose name or address is loopback is refused by the egress policy, even in development", async () => {
    const before = docs.connections;
    for (const env of [strict, live]) {
      await refused(env, authorizeUrl(env.base, `https://localhost.:${docs.port}/good.json`), "invalid_client", UNVERIFIED);
      await refused(env, authorizeUrl(env.base, `https://127.0.0.2:${docs.port}/good.json`), "invalid_client", UNVERIFIED);
    }
    expect(docs.connections).toBe(before);
  });
});

describe("client ID metadata documents: caching and the iss of every authorization response", () => {
  const fetches = (name: string) => docs.heads.filter((h) => h.startsWith(`GET /${name} `)).length;

  test("a document is kept for its max-age (one fetch for two requests); under no-store it is fetched each time", async () => {
    const person = people.get(live)!;
    for (let i = 0; i < 2; i++) {
      expect((await person.get(authorizeUrl(live.base, docUrl("cached.json")))).status).toBe(200);
      expect((await person.get(authorizeUrl(live.base, docUrl("nostore.json")))).status).toBe(200);
    }
    expect(fetches("cached.json")).toBe(1);
    expect(fetches("nostore.json")).toBe(2);
  });

  test("RFC 9207: an error redirect to a metadata-document client carries iss too", async () => {
    const bad = new URL(authorizeUrl(live.base, docUrl("good.json")));
    bad.searchParams.set("code_challenge_method", "plain");
    const r = await people.get(live)!.get(bad.toString());
    expect(r.status).toBe(302);
    const to = new URL(r.headers.get("location")!);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get("error")).toBe("invalid_request");
    expect(to.searchParams.get("state")).toBe("st-1");
    expect(to.searchParams.get("iss")).toBe(live.base);
  });
});

describe("client ID metadata documents: the journey with SDK v2", () => {
  test("SDK v2 sees client_id_metadata_document_supported and uses its clientMetadataUrl as client_id, without registering", async () => {
    const o = await orgWithProject(live.env);
    const provider = new MetadataDocumentProvider(REDIRECT, "", "https://agent.example/oauth/client.json");
    expect(await auth(provider, { serverUrl: `${live.base}/mcp/${o.project.id}` })).toBe("REDIRECT");
    expect(provider.authorizationUrl!.searchParams.get("client_id")).toBe("https://agent.example/oauth/client.json");
    const n = await live.env.database.client.execute("SELECT count(*) AS n FROM oauth_clients");
    expect(Number(n.rows[0]!.n)).toBe(0);
  });

  test("authorize → consent → token (iss checked) → tools/call → refresh; the client row appears only at consent; the token is bound to its project", async () => {
    const o = await orgWithProject(live.env);
    const url = `${live.base}/mcp/${o.project.id}`;
    const id = docUrl("good.json");
    const provider = new MetadataDocumentProvider(REDIRECT, id);
    expect(await auth(provider, { serverUrl: url })).toBe("REDIRECT");
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.searchParams.get("client_id")).toBe(id);

    // the request is valid: a visitor is sent to sign in, and nothing is written yet
    expect((await fetch(authUrl, { redirect: "manual" })).headers.get("location")).toStartWith("/login");
    expect(await rows(live)).toBe(0);
    const browser = new Browser(live.base);
    const { location, code } = await consentInBrowser(browser, authUrl.toString(), { email: o.owner.email, password: PASSWORD });
    expect(location.searchParams.get("iss")).toBe(live.base);
    expect(code).toMatch(/^svc_ac_/);
    const client = await live.env.database.client.execute({
      sql: "SELECT name, redirect_uris FROM oauth_clients WHERE id = ?",
      args: [id],
    });
    expect(client.rows[0]).toMatchObject({ name: "CIMD Agent", redirect_uris: JSON.stringify([REDIRECT]) });

    // a forged iss is refused by the SDK before the code is redeemed
    await expect(auth(provider, { serverUrl: url, authorizationCode: code!, iss: "https://evil.example" })).rejects.toThrow();
    expect(await auth(provider, { serverUrl: url, authorizationCode: code!, iss: location.searchParams.get("iss")! })).toBe("AUTHORIZED");
    expect(provider.tokensSaved?.access_token).toMatch(/^svc_at_/);

    const mcp = new Client({ name: "cimd-agent", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    const doctor = toolJson(await mcp.callTool({ name: "svc_doctor", arguments: {} }));
    expect(doctor).toBeDefined();
    await mcp.close();

    // the token is bound to its project's MCP URL
    const other = await orgWithProject(live.env);
    const elsewhere = await fetch(`${live.base}/mcp/${other.project.id}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${provider.tokensSaved!.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(elsewhere.status).toBe(401);
    // while the same token works on its own project
    const home = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${provider.tokensSaved!.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(home.status).toBe(200);

    // a refresh names the same URL client_id
    const refreshed = await fetch(`${live.base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", client_id: id, refresh_token: provider.tokensSaved!.refresh_token! }),
    });
    expect(refreshed.status).toBe(200);
    expect((await refreshed.json()).access_token).toMatch(/^svc_at_/);
  });

  test("the consent page shows the document's client_name and the host that served it", async () => {
    const o = await orgWithProject(live.env);
    const browser = new Browser(live.base);
    const url = authorizeUrl(live.base, docUrl("good.json"), REDIRECT, `${live.base}/mcp/${o.project.id}`);
    const login = await browser.get(url);
    expect(login.status).toBe(302);
    const signIn = await browser.get(login.headers.get("location")!);
    const fields = Object.fromEntries([...(await signIn.text()).matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const signed = await browser.postForm("/login", { ...fields, email: o.owner.email, password: PASSWORD });
    expect(signed.status).toBe(303);
    const page = await (await browser.get(url)).text();
    expect(page).toContain("Authorize <bdi>CIMD Agent</bdi>");
    expect(page).toContain(`described by 127.0.0.1:${docs.port}`);
  });
});
