/**
 * Client ID metadata documents over https, end to end: the server is a real process (`talentd serve`)
 * that trusts one certificate authority (NODE_EXTRA_CA_CERTS, as an operator with a private CA sets it);
 * the agent's document is served over TLS on 127.0.0.1 (OAUTH_CLIENT_METADATA_LOOPBACK, the development
 * setting that lets a loopback address hold it); SDK v2 takes the document's https URL as its
 * `clientMetadataUrl` (it refuses any other) and goes authorize → consent → token → tools/call without
 * registering. A document behind a certificate the server does not trust is refused on a page
 * that says only that the client could not be verified.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { auth, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { selfSignedCert } from "../cert-support";
import { MetadataDocumentProvider, signedInBrowser, UNVERIFIED } from "../cimd-support";
import { BUN, ROOT, tempDir } from "../helpers";
import { Browser, consentInBrowser, PASSWORD, toolJson } from "../mcp-support";
import { freePort, waitReady } from "../proc";

const REDIRECT = "http://127.0.0.1:53691/callback";
const tmp = tempDir("talentd-cimd-https-");
let server: Bun.Subprocess;
let base: string;
let trusted: ReturnType<typeof Bun.serve>;
let untrusted: ReturnType<typeof Bun.serve>;
const docOf = (id: string) =>
  JSON.stringify({ client_id: id, client_name: "TLS Agent", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });

/** A TLS listener on 127.0.0.1 serving the client's metadata document at /agent/client.json. */
function documentServer(tls: { key: string; cert: string }) {
  const s: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls,
    fetch: (req): Response =>
      new URL(req.url).pathname === "/agent/client.json"
        ? new Response(docOf(`https://127.0.0.1:${s.port}/agent/client.json`), { headers: { "content-type": "application/json" } })
        : new Response("no", { status: 404 }),
  });
  return s;
}

beforeAll(async () => {
  const ca = selfSignedCert("cimd-docs", "IP:127.0.0.1");
  trusted = documentServer(ca);
  untrusted = documentServer(selfSignedCert("cimd-stranger", "IP:127.0.0.1"));
  writeFileSync(join(tmp.dir, "ca.pem"), ca.cert);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
    cwd: tmp.dir,
    env: {
      PATH: process.env.PATH ?? "",
      DATA_DIR: join(tmp.dir, "data"),
      BASE_URL: base,
      LOG_LEVEL: "error",
      AUTO_APPROVE_ORGS: "true",
      OAUTH_CLIENT_METADATA_LOOPBACK: "true",
      NODE_EXTRA_CA_CERTS: join(tmp.dir, "ca.pem"),
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  await waitReady(base);
}, 60_000);
afterAll(async () => {
  server?.kill();
  await server?.exited;
  trusted?.stop(true);
  untrusted?.stop(true);
  tmp.cleanup();
});

/** A person with an organization and a project on the running server, signed in through the JSON API. */
async function owner(): Promise<{ email: string; projectId: string }> {
  const email = `tls-${Date.now()}@example.com`;
  const headers = { "content-type": "application/json", origin: base };
  const up = await fetch(`${base}/api/auth/sign-up`, { method: "POST", headers, body: JSON.stringify({ email, password: PASSWORD }) });
  expect(up.status).toBe(201);
  const cookie = /talentd_session=[^;]+/.exec(up.headers.get("set-cookie") ?? "")![0];
  const h = { ...headers, cookie };
  expect((await fetch(`${base}/web/orgs`, { method: "POST", headers: h, body: JSON.stringify({ name: `TLS org ${email}` }) })).status).toBe(
    201,
  );
  const p = await fetch(`${base}/web/projects`, { method: "POST", headers: h, body: JSON.stringify({ name: "tls" }) });
  expect(p.status).toBe(201);
  return { email, projectId: ((await p.json()) as { project: { id: string } }).project.id };
}

describe("client ID metadata documents over https (a real server process, a real TLS listener)", () => {
  test("SDK v2 with an https clientMetadataUrl: authorize → consent → token → tools/call; the client is named by its document", async () => {
    const me = await owner();
    const url = `${base}/mcp/${me.projectId}`;
    const id = `https://127.0.0.1:${trusted.port}/agent/client.json`;
    const agent = new MetadataDocumentProvider(REDIRECT, "", id);
    expect(await auth(agent, { serverUrl: url })).toBe("REDIRECT");
    expect(agent.authorizationUrl!.searchParams.get("client_id")).toBe(id);
    const browser = new Browser(base);
    const consent = await browser.get(agent.authorizationUrl!.toString());
    expect(consent.status).toBe(302); // to /login: nothing is fetched for a visitor
    const { location, code } = await consentInBrowser(browser, agent.authorizationUrl!.toString(), {
      email: me.email,
      password: PASSWORD,
    });
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get("iss")).toBe(base);
    expect(await auth(agent, { serverUrl: url, authorizationCode: code!, iss: base })).toBe("AUTHORIZED");
    expect(agent.tokensSaved?.access_token).toMatch(/^svc_at_/);
    const mcp = new Client({ name: "tls-agent", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: agent }));
    expect(toolJson(await mcp.callTool({ name: "svc_doctor", arguments: {} }))).toBeDefined();
    await mcp.close();
  }, 60_000);

  test("a document behind a certificate the server does not trust → invalid_client (could not be verified), on a page, never redirected", async () => {
    const id = `https://127.0.0.1:${untrusted.port}/agent/client.json`;
    const person = await signedInBrowser(base, { email: (await owner()).email, password: PASSWORD });
    const r = await person.get(
      `${base}/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: id,
        redirect_uri: REDIRECT,
        state: "st",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSDjtQ0c",
        code_challenge_method: "S256",
        resource: `${base}/mcp`,
      })}`,
    );
    expect(r.status).toBe(400);
    expect(r.headers.get("location")).toBeNull();
    const text = (await r.text()).replaceAll("&#39;", "'");
    expect(text).toContain("(invalid_client)");
    expect(text).toContain(`The application ${id} ${UNVERIFIED}`);
  });
});
