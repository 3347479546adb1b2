/**
 * The service's signer: signs resolution manifests and report receipts with the newest key of the
 * data folder (keys.ts) as compact JWS, synchronously (node:crypto), and publishes the key set. A rotation by
 * `talentd keys rotate` while the service runs is seen within KEY_FILE_CHECK_MS (the file's
 * modification time is looked at no more often). On PostgreSQL the keys come from the database
 * (keyStore.ts): loaded before the first request is served (`ready`), read again in the
 * background every KEY_FILE_CHECK_MS, so a rotation is seen by every replica within that.
 * Off (SIGNING=false), it signs nothing.
 */
import { createPrivateKey, type KeyObject, sign as signBytes } from "node:crypto";
import { statSync } from "node:fs";
import { b64url, type SigningJwks } from "./jws";

/** The slice of deps that signs (createApp makes it from DATA_DIR and SIGNING). */
export interface SignerDeps {
  signer: Signer;
}
import { ensureSigningKeys, publicKeySet, readSigningKeys, type StoredSigningKey, signingKeyPath } from "./keys";
import type { SigningKeyStore } from "./keyStore";

/** How often the key file's modification time is looked at (a rotation is seen within this). */
export const KEY_FILE_CHECK_MS = 5_000;

/** What a signature is made of: the key's id, its protected header (base64url) and its private key (imported once per key). */
interface ActiveKey {
  kid: string;
  header: string;
  key: KeyObject;
}

/** Signs with the data folder's current key; see the file's comment. */
export class Signer {
  #keys: StoredSigningKey[] = [];
  #jwks: SigningJwks = { keys: [] };
  #active: ActiveKey | null = null;
  #mtime = 0;
  #checkedAt = 0;
  #reading = false;
  /** Resolves once the keys are loaded (at once from the key file; after the first read from a store). */
  readonly ready: Promise<void>;
  /** Whether `ready` has resolved (a request need not wait). */
  loaded = false;

  constructor(
    readonly dataDir: string,
    readonly enabled: boolean,
    /** How often the key file (or the store) is looked at (KEY_FILE_CHECK_MS; tests pass 0). */
    readonly checkMs = KEY_FILE_CHECK_MS,
    /** The database's key table on PostgreSQL (keyStore.ts); absent: the key file of `dataDir`. */
    readonly store: SigningKeyStore | null = null,
  ) {
    if (enabled && store) this.ready = store.ensure().then((keys) => this.#load(keys));
    else {
      if (enabled) this.#load(ensureSigningKeys(dataDir));
      this.ready = Promise.resolve();
    }
    this.ready.then(
      () => {
        this.loaded = true;
      },
      () => {},
    );
  }

  #load(keys: StoredSigningKey[]): void {
    this.#checkedAt = Date.now();
    if (keys.length === 0) return; // a store read before any key was made: keep what is loaded
    this.#keys = keys;
    this.#jwks = publicKeySet(keys);
    const current = keys.findLast((k) => k.retiredAt === null) ?? null;
    this.#active = current
      ? {
          kid: current.kid,
          header: b64url(JSON.stringify({ alg: "EdDSA", kid: current.kid })),
          key: createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", x: current.x, d: current.d }, format: "jwk" }),
        }
      : null;
    if (this.store) return;
    try {
      this.#mtime = statSync(signingKeyPath(this.dataDir)).mtimeMs;
    } catch {
      this.#mtime = 0;
    }
  }

  /** Reloads the key file when it changed since it was read (at most every KEY_FILE_CHECK_MS). */
  #fresh(): void {
    const now = Date.now();
    if (now - this.#checkedAt < this.checkMs) return;
    this.#checkedAt = now;
    if (this.store) return this.#readStore();
    let mtime = 0;
    try {
      mtime = statSync(signingKeyPath(this.dataDir)).mtimeMs;
    } catch {
      return; // the file went away: keep signing with the key in memory
    }
    if (mtime !== this.#mtime) this.#load(readSigningKeys(this.dataDir) ?? this.#keys);
  }

  /** Reads the store again in the background; a failed read keeps the keys loaded (the next check tries again). */
  #readStore(): void {
    if (this.#reading || !this.store) return;
    this.#reading = true;
    this.store
      .read()
      .then(
        (keys) => {
          if (keys.map((k) => `${k.kid}:${k.retiredAt}`).join() !== this.#keys.map((k) => `${k.kid}:${k.retiredAt}`).join())
            this.#load(keys);
        },
        () => {},
      )
      .finally(() => {
        this.#reading = false;
      });
  }

  /** The published key set (empty when signing is off). */
  jwks(): SigningJwks {
    if (this.enabled) this.#fresh();
    return this.#jwks;
  }

  /** `payload` signed as a compact JWS (its `iat` set here), or null when signing is off. */
  sign(payload: Record<string, unknown>, now = Date.now()): string | null {
    return this.signJson(JSON.stringify({ ...payload, iat: Math.floor(now / 1000) }));
  }

  /**
   * A payload already written as JSON text (with its `iat`) signed as a compact JWS, or null when
   * signing is off: a caller that keeps parts of the text (prepare-task's items) builds it without
   * serializing them again.
   */
  signJson(payloadJson: string): string | null {
    if (!this.enabled) return null;
    this.#fresh();
    const active = this.#active;
    if (!active) return null;
    const input = `${active.header}.${b64url(payloadJson)}`; // jws.ts signingInput, its header written once per key
    // node:crypto's one-shot Ed25519 signature: ~17 µs, where Web Crypto's promise and thread hop cost ~30–40 µs of CPU
    return `${input}.${signBytes(null, Buffer.from(input), active.key).toString("base64url")}`;
  }
}
