/**
 * The cap on requests in progress per client address (MAX_CONNECTIONS_PER_ADDRESS, 429
 * too_many_connections). No address can pass the cap while at most `max` requests are in
 * progress in all, so until then requests are only counted and no address is looked up (a
 * socket lookup costs ~2–3 µs, a tenth of `/healthz`). Past that, every request in progress is
 * attributed to its address (looked up once, client.ts) and counted there until it ends.
 *
 * The requests not yet attributed are held through WeakRefs: a Set holding their metas (and so
 * each Request) strongly made every garbage collection of the server run two more marking rounds
 * and more full collections (`BUN_JSC_logGC=1` under wrk on `/healthz`), about a fifth of the
 * edge's per-request CPU (docs/performance.md "The edge's per-request cost").
 */
import { AppError, errorResponse } from "./errors";
import { addressOf } from "./client";
import type { RequestMeta } from "./requestMeta";

export interface ConnectionCap {
  /** Counts the request in, or answers 429 too_many_connections (the connection closes). */
  enter(m: RequestMeta): Response | undefined;
  /** Counts it out once its answer is sent (or the client went away); twice is once. */
  leave(m: RequestMeta | undefined): void;
}

/** A cap of `max` requests in progress per client address (the edge's, one per app). */
export function connectionCap(max: number): ConnectionCap {
  let total = 0;
  /** Requests in progress not yet attributed to an address (only while `total` ≤ max), held weakly. */
  const unattributed = new Set<WeakRef<RequestMeta>>();
  const perAddress = new Map<string, number>();
  const attribute = (m: RequestMeta): void => {
    const ip = addressOf(m);
    m.countedAs = ip;
    if (ip !== null) perAddress.set(ip, (perAddress.get(ip) ?? 0) + 1);
  };
  const release = (m: RequestMeta): void => {
    const ip = m.countedAs;
    m.countedAs = undefined;
    if (ip === undefined || ip === null) return;
    const n = (perAddress.get(ip) ?? 1) - 1;
    if (n > 0) perAddress.set(ip, n);
    else perAddress.delete(ip);
  };
  const leave = (m: RequestMeta | undefined): void => {
    if (!m?.inProgress) return;
    m.inProgress = false;
    total--;
    if (m.unattributed) unattributed.delete(m.unattributed);
    m.unattributed = undefined;
    release(m);
  };
  return {
    enter(m: RequestMeta): Response | undefined {
      m.inProgress = true;
      total++;
      if (total <= max) {
        m.unattributed = new WeakRef(m);
        unattributed.add(m.unattributed);
        return undefined;
      }
      for (const ref of unattributed) {
        const x = ref.deref();
        if (x) {
          x.unattributed = undefined;
          attribute(x);
        }
      }
      unattributed.clear();
      attribute(m);
      const ip = m.countedAs;
      if (ip === undefined || ip === null || (perAddress.get(ip) ?? 0) <= max) return undefined;
      leave(m);
      const message = `This address has ${max} requests in progress; retry when one has finished.`;
      const headers = { connection: "close", "retry-after": "1" };
      return errorResponse(new AppError("too_many_connections", message, { limit: max }, headers), m.id);
    },
    leave,
  };
}
