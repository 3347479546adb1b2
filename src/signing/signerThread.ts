/**
 * The signing thread: signs prepare-task's resolution manifests off the request thread
 * (signer.ts signJsonOffThread). An Ed25519 signature over a manifest's ~6.6 KB signing input costs
 * ~62 µs of CPU, most of it SHA-512 over the input twice; on the request thread it was a fifth of
 * a prepare-task's work there (docs/performance.md "Signing"), here it costs that thread ~13 µs
 * (the message each way). Messages: a key (its id, protected header and private JWK) before the
 * first request signed with it; a request (id, the key's id, the payload's JSON text), answered with
 * the compact JWS or an error. Keys and requests arrive in order, so a request names a key already here.
 */
import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import { keptUnbounded } from "../lib/kept";
import { b64url } from "./jws";

/** Messages to the signing thread. */
export type ToSigner =
  | { type: "key"; kid: string; header: string; x: string; d: string }
  | { type: "sign"; id: number; kid: string; payload: string };
/** Its answers: the compact JWS, or why it could not sign. */
export type FromSigner = { id: number; jws: string } | { id: number; error: string };

declare const self: Worker;
const keys = keptUnbounded<string, { header: string; key: KeyObject }>("The signing thread's keys", {
  clock: "none",
  bound: "one per key the service signed with since it started (a rotation adds one)",
});

self.onmessage = (e: MessageEvent<ToSigner>) => {
  const m = e.data;
  if (m.type === "key") {
    keys.set(m.kid, { header: m.header, key: createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", x: m.x, d: m.d }, format: "jwk" }) });
    return;
  }
  const k = keys.get(m.kid);
  if (!k) return postMessage({ id: m.id, error: `no key ${m.kid} in the signing thread` } satisfies FromSigner);
  try {
    const input = `${k.header}.${b64url(m.payload)}`;
    postMessage({ id: m.id, jws: `${input}.${sign(null, Buffer.from(input), k.key).toString("base64url")}` } satisfies FromSigner);
  } catch (error) {
    postMessage({ id: m.id, error: String(error) } satisfies FromSigner);
  }
};
