/** The SDK v2 OAuth client provider of the client ID metadata document tests (test/mcp/oauth.cimd*.test.ts). */
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import { Browser } from "./mcp-support";

/** An OAuth client provider of SDK v2 whose client_id is its metadata document's URL. */
export class MetadataDocumentProvider implements OAuthClientProvider {
  tokensSaved: { access_token: string; refresh_token?: string } | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  constructor(
    readonly redirect: string,
    readonly clientId: string,
    readonly clientMetadataUrl?: string,
  ) {
    if (!clientMetadataUrl) this.info = { client_id: clientId };
  }
  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata() {
    return { client_name: "CIMD Agent", redirect_uris: [this.redirect], token_endpoint_auth_method: "none" };
  }
  state(): string {
    return "st-journey";
  }
  // the SDK takes a clientMetadataUrl only over https: the loopback development id is handed over as the client's information
  info: { client_id: string; issuer?: string } | undefined;
  discovery: unknown;
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: { client_id: string; issuer?: string }): void {
    this.info = info;
  }
  saveDiscoveryState(d: unknown): void {
    this.discovery = d;
  }
  discoveryState() {
    return this.discovery as never;
  }
  tokens() {
    return this.tokensSaved as never;
  }
  saveTokens(t: never): void {
    this.tokensSaved = t;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** A browser signed in on `/login` as `who`: client metadata documents are fetched only for a signed-in person. */
export async function signedInBrowser(base: string, who: { email: string; password: string }): Promise<Browser> {
  const browser = new Browser(base);
  const page = await (await browser.get("/login")).text();
  const fields = Object.fromEntries([...page.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
  const r = await browser.postForm("/login", { ...fields, email: who.email, password: who.password });
  if (r.status !== 303) throw new Error(`sign-in failed: ${r.status}`);
  return browser;
}

/** The words every page refusing a fetched metadata document says, whatever went wrong. */
export const UNVERIFIED = "could not be verified: its client metadata document could not be used";
