/**
 * Client metadata documents are fetched only for a signed-in person, within a per-address and a
 * global budget, a failure is kept and answered again without a fetch, and the refusal page tells
 * nothing of the target's answer. The documents are served by a listener on 127.0.0.1 that counts
 * every request it gets (OAUTH_CLIENT_METADATA_LOOPBACK lets a loopback id be fetched).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { countingListener, httpAnswer, type CountingListener } from "../egress-support";
import { signedInBrowser, UNVERIFIED } from "../cimd-support";
import { orgWithProject } from "../helpers";
import { liveEnv, PASSWORD, type LiveEnv } from "../mcp-support";

const REDIRECT = "http://127.0.0.1:53692/callback";
let docs: CountingListener;
const envs: LiveEnv[] = [];

const docUrl = (name: string) => `http://127.0.0.1:${docs.port}/${name}`;
const fetchesOf = (name: string) => docs.heads.filter((h) => h.startsWith(`GET /${name} `)).length;
const authorizeUrl = (base: string, clientId: string) =>
  `${base}/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: "st",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSDjtQ0c",
    code_challenge_method: "S256",
    resource: `${base}/mcp`,
  })}`;

beforeAll(async () => {
  docs = await countingListener((head) => {
    const path = (/^GET (\S+)/.exec(head)?.[1] ?? "").slice(1);
    if (path.startsWith("teapot")) return httpAnswer(418, { "content-type": "application/x-probe-marker" }, "short and stout");
    if (path.startsWith("other")) {
      const body = JSON.stringify({ client_id: "https://leak-marker.example/x", redirect_uris: [REDIRECT] });
      return httpAnswer(200, { "content-type": "application/json" }, body);
    }
    if (path.startsWith("missing")) return httpAnswer(404, {}, "no");
    const body = JSON.stringify({ client_id: docUrl(path), client_name: "Budget Agent", redirect_uris: [REDIRECT] });
    return httpAnswer(200, { "content-type": "application/json" }, body);
  });
}, 30_000);
afterAll(async () => {
  for (const e of envs) await e.close();
  await docs.stop();
});

/** A server with these settings, and a person signed in to it. */
async function serverWithPerson(settings: Record<string, string> = {}) {
  const live = await liveEnv({ OAUTH_CLIENT_METADATA_LOOPBACK: "true", ...settings });
  envs.push(live);
  const o = await orgWithProject(live.env);
  return { live, person: await signedInBrowser(live.base, { email: o.owner.email, password: PASSWORD }) };
}

describe("client metadata documents: fetched only for a signed-in person", () => {
  test("an anonymous /oauth/authorize with a URL client_id is sent to sign in first, and nothing is fetched (300 distinct ids: 0 fetches)", async () => {
    const { live } = await serverWithPerson();
    const before = docs.heads.length;
    for (let i = 0; i < 300; i++) {
      const r = await fetch(authorizeUrl(live.base, docUrl(`anon-${i}.json`)), { redirect: "manual" });
      expect(r.status).toBe(302);
      expect(r.headers.get("location")).toStartWith("/login?next=");
    }
    expect(docs.heads.length).toBe(before);
  }, 30_000);

  test("the sign-in page of such a request fetches nothing either (it names the client only from a kept document)", async () => {
    const { live } = await serverWithPerson();
    const before = docs.heads.length;
    const next = new URL(authorizeUrl(live.base, docUrl("login-only.json")));
    const page = await fetch(`${live.base}/login?next=${encodeURIComponent(next.pathname + next.search)}`);
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain("Budget Agent");
    expect(docs.heads.length).toBe(before);
  });

  test("a signed-in person's request fetches the document once and shows the consent page", async () => {
    const { live, person } = await serverWithPerson();
    const r = await person.get(authorizeUrl(live.base, docUrl("signed-in.json")));
    expect(r.status).toBe(200);
    expect(await r.text()).toContain("Budget Agent");
    expect(fetchesOf("signed-in.json")).toBe(1);
  });
});

describe("client metadata documents: the fetch budgets", () => {
  test("per address (OAUTH_METADATA_FETCH_LIMIT_PER_MINUTE=3): the fourth document in a minute is refused 429 with Retry-After, not fetched", async () => {
    const { live, person } = await serverWithPerson({ OAUTH_METADATA_FETCH_LIMIT_PER_MINUTE: "3" });
    for (let i = 0; i < 3; i++) expect((await person.get(authorizeUrl(live.base, docUrl(`addr-${i}.json`)))).status).toBe(200);
    const refused = await person.get(authorizeUrl(live.base, docUrl("addr-3.json")));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.text()).toContain("(too_many_requests)");
    expect(fetchesOf("addr-3.json")).toBe(0);
    // a kept document is answered without counting
    expect((await person.get(authorizeUrl(live.base, docUrl("addr-0.json")))).status).toBe(200);
    expect(fetchesOf("addr-0.json")).toBe(1);
  });

  test("global (OAUTH_METADATA_FETCH_GLOBAL_LIMIT_PER_MINUTE=2): the third document in a minute is refused 429 whoever asks, not fetched", async () => {
    const { live, person } = await serverWithPerson({ OAUTH_METADATA_FETCH_GLOBAL_LIMIT_PER_MINUTE: "2" });
    for (let i = 0; i < 2; i++) expect((await person.get(authorizeUrl(live.base, docUrl(`all-${i}.json`)))).status).toBe(200);
    const refused = await person.get(authorizeUrl(live.base, docUrl("all-2.json")));
    expect(refused.status).toBe(429);
    expect(fetchesOf("all-2.json")).toBe(0);
  });
});

describe("client metadata documents: failures", () => {
  test("a failure is fetched once and answered again from memory within its 30 s", async () => {
    const { live, person } = await serverWithPerson();
    for (let i = 0; i < 3; i++) {
      const r = await person.get(authorizeUrl(live.base, docUrl("missing-1.json")));
      expect(r.status).toBe(400);
      expect(await r.text()).toContain(UNVERIFIED);
    }
    expect(fetchesOf("missing-1.json")).toBe(1);
  });

  test("the refusal page says only that the client could not be verified: not the target's status, content type or fields", async () => {
    const { live, person } = await serverWithPerson();
    const teapot = await (await person.get(authorizeUrl(live.base, docUrl("teapot.json")))).text();
    expect(teapot).toContain(UNVERIFIED);
    expect(teapot).toContain("(invalid_client)");
    for (const leak of ["418", "x-probe-marker", "short and stout", "HTTP"]) expect(teapot).not.toContain(leak);
    const other = await (await person.get(authorizeUrl(live.base, docUrl("other.json")))).text();
    expect(other).toContain(UNVERIFIED);
    expect(other).not.toContain("leak-marker");
  });
});
