/**
 * The configuration epoch on PostgreSQL, kept in memory and shared by every replica on the
 * database (docs/design.md "Several replicas: what is shared"). Three sources move it, each
 * only forward:
 *
 * - a notification: every bump also runs `pg_notify('talentd_config_epoch', epoch)`
 *   (migrations-pg/0004_epoch_notify.sql), delivered at its commit to one LISTEN connection of
 *   each replica (a few milliseconds);
 * - a poll: the row read on the pool every POLL_MS, so a lost notification or a dropped LISTEN
 *   connection costs at most that long;
 * - this process's own commits: each write transaction reads the epoch last (its own bump
 *   included) and hands it here once committed, so a change is seen by the next request here
 *   whatever the notification's timing.
 *
 * A newer value starts a new map in every cache on the epoch (lib/kept.ts KeptByVersion), filled
 * by reads made after it was taken, so nothing read before a change is ever labelled after it.
 * A failed poll, or a write whose epoch is unknown (before the migration), leaves the clock
 * null until the next read: nothing is kept meanwhile.
 */
import { SQL } from "bun";

/** How often each replica reads the epoch's row (the bound when notifications are lost). */
export const EPOCH_POLL_MS = 500;
/** The channel the bump notifies (migrations-pg/0004_epoch_notify.sql). */
export const EPOCH_CHANNEL = "talentd_config_epoch";
const READ = "SELECT epoch FROM config_epoch WHERE id = 1";

export interface EpochClock {
  /** The epoch as last known, or null: nothing may be kept. */
  current(): number | null;
  /** Whether a read of the row has succeeded (the table exists: a write may read it). */
  readonly ready: boolean;
  /** After a commit of this process: the epoch its transaction read last, or null if it could not. */
  committed(seen: number | null): void;
  /** What moved it so far (tests, docs/performance.md): notifications taken, polls, and whether LISTEN is on. */
  stats(): { notified: number; polled: number; listening: boolean };
  close(): void;
}

/** Reads the epoch on `on` (a pool or a transaction). */
export async function readEpoch(on: Pick<SQL, "unsafe">): Promise<number | null> {
  const row = ((await on.unsafe(READ)) as { epoch: number | bigint }[])[0];
  return row ? Number(row.epoch) : null;
}

/** Starts the clock: the LISTEN connection (its own, outside the pool) and the poll on `pool`. */
export async function startEpochClock(url: string, pool: SQL, opts: { pollMs?: number; listen?: boolean } = {}): Promise<EpochClock> {
  let epoch: number | null = null;
  let highest = -1; // the newest epoch taken from any source
  let gen = 0; // moved by every invalidation: a poll begun before one is not taken
  let ready = false;
  let closed = false;
  const counts = { notified: 0, polled: 0, listening: false };
  const take = (v: number, begunAt?: number): void => {
    if (begunAt !== undefined && begunAt !== gen) return;
    if (v > highest || (v === highest && begunAt !== undefined)) {
      highest = v;
      epoch = v;
    }
  };
  const poll = async (): Promise<void> => {
    const begunAt = gen;
    try {
      const v = await readEpoch(pool);
      counts.polled++;
      ready = true;
      if (v === null) epoch = null;
      else take(v, begunAt);
    } catch {
      epoch = null; // not migrated yet, or the database is away: keep nothing
    }
  };
  let polling = false;
  const timer = setInterval(() => {
    if (polling || closed) return;
    polling = true;
    void poll().finally(() => {
      polling = false;
    });
  }, opts.pollMs ?? EPOCH_POLL_MS);
  timer.unref();
  // a client of its own (one connection): a LISTEN holds its connection, which a pool would hand out
  const listener = new SQL({ url, max: 1, idleTimeout: 0, connectionTimeout: 5 });
  try {
    if (opts.listen === false) throw new Error("no LISTEN asked"); // tests of the poll alone
    await listener.listen(EPOCH_CHANNEL, (payload: string) => {
      const v = Number(payload);
      if (!Number.isFinite(v)) return;
      counts.notified++;
      take(v);
    });
    counts.listening = true;
  } catch {
    counts.listening = false; // the poll alone keeps the promise (EPOCH_POLL_MS)
  }
  await poll();
  return {
    current: () => epoch,
    get ready() {
      return ready;
    },
    committed(seen) {
      if (seen === null) {
        gen++;
        epoch = null;
      } else take(seen);
    },
    stats: () => ({ ...counts }),
    close() {
      closed = true;
      clearInterval(timer);
      void listener.close().catch(() => {});
    },
  };
}
