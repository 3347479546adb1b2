/**
 * The signing keys on PostgreSQL: the table `signing_keys` (docs/design.md "Several replicas:
 * what is shared"), so every replica on the database signs with the same key and publishes the
 * same key set, and a receipt signed by one verifies on another. The rows hold what the key file
 * holds (keys.ts): the JWK's private and public parts and the key's window. The first key is made
 * by whichever replica starts first, and a rotation retires the signing key and adds one, each in
 * a transaction under one advisory lock, so two replicas never both add a first key. On SQLite
 * the key file of DATA_DIR stays the only source (the table stays empty there).
 */
import type { Database } from "../db/database";
import type { PgDatabaseHandle } from "../db/pgClient";
import { newSigningKey, type StoredSigningKey } from "./keys";

/** Where a signer reads its keys when not from the key file. */
export interface SigningKeyStore {
  /** The keys, oldest first (within one second: the retired before the signing one), none yet: an empty list. */
  read(): Promise<StoredSigningKey[]>;
  /** The keys, the first one made when there is none. */
  ensure(now?: number): Promise<StoredSigningKey[]>;
  /** Retires the signing key and adds a new one (`talentd keys rotate`). */
  rotate(now?: number): Promise<{ retired: StoredSigningKey | null; current: StoredSigningKey }>;
}

/** The advisory lock key the key table's changes take (any constant of this application, not the migrator's). */
const SIGNING_KEYS_LOCK = 7_482_917_302;

const SELECT =
  'SELECT kid, x, d, created_at AS "createdAt", retired_at AS "retiredAt" FROM signing_keys ORDER BY created_at, retired_at IS NULL, kid';
const INSERT = "INSERT INTO signing_keys (kid, x, d, created_at, retired_at) VALUES ($1, $2, $3, $4, NULL) ON CONFLICT (kid) DO NOTHING";

type Rows = { kid: string; x: string; d: string; createdAt: number | bigint; retiredAt: number | bigint | null }[];
const keysOf = (rows: Rows): StoredSigningKey[] =>
  rows.map((r) => ({
    kid: r.kid,
    x: r.x,
    d: r.d,
    createdAt: Number(r.createdAt),
    retiredAt: r.retiredAt === null ? null : Number(r.retiredAt),
  }));

/** The key table of a PostgreSQL database; null for SQLite (the key file stays the source). */
export function databaseKeyStore(database: Database): SigningKeyStore | null {
  if (database.dialect !== "postgres") return null;
  const { sql } = database as PgDatabaseHandle;
  const locked = <T>(fn: (tx: Pick<PgDatabaseHandle["sql"], "unsafe">) => Promise<T>): Promise<T> =>
    sql.begin(async (tx) => {
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${SIGNING_KEYS_LOCK})`);
      return fn(tx);
    });
  return {
    read: async () => keysOf((await sql.unsafe(SELECT)) as Rows),
    ensure: (now = Date.now()) =>
      locked(async (tx) => {
        const keys = keysOf((await tx.unsafe(SELECT)) as Rows);
        if (keys.length > 0) return keys;
        const first = newSigningKey(now);
        await tx.unsafe(INSERT, [first.kid, first.x, first.d, first.createdAt]);
        return [first];
      }),
    rotate: (now = Date.now()) =>
      locked(async (tx) => {
        const keys = keysOf((await tx.unsafe(SELECT)) as Rows);
        const retired = keys.findLast((k) => k.retiredAt === null) ?? null;
        const current = newSigningKey(now);
        if (retired) {
          retired.retiredAt = Math.floor(now / 1000);
          await tx.unsafe("UPDATE signing_keys SET retired_at = $1 WHERE retired_at IS NULL", [retired.retiredAt]);
        }
        await tx.unsafe(INSERT, [current.kid, current.x, current.d, current.createdAt]);
        return { retired, current };
      }),
  };
}
