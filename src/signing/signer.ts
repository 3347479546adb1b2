/**
 * The service's signer: signs resolution manifests and report receipts with the newest key of the
 * data folder (keys.ts) as compact JWS, synchronously (node:crypto), and publishes the key set. A rotation by
 * `talentd keys rotate` while the service runs is seen within KEY_FILE_CHECK_MS (the file's
 * modification time is looked at no more often). Off (SIGNING=false), it signs nothing.
 */
import { createPrivateKey, type KeyObject, sign as signBytes } from "node:crypto";
import { statSync } from "node:fs";
import { b64url, type SigningJwks } from "./jws";
import type { FromSigner, ToSigner } from "./signerThread";

/** The slice of deps that signs (createApp makes it from DATA_DIR and SIGNING). */
export interface SignerDeps {
  signer: Signer;
}
import { ensureSigningKeys, publicKeySet, readSigningKeys, type StoredSigningKey, signingKeyPath } from "./keys";

/** How often the key file's modification time is looked at (a rotation is seen within this). */
export const KEY_FILE_CHECK_MS = 5_000;

/** What a signature is made of: the key's id, its protected header (base64url) and its private key (imported once per key). */
interface ActiveKey {
  kid: string;
  header: string;
  key: KeyObject;
  /** The key as stored (public and private parts, base64url), for the signing thread. */
  x: string;
  d: string;
}

/** The signing thread's module: an entrypoint embedded beside main in the binary (build.ts), the source file otherwise. */
const SIGNER_THREAD = import.meta.url.includes("/$bunfs/")
  ? "./signing/signerThread.ts"
  : new URL("./signerThread.ts", import.meta.url).href;

/** A request sent to the signing thread, with its payload to sign here if the thread stops before it answers. */
interface Waiting {
  payload: string;
  resolve: (jws: string | null) => void;
  reject: (error: Error) => void;
}

/** Signs with the data folder's current key; see the file's comment. */
export class Signer {
  #keys: StoredSigningKey[] = [];
  #jwks: SigningJwks = { keys: [] };
  #active: ActiveKey | null = null;
  #mtime = 0;
  #checkedAt = 0;
  #thread: Worker | null = null;
  /** The keys the signing thread was sent. */
  #threadKids = new Set<string>();
  #waiting = new Map<number, Waiting>();
  #seq = 0;

  constructor(
    readonly dataDir: string,
    readonly enabled: boolean,
    /** How often the key file is looked at (KEY_FILE_CHECK_MS; tests pass 0). */
    readonly checkMs = KEY_FILE_CHECK_MS,
    /** The signing thread's module (tests point it at one that fails); default signerThread.ts. */
    readonly threadModule = SIGNER_THREAD,
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
          header: b64url(JSON.stringify({ alg: "EdDSA", kid: current.kid })),
          key: createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", x: current.x, d: current.d }, format: "jwk" }),
          x: current.x,
          d: current.d,
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

  /**
   * signJson on the signing thread (signerThread.ts): the same compact JWS (Ed25519 is deterministic), its ~62 µs of
   * CPU off the request thread, which pays ~13 µs for the messages. A request the thread cannot answer (it stopped, or
   * failed) is signed here instead.
   */
  signJsonOffThread(payloadJson: string): Promise<string | null> {
    if (!this.enabled) return Promise.resolve(null);
    this.#fresh();
    const active = this.#active;
    if (!active) return Promise.resolve(null);
    const thread = this.#threadWith(active);
    const id = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { payload: payloadJson, resolve, reject });
      thread.postMessage({ type: "sign", id, kid: active.kid, payload: payloadJson } satisfies ToSigner);
    });
  }

  /** The signing thread (started on first use, not keeping the process alive), sent `active` once. */
  #threadWith(active: ActiveKey): Worker {
    let thread = this.#thread;
    if (!thread) {
      const started = new Worker(this.threadModule);
      thread = started;
      this.#thread = thread;
      this.#threadKids.clear();
      started.addEventListener("message", (e: MessageEvent<FromSigner>) => this.#answer(e.data));
      started.addEventListener("error", () => this.#stopped(started));
      started.addEventListener("close", () => this.#stopped(started));
      (started as Worker & { unref(): void }).unref();
    }
    if (!this.#threadKids.has(active.kid)) {
      const { kid, header, x, d } = active;
      thread.postMessage({ type: "key", kid, header, x, d } satisfies ToSigner);
      this.#threadKids.add(kid);
    }
    return thread;
  }

  #answer(m: FromSigner): void {
    const w = this.#waiting.get(m.id);
    if (!w) return;
    this.#waiting.delete(m.id);
    if ("jws" in m) w.resolve(m.jws);
    else this.#signHere(w);
  }

  /** The thread stopped: what it had not answered is signed here; the next request starts another. */
  #stopped(thread: Worker): void {
    if (this.#thread !== thread) return;
    this.#thread = null;
    thread.terminate();
    const left = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const w of left) this.#signHere(w);
  }

  #signHere(w: Waiting): void {
    try {
      w.resolve(this.signJson(w.payload));
    } catch (error) {
      w.reject(error as Error);
    }
  }
}
