/**
 * Which replica runs the background work (housekeeping, mail delivery) when several share one
 * PostgreSQL database (docs/design.md "Several replicas: what is shared"): the holder of a
 * session-level advisory lock, taken with `pg_try_advisory_lock` on one connection of its own,
 * held for the process's life. The others try again every RETRY_MS; when the holder dies its
 * connection drops, the server releases the lock, and the next try elsewhere takes it. The holder
 * checks every CHECK_MS that its connection still holds the lock (a dropped connection, or one
 * the server ended, no longer does), and stops its jobs at once if not. On SQLite (one process
 * per file) the process is always the leader.
 */
import { SQL } from "bun";

/** How often a replica that is not the leader tries to take the lock. */
export const LEADER_RETRY_MS = 3_000;
/** How often the leader checks that it still holds the lock. */
export const LEADER_CHECK_MS = 2_000;
/** The advisory lock key (any constant of this application, not the migrator's nor the key table's). */
export const LEADER_LOCK = 7_482_917_303;

export interface Leadership {
  /** Whether this process runs the background work now. */
  isLeader(): boolean;
  /** Calls `fn` on every change (and at once with the current state); returns a function that stops calling it. */
  onChange(fn: (leader: boolean) => void): () => void;
  /** Gives the lock up (shutdown): another replica takes it at its next try. */
  close(): Promise<void>;
}

/** The single process on SQLite: always the leader. */
export const alwaysLeader: Leadership = {
  isLeader: () => true,
  onChange(fn) {
    fn(true);
    return () => {};
  },
  close: async () => {},
};

// a bigint key is held as its high and low 32 bits (classid, objid) with objsubid 1
const HELD = `AND classid = ${Math.floor(LEADER_LOCK / 2 ** 32)} AND objid = ${LEADER_LOCK % 2 ** 32} AND objsubid = 1`;

type Reserved = Awaited<ReturnType<SQL["reserve"]>>;

/**
 * Competes for leadership on the PostgreSQL database at `url`; the first try is made before this
 * resolves, so a replica alone knows it leads when its jobs start.
 */
export async function pgLeadership(
  url: string,
  opts: { retryMs?: number; checkMs?: number; onError?: (e: unknown) => void } = {},
): Promise<Leadership> {
  const client = new SQL({ url, max: 1, idleTimeout: 0, connectionTimeout: 5 });
  let conn: Reserved | null = null;
  let leader = false;
  let closed = false;
  const listeners = new Set<(leader: boolean) => void>();
  const set = (now: boolean) => {
    if (now === leader) return;
    leader = now;
    for (const fn of listeners) fn(now);
  };
  const drop = () => {
    const c = conn;
    conn = null;
    try {
      c?.release();
    } catch {
      /* gone already */
    }
    set(false);
  };
  const tick = async (): Promise<void> => {
    try {
      if (!leader) {
        conn ??= await client.reserve();
        const [row] = (await conn.unsafe(`SELECT pg_try_advisory_lock(${LEADER_LOCK}) AS got`)) as { got: boolean }[];
        if (row?.got && !closed) set(true);
      } else {
        const [row] = (await conn!.unsafe(
          `SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() ${HELD} AND granted`,
        )) as { held: number }[];
        if (!row || Number(row.held) === 0) drop();
      }
    } catch (e) {
      opts.onError?.(e);
      drop(); // the connection is gone: so is the lock, if it was held
    }
  };
  let running = false;
  const step = () => {
    if (running || closed) return;
    running = true;
    void tick().finally(() => {
      running = false;
      if (!closed) timer = setTimeout(step, leader ? (opts.checkMs ?? LEADER_CHECK_MS) : (opts.retryMs ?? LEADER_RETRY_MS));
      timer?.unref?.();
    });
  };
  let timer: ReturnType<typeof setTimeout> | null = null;
  running = true;
  await tick();
  running = false;
  timer = setTimeout(step, leader ? (opts.checkMs ?? LEADER_CHECK_MS) : (opts.retryMs ?? LEADER_RETRY_MS));
  timer.unref?.();
  return {
    isLeader: () => leader,
    onChange(fn) {
      listeners.add(fn);
      fn(leader);
      return () => listeners.delete(fn);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (leader) await conn?.unsafe(`SELECT pg_advisory_unlock(${LEADER_LOCK})`).catch(() => {});
      drop();
      await client.close().catch(() => {});
    },
  };
}
