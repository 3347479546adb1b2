/**
 * The lock file (`.talentd/lock.json`): the project's selection as the server reports it
 * (GET /api/doctor?include=selection), with versions and content digests, in a stable order so
 * that locking an unchanged project rewrites the same bytes.
 */

export interface LockEntry {
  id: string;
  kind: string;
  state: string;
  version: string | null;
  digest: string | null;
}

export interface LockFile {
  lockfileVersion: 1;
  project: string;
  talents: LockEntry[];
  /**
   * The instance's public signing keys when the lock was written (GET /.well-known/jwks.json), so
   * `talentd verify` checks saved resolutions and receipts offline; `ci verify` fails when they differ from the server's.
   */
  signingKeys?: SigningJwks;
}

import type { SigningJwks } from "../signing/jws";

export const LOCK_PATH = ".talentd/lock.json";

/** The lock of a doctor answer with `include=selection`. */
export function lockOf(doctor: { projectId: string; talents: LockEntry[] }, signingKeys?: SigningJwks): LockFile {
  const talents = doctor.talents
    .map((t) => ({ id: t.id, kind: t.kind, state: t.state, version: t.version, digest: t.digest }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const keys = signingKeys?.keys.length ? { signingKeys: { keys: [...signingKeys.keys].sort((a, b) => a.nbf - b.nbf) } } : {};
  return { lockfileVersion: 1, project: doctor.projectId, talents, ...keys };
}

export function renderLock(lock: LockFile): string {
  return JSON.stringify(lock, null, 2) + "\n";
}

/** Reads a lock file's text; a problem line when it is not one. */
export function parseLock(text: string): LockFile | { problem: string } {
  let v: any;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { problem: `is not valid JSON (${(e as Error).message})` };
  }
  if (!v || v.lockfileVersion !== 1 || typeof v.project !== "string" || !Array.isArray(v.talents)) {
    return { problem: "is not a talentd lock file (lockfileVersion 1, project, talents)" };
  }
  for (const t of v.talents) {
    if (!t || typeof t.id !== "string") return { problem: "has a talent entry without an id" };
  }
  return v as LockFile;
}

/** Every difference between the lock and the server's selection, one sentence each, sorted by talent. */
export function compareLock(lock: LockFile, server: LockFile): string[] {
  const out: string[] = [];
  if (lock.project !== server.project) {
    out.push(`the lock is for project ${lock.project}, the key's project is ${server.project}`);
    return out;
  }
  const locked = new Map(lock.talents.map((t) => [t.id, t]));
  const current = new Map(server.talents.map((t) => [t.id, t]));
  const ids = [...new Set([...locked.keys(), ...current.keys()])].sort();
  for (const id of ids) {
    const a = locked.get(id);
    const b = current.get(id);
    if (!a) out.push(`${id}: installed in the project (${b!.state}, ${b!.version ?? "unservable"}) but not in the lock`);
    else if (!b) out.push(`${id}: in the lock (${a.version ?? "unservable"}) but no longer installed in the project`);
    else {
      if (a.state !== b.state) out.push(`${id}: ${a.state} in the lock, ${b.state} in the project`);
      if (a.version !== b.version)
        out.push(`${id}: version ${a.version ?? "none"} in the lock, ${b.version ?? "none (unservable)"} on the server`);
      else if (a.digest !== b.digest)
        out.push(`${id}: content changed at version ${b.version} (lock ${short(a.digest)}, server ${short(b.digest)})`);
    }
  }
  return out;
}

const short = (d: string | null): string => (d ? d.slice(0, "sha256:".length + 12) : "none");

/**
 * Every difference between the signing keys the lock recorded and the server's key set (GET
 * /.well-known/jwks.json), one sentence each: `talentd verify` trusts the lock's keys, so a key
 * written into the lock by hand (or a rotation the lock missed) fails CI instead of being trusted.
 */
export function compareKeys(locked: SigningJwks | undefined, server: SigningJwks | null): string[] {
  const published = server?.keys ?? [];
  if (!locked) return published.length > 0 ? [`no signing keys recorded, the server publishes ${published.length}: run talentd lock`] : [];
  const mine = new Map((Array.isArray(locked.keys) ? locked.keys : []).map((k) => [String(k?.kid), k]));
  const theirs = new Map(published.map((k) => [k.kid, k]));
  const out: string[] = [];
  for (const [kid, k] of mine) {
    const s = theirs.get(kid);
    if (!s) out.push(`signing key ${kid} is in the lock but not in the server's key set`);
    else {
      const fields = (["kty", "crv", "x", "alg", "use", "nbf", "exp"] as const).filter((f) => k[f] !== s[f]);
      if (fields.length > 0) out.push(`signing key ${kid}: ${fields.join(", ")} differ from the server's key set`);
    }
  }
  for (const kid of theirs.keys()) if (!mine.has(kid)) out.push(`the server's signing key ${kid} is not in the lock: run talentd lock`);
  return out;
}
