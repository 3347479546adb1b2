/**
 * The page guard, as a table: for every dashboard page (and the forms that post to a page), what
 * each kind of viewer gets. Signed out: a 303 to /login?next=<the page>. Signed in without an
 * organization, or in a pending one: the pages of an organization's data answer the error page
 * that says why (403), the others open. A member on an owner/admin page, anyone but a platform
 * administrator on /admin: the 404 page (the page's existence is not advertised). The right role:
 * the page (or, for a form, the answer past the guard: the route's own checks).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { joinedMember, makePlatformAdmin, orgWithProject, signedUp, testEnv, WebClient, type TestEnv } from "../helpers";

let env: TestEnv;
const actors: Record<Actor, WebClient> = {} as Record<Actor, WebClient>;
let projectId = "";
let expertiseId = "";

type Actor = "anon" | "noOrg" | "pending" | "member" | "owner" | "platform";
const ACTORS: Actor[] = ["anon", "noOrg", "pending", "member", "owner", "platform"];

beforeAll(async () => {
  env = await testEnv();
  const a = await orgWithProject(env, "Guarded Co");
  projectId = a.project.id;
  expertiseId = (await a.owner.post("/web/orgs/current/expertises", { slug: "guarded", content: "first" })).body.id;
  actors.anon = new WebClient(env);
  actors.noOrg = await signedUp(env);
  actors.pending = await signedUp(env);
  await actors.pending.post("/web/orgs", { name: "Waiting Co" });
  actors.member = await joinedMember(env, a.owner);
  actors.owner = a.owner;
  const platform = await signedUp(env);
  await makePlatformAdmin(env, platform.userId);
  actors.platform = platform;
});
afterAll(() => env.close());

const NEXT = (path: string): string => `303 /login?next=${encodeURIComponent(path)}`;
const NO_ORG = "403 You do not belong to an organization yet";
const PENDING = "403 Waiting Co is pending";
const ADMIN_ONLY = "404 No such page.";
const EXPERTISE_404 = "404 No such expertise.";
const SSO_404 = "404 No such page for your role";
const MAIL_404 = "404 This page is for the organization's owners and admins.";

/** One page, and what each viewer gets: the status, then the location of a redirect or the start of the error page's message. */
interface Row {
  method?: "GET" | "POST";
  path: () => string;
  expect: (path: string) => Answers;
}

type Answers = Record<Actor, string>;
const signedIn = (path: string): Answers => ({
  anon: NEXT(path),
  noOrg: "200",
  pending: "200",
  member: "200",
  owner: "200",
  platform: "200",
});
const platformOnly = (path: string): Answers => ({
  anon: NEXT(path),
  noOrg: ADMIN_ONLY,
  pending: ADMIN_ONLY,
  member: ADMIN_ONLY,
  owner: ADMIN_ONLY,
  platform: "200",
});
const member = (path: string): Answers => ({
  anon: NEXT(path),
  noOrg: NO_ORG,
  pending: PENDING,
  member: "200",
  owner: "200",
  platform: NO_ORG,
});
const admin =
  (missing: string, right = "200") =>
  (path: string): Answers => ({ anon: NEXT(path), noOrg: NO_ORG, pending: PENDING, member: missing, owner: right, platform: NO_ORG });

const ROWS: Row[] = [
  { path: () => "/", expect: signedIn },
  { path: () => "/org", expect: signedIn },
  { path: () => "/org/new", expect: signedIn },
  { path: () => "/account", expect: signedIn },
  {
    method: "POST",
    path: () => "/account?form=name",
    expect: (path) => ({ ...Object.fromEntries(ACTORS.map((a) => [a, "400 page"])), anon: NEXT(path) }) as Answers,
  },
  { path: () => "/admin", expect: platformOnly },
  { path: () => "/admin/users", expect: platformOnly },
  { path: () => "/admin/mail", expect: platformOnly },
  { path: () => "/admin/security-events", expect: platformOnly },
  { path: () => "/projects/new", expect: member },
  { path: () => `/projects/${projectId}`, expect: member },
  { path: () => `/projects/${projectId}?tab=settings`, expect: member },
  { path: () => `/projects/${projectId}/onboarding`, expect: member },
  { path: () => "/catalog", expect: member },
  { path: () => "/catalog/typescript-strict", expect: member },
  { path: () => "/org/expertises", expect: admin(EXPERTISE_404) },
  { path: () => `/org/expertises/${expertiseId}`, expect: admin(EXPERTISE_404) },
  { method: "POST", path: () => `/org/expertises/${expertiseId}`, expect: admin(EXPERTISE_404, "400 page") },
  { path: () => "/org/expertises/import", expect: admin(EXPERTISE_404) },
  { method: "POST", path: () => "/org/expertises/import", expect: admin(EXPERTISE_404, "400 page") },
  { path: () => "/org/insights", expect: admin(EXPERTISE_404) },
  { path: () => "/org/talent-adoption", expect: admin(EXPERTISE_404) },
  { path: () => "/org/sso", expect: admin(SSO_404) },
  { method: "POST", path: () => "/org/sso/test", expect: admin(SSO_404, "404 This organization has no single sign-on to test") },
  { method: "POST", path: () => "/org/sso/verify", expect: admin(SSO_404, "404 page") },
  { path: () => "/org/mail", expect: admin(MAIL_404) },
  { path: () => "/org/policy", expect: admin(MAIL_404) },
];

/** What a page answers: its status, and the redirect's location, the error page's message (as far as the expected text goes), or `page`. */
async function answer(c: WebClient, method: string, path: string, expected: string): Promise<string> {
  const headers: Record<string, string> = { accept: "text/html" };
  const r = method === "GET" ? await c.call(method, path, undefined, headers) : await c.call(method, path, { domain: "" }, headers);
  const html = await r.text();
  if (r.status === 303) return `303 ${r.headers.get("location")}`;
  if (r.status < 400) return String(r.status);
  const message = (/<main[\s\S]*?<h1>[^<]*<\/h1>\s*<p>([^<]*)<\/p>/.exec(html)?.[1] ?? "").replaceAll("&#39;", "'");
  // a page drawn past the guard with an error status (the route's own answer) has no error message
  const shown = message === "" ? `${r.status} page` : `${r.status} ${message}`;
  return shown.startsWith(expected) ? expected : shown;
}

describe("the page guard: who gets which dashboard page", () => {
  const name =
    "every page by viewer: signed out → 303 /login?next=; no or pending organization → 403; wrong role → 404; right role → the page";
  test(name, async () => {
    const got: string[] = [];
    const want: string[] = [];
    for (const row of ROWS) {
      const method = row.method ?? "GET";
      const path = row.path();
      const expected = row.expect(path);
      for (const actor of ACTORS) {
        want.push(`${method} ${path} as ${actor} → ${expected[actor]}`);
        got.push(`${method} ${path} as ${actor} → ${await answer(actors[actor], method, path, expected[actor])}`);
      }
    }
    expect(got).toEqual(want);
  });

  test("a page's form sent from another site by a signed-in person → 403 csrf_rejected before the role is looked at", async () => {
    for (const path of [`/org/expertises/${expertiseId}`, "/org/expertises/import", "/org/sso/test", "/org/sso/verify"]) {
      for (const actor of ["member", "owner"] as const) {
        const r = await actors[actor].call("POST", path, { domain: "" }, { accept: "text/html", "sec-fetch-site": "cross-site" });
        const html = await r.text();
        const refused = html.includes("This form was sent from another site");
        expect(`${path} as ${actor} → ${r.status} ${refused}`).toBe(`${path} as ${actor} → 403 true`);
      }
    }
  });
});
