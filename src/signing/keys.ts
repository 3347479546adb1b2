/**
 * The instance's Ed25519 signing keys, in one file of the data folder (`signing-keys.json`, mode
 * 0600): created at the first start, rotated by `talentd keys rotate`. A rotated-out key stays in
 * the file and in the published key set with the window in which it signed, so what it signed
 * still verifies; only the newest key signs. On PostgreSQL the keys live in the database instead
 * (keyStore.ts), shared by every replica.
 */
import { generateKeyPairSync } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type PublicSigningJwk, type SigningJwks, thumbprint } from "./jws";

/** One key as the file holds it: the JWK's private and public parts, and its window (seconds). */
export interface StoredSigningKey {
  kid: string;
  x: string;
  d: string;
  createdAt: number;
  retiredAt: number | null;
}

/** The key file's name inside the data folder. */
export const SIGNING_KEY_FILE = "signing-keys.json";

/** The key file's path for a data folder. */
export function signingKeyPath(dataDir: string): string {
  return join(dataDir, SIGNING_KEY_FILE);
}

/** A new Ed25519 key, its id the RFC 7638 thumbprint. */
export function newSigningKey(now: number): StoredSigningKey {
  const jwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" }) as { x: string; d: string };
  return { kid: thumbprint(jwk.x), x: jwk.x, d: jwk.d, createdAt: Math.floor(now / 1000), retiredAt: null };
}

/** The keys of the file, oldest first; null when there is no file. Throws on a file that is not a key file. */
export function readSigningKeys(dataDir: string): StoredSigningKey[] | null {
  const file = signingKeyPath(dataDir);
  if (!existsSync(file)) return null;
  const v = JSON.parse(readFileSync(file, "utf8")) as { keys?: StoredSigningKey[] };
  if (!Array.isArray(v.keys) || v.keys.length === 0 || v.keys.some((k) => typeof k.x !== "string" || typeof k.d !== "string"))
    throw new Error(`${file} is not a talentd signing key file`);
  return v.keys;
}

/** Writes the keys whole (a temporary file renamed over the old one), readable by the owner only. */
function writeSigningKeys(dataDir: string, keys: StoredSigningKey[]): void {
  mkdirSync(dataDir, { recursive: true });
  const file = signingKeyPath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ keys }, null, 2) + "\n", { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** The keys of the data folder, the first one created when there is none yet. */
export function ensureSigningKeys(dataDir: string, now = Date.now()): StoredSigningKey[] {
  const keys = readSigningKeys(dataDir);
  if (keys) return keys;
  const first = [newSigningKey(now)];
  writeSigningKeys(dataDir, first);
  return first;
}

/** Retires the signing key and adds a new one; answers both (the old one keeps verifying what it signed). */
export function rotateSigningKeys(dataDir: string, now = Date.now()): { retired: StoredSigningKey | null; current: StoredSigningKey } {
  const keys = readSigningKeys(dataDir) ?? [];
  const at = Math.floor(now / 1000);
  const retired = keys.find((k) => k.retiredAt === null) ?? null;
  if (retired) retired.retiredAt = at;
  const current = newSigningKey(now);
  writeSigningKeys(dataDir, [...keys, current]);
  return { retired, current };
}

/** The public key set (RFC 7517): every key, with the window in which it signed. */
export function publicKeySet(keys: readonly StoredSigningKey[]): SigningJwks {
  return {
    keys: keys.map(
      (k): PublicSigningJwk => ({
        kty: "OKP",
        crv: "Ed25519",
        x: k.x,
        kid: k.kid,
        alg: "EdDSA",
        use: "sig",
        nbf: k.createdAt,
        ...(k.retiredAt !== null ? { exp: k.retiredAt } : {}),
      }),
    ),
  };
}
