/**
 * The service's signer: signs resolution manifests and report receipts with the newest key of the
 * data folder (keys.ts) as compact JWS, and publishes the key set. A rotation by
 * `talentd keys rotate` while the service runs is seen within KEY_FILE_CHECK_MS (the file's
 * modification time is looked at no more often). Off (SIGNING=false), it signs nothing.
 */
import { statSync } from "node:fs";
import { type SigningJwks, signingInput } from "./jws";

/** The slice of deps that signs (createApp makes it from DATA_DIR and SIGNING). */
export interface SignerDeps {
  signer: Signer;
}
import { ensureSigningKeys, publicKeySet, readSigningKeys, type StoredSigningKey, signingKeyPath } from "./keys";

/** How often the key file's modification time is looked at (a rotation is seen within this). */
export const KEY_FILE_CHECK_MS = 5_000;

/** What a signature is made of: the key's id and its WebCrypto private key (imported once per key). */
interface ActiveKey {
  kid: string;
  key: Promise<CryptoKey>;
}

/** Signs with the data folder's current key; see the file's comment. */
export class Signer {
  #keys: StoredSigningKey[] = [];
  #jwks: SigningJwks = { keys: [] };
  #active: ActiveKey | null = null;
  #mtime = 0;
  #checkedAt = 0;

  constructor(
    readonly dataDir: string,
    readonly enabled: boolean,
    /** How often the key file is looked at (KEY_FILE_CHECK_MS; tests pass 0). */
    readonly checkMs = KEY_FILE_CHECK_MS,
  ) {
    if (enabled) this.#load(ensureSigningKeys(dataDir));
  }

  #load(keys: StoredSigningKey[]): void {
    this.#keys = keys;
    this.#jwks = publicKeySet(keys);
    const current = keys.findLast((k) => k.retiredAt === null) ?? null;
    this.#active = current
      ? {
          kid: current.kid,
          key: crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: current.x, d: current.d }, { name: "Ed25519" }, false, [
            "sign",
          ]),
        }
      : null;
    try {
      this.#mtime = statSync(signingKeyPath(this.dataDir)).mtimeMs;
    } catch {
      this.#mtime = 0;
    }
    this.#checkedAt = Date.now();
  }

  /** Reloads the key file when it changed since it was read (at most every KEY_FILE_CHECK_MS). */
  #fresh(): void {
    const now = Date.now();
    if (now - this.#checkedAt < this.checkMs) return;
    this.#checkedAt = now;
    let mtime = 0;
    try {
      mtime = statSync(signingKeyPath(this.dataDir)).mtimeMs;
    } catch {
      return; // the file went away: keep signing with the key in memory
    }
    if (mtime !== this.#mtime) this.#load(readSigningKeys(this.dataDir) ?? this.#keys);
  }

  /** The published key set (empty when signing is off). */
  jwks(): SigningJwks {
    if (this.enabled) this.#fresh();
    return this.#jwks;
  }

  /** `payload` signed as a compact JWS (its `iat` set here), or null when signing is off. */
  sign(payload: Record<string, unknown>, now = Date.now()): Promise<string | null> {
    return this.signJson(JSON.stringify({ ...payload, iat: Math.floor(now / 1000) }));
  }

  /**
   * A payload already written as JSON text (with its `iat`) signed as a compact JWS, or null when
   * signing is off: a caller that keeps parts of the text (prepare-task's items) builds it without
   * serializing them again.
   */
  async signJson(payloadJson: string): Promise<string | null> {
    if (!this.enabled) return null;
    this.#fresh();
    const active = this.#active;
    if (!active) return null;
    const input = signingInput(active.kid, payloadJson);
    const signature = await crypto.subtle.sign("Ed25519", await active.key, new TextEncoder().encode(input));
    return `${input}.${Buffer.from(signature).toString("base64url")}`;
  }
}
