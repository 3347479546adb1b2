/**
 * Support for the MCP and OAuth tests: a listening server whose BASE_URL is its own
 * origin, the real SDK client over Streamable HTTP, an in-memory OAuth client provider, and a
 * small browser (cookie jar, manual redirects, form posts with Origin) for sign-in and consent.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { testEnv, type TestEnv } from "./helpers";

/** A free TCP port on the loopback interface. */
export function freePort(): number {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

export interface LiveEnv {
  env: TestEnv;
  /** The origin the server listens on (http://127.0.0.1:<port>). */
  base: string;
  close(): Promise<void>;
}

/**
 * The app listening on 127.0.0.1 with BASE_URL set to that origin (Origin and resource checks
 * need it). `host` names the origin differently (e.g. a name a browser maps to 127.0.0.1);
 * `baseUrlOf` sets another BASE_URL than the origin (`base` stays the origin used).
 */
export async function liveEnv(
  extra: Record<string, string> = {},
  opts: { host?: string; baseUrlOf?: (port: number) => string } = {},
): Promise<LiveEnv> {
  for (let attempt = 0; ; attempt++) {
    const port = freePort();
    const base = `http://${opts.host ?? "127.0.0.1"}:${port}`;
    const env = await testEnv({ BASE_URL: opts.baseUrlOf?.(port) ?? base, ACCESS_LOG: "false", ...extra });
    try {
      env.app.listen({ port, hostname: "127.0.0.1" });
    } catch (e) {
      env.close();
      if (attempt < 3) continue;
      throw e;
    }
    return {
      env,
      base,
      close: async () => {
        await env.app.stop(true);
        env.close();
      },
    };
  }
}

export const CLIENT_INFO = { name: "test-agent", version: "1.2.3" };

/** The SDK client over Streamable HTTP with a static bearer (a project key, or a token). */
export async function connectWithBearer(url: string, bearer: string, clientInfo = CLIENT_INFO): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } });
  const client = new Client(clientInfo);
  await client.connect(transport);
  return client;
}

/** The first text content of a tool result, parsed as JSON. */
export function toolJson(result: unknown): any {
  const r = result as { content?: { type: string; text?: string }[] };
  const text = r.content?.find((c) => c.type === "text")?.text;
  if (text === undefined) throw new Error(`no text content in ${JSON.stringify(result)}`);
  return JSON.parse(text);
}

/** An OAuthClientProvider that keeps everything in memory and records the authorization URL. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier: string | undefined;
  authorizationUrl: URL | undefined;
  discovery: OAuthDiscoveryState | undefined;
  lastState = "";

  constructor(
    readonly redirect = "http://127.0.0.1:53682/callback",
    readonly name = "Test Agent",
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state(): string {
    this.lastState = `st-${crypto.randomUUID()}`;
    return this.lastState;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    if (!this.verifier) throw new Error("no code verifier");
    return this.verifier;
  }
  saveDiscoveryState(s: OAuthDiscoveryState): void {
    this.discovery = s;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") this.info = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&#x27;": "'" };
const unescape = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (m) => ENTITIES[m] ?? m);

/** The fields a browser would submit from the first form of a page: hidden inputs, ticked boxes, selects' first option. */
export function formFields(html: string): { fields: Record<string, string>; checkboxes: string[] } {
  const fields: Record<string, string> = {};
  const checkboxes: string[] = [];
  for (const m of html.matchAll(/<input\b([^>]*)>/g)) {
    const attr = (n: string) => {
      const a = new RegExp(`\\b${n}="([^"]*)"`).exec(m[1]!);
      return a ? unescape(a[1]!) : undefined;
    };
    const name = attr("name");
    if (!name) continue;
    const type = attr("type") ?? "text";
    if (type === "checkbox") {
      checkboxes.push(name);
      if (/\bchecked\b/.test(m[1]!)) fields[name] = attr("value") ?? "on";
    } else if (type === "hidden") {
      fields[name] = attr("value") ?? "";
    }
  }
  for (const m of html.matchAll(/<select\b[^>]*name="([^"]*)"[^>]*>\s*<option\b[^>]*value="([^"]*)"/g)) fields[m[1]!] = unescape(m[2]!);
  return { fields, checkboxes };
}

/** A browser against one origin: a cookie jar, redirects left to the caller, form posts with Origin. */
export class Browser {
  cookie: string | null = null;
  constructor(readonly base: string) {}

  async get(url: string): Promise<Response> {
    return this.#send(url, { method: "GET" });
  }

  async postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return this.#send(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(this.base).origin, ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  async #send(url: string, init: RequestInit): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set("cookie", this.cookie);
    const res = await fetch(new URL(url, this.base), { ...init, headers, redirect: "manual" });
    const set = res.headers.get("set-cookie");
    const m = set ? /((?:__Host-)?talentd_session)=([^;]*)/.exec(set) : null;
    if (m) this.cookie = m[2] ? `${m[1]}=${m[2]}` : null;
    return res;
  }
}

/**
 * Sign-in (when asked) and consent as a person in a browser: follows the authorization URL,
 * signs in on /login, posts the consent form (minus `untick`), and returns the redirect.
 */
export async function consentInBrowser(
  browser: Browser,
  authorizationUrl: string,
  who: { email: string; password: string },
  opts: { untick?: string[]; decision?: "allow" | "deny" } = {},
): Promise<{ location: URL; code: string | null }> {
  let r = await browser.get(authorizationUrl);
  if (r.status === 302 && new URL(r.headers.get("location")!, browser.base).pathname === "/login") {
    const login = new URL(r.headers.get("location")!, browser.base);
    const page = await browser.get(login.toString());
    if (page.status !== 200) throw new Error(`login page: ${page.status}`);
    const { fields } = formFields(await page.text());
    const signed = await browser.postForm("/login", { ...fields, email: who.email, password: who.password });
    if (signed.status !== 303) throw new Error(`sign-in: ${signed.status} ${await signed.text()}`);
    r = await browser.get(signed.headers.get("location")!);
  }
  if (r.status !== 200) throw new Error(`consent page: ${r.status} ${r.headers.get("location") ?? (await r.text()).slice(0, 500)}`);
  const { fields } = formFields(await r.text());
  for (const s of opts.untick ?? []) delete fields[`scope_${s}`];
  const posted = await browser.postForm("/oauth/authorize", { ...fields, decision: opts.decision ?? "allow" });
  if (posted.status !== 302) throw new Error(`consent post: ${posted.status} ${(await posted.text()).slice(0, 500)}`);
  const location = new URL(posted.headers.get("location")!);
  return { location, code: location.searchParams.get("code") };
}

export const PASSWORD = "correct horse battery";
