/**
 * GET /.well-known/jwks.json: the instance's public signing keys as a JWK Set (RFC 7517), each with
 * the window in which it signed (`nbf`, and `exp` once rotated out), for any JOSE library and for
 * `talentd lock` / `talentd verify`. Public, like the other well-known documents; an empty set
 * when signing is off.
 */
import { Elysia } from "elysia";
import type { Signer } from "./signer";

/** The key set route. */
export function jwksRoutes(signer: Signer) {
  return new Elysia().get("/.well-known/jwks.json", ({ set }) => {
    set.headers["content-type"] = "application/jwk-set+json";
    set.headers["cache-control"] = "public, max-age=300";
    return JSON.stringify(signer.jwks());
  });
}
