/**
 * Compact JWS (RFC 7515) with Ed25519 (`alg: EdDSA`, RFC 8037), written and read without a
 * server: the service signs resolutions and receipts with it, and `talentd verify` checks them
 * offline. Only node:crypto is used, so the client's entry point stays small; any JOSE library
 * (jose, for one, in the tests) verifies what this writes.
 */
import { createHash, createPublicKey, verify as verifySignature } from "node:crypto";

/** An Ed25519 public key as a JWK (RFC 8037), with the window in which it signed (seconds, RFC 7519 NumericDate). */
export interface PublicSigningJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: "EdDSA";
  use: "sig";
  /** When the key began to sign. */
  nbf: number;
  /** When it stopped (rotated out); absent for the current key. */
  exp?: number;
}

/** A JWK Set (RFC 7517) of signing keys. */
export interface SigningJwks {
  keys: PublicSigningJwk[];
}

/** Base64url without padding (RFC 7515 section 2). */
export function b64url(data: Uint8Array | string): string {
  return (typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data.buffer, data.byteOffset, data.byteLength)).toString(
    "base64url",
  );
}

/** The RFC 7638 thumbprint of an Ed25519 public key: the key id the service gives it. */
export function thumbprint(x: string): string {
  return createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");
}

/** The protected header and signing input of a compact JWS over a payload given as JSON text (signed by the caller). */
export function signingInput(kid: string, payloadJson: string): string {
  return `${b64url(JSON.stringify({ alg: "EdDSA", kid }))}.${b64url(payloadJson)}`;
}

/**
 * A compact JWS without its payload (RFC 7515 appendix F, detached content): `<header>..<signature>`,
 * what the service stores when it can write the payload again from its own rows.
 */
export function detach(jws: string): string {
  const first = jws.indexOf(".");
  return `${jws.slice(0, first)}.${jws.slice(jws.lastIndexOf("."))}`;
}

/** A detached JWS (`detach`) made whole again with its payload, given as the JSON text that was signed. */
export function attach(detached: string, payloadJson: string): string {
  const first = detached.indexOf(".");
  return `${detached.slice(0, first)}.${b64url(payloadJson)}${detached.slice(first + 1)}`;
}

/** What a verification found: the payload and the key that signed it, or why it failed (one line). */
export type Verified = { ok: true; kid: string; payload: Record<string, unknown> } | { ok: false; reason: string };

/**
 * Verifies a compact JWS against a key set: the header's `alg` is EdDSA, its `kid` is in the set,
 * the signature holds, and the payload's `iat` lies within the key's window (a key rotated out
 * still verifies what it signed before it was retired, nothing after).
 */
export function verifyCompact(jws: string, jwks: SigningJwks): Verified {
  const parts = typeof jws === "string" ? jws.split(".") : [];
  if (parts.length !== 3) return { ok: false, reason: "not a compact JWS (three base64url parts)" };
  const [h, p, s] = parts as [string, string, string];
  let header: { alg?: unknown; kid?: unknown };
  let payload: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(h, "base64url").toString("utf8"));
    payload = JSON.parse(Buffer.from(p, "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "the JWS header or payload is not base64url JSON" };
  }
  if (header.alg !== "EdDSA") return { ok: false, reason: `unsupported alg ${String(header.alg)} (EdDSA expected)` };
  const key = jwks.keys.find((k) => k.kid === header.kid);
  if (!key) return { ok: false, reason: `unknown key ${String(header.kid)}: not in the key set` };
  const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: key.x }, format: "jwk" });
  if (!verifySignature(null, Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, "base64url")))
    return { ok: false, reason: `bad signature (key ${key.kid})` };
  const iat = typeof payload.iat === "number" ? payload.iat : NaN;
  if (!Number.isFinite(iat)) return { ok: false, reason: "the payload has no iat" };
  if (iat < key.nbf) return { ok: false, reason: `signed before key ${key.kid} existed` };
  if (key.exp !== undefined && iat > key.exp) return { ok: false, reason: `signed after key ${key.kid} was rotated out` };
  return { ok: true, kid: key.kid, payload };
}

/** The payload of a compact JWS, unverified (to read what a saved answer claims before checking it). */
export function payloadOf(jws: string): Record<string, unknown> | null {
  try {
    return JSON.parse(Buffer.from(jws.split(".")[1] ?? "", "base64url").toString("utf8"));
  } catch {
    return null;
  }
}
