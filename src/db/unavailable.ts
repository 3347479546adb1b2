/**
 * A database server that cannot be reached (docs/operations.md "Several replicas", "The database
 * lost while serving"): which errors say so. A request that needs the database then answers 503
 * `database_unavailable` with Retry-After (src/http/edge.ts) instead of a 500 and a stack per
 * request; the pool connects again on its own once the server is back, with no restart.
 */

/** Seconds a client is told to wait (Retry-After) while the database cannot be reached. */
export const DATABASE_RETRY_AFTER_S = 5;

/** Bun's SQL client's codes for a connection that could not be made, or was lost. */
const CLIENT_CODES: readonly string[] = [
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ERR_POSTGRES_LIFETIME_TIMEOUT",
];

/** The operating system's codes for the same (a libSQL server over the network, a DNS name gone). */
const SOCKET_CODES: readonly string[] = ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND"];

/**
 * PostgreSQL's SQLSTATEs of a server going away or not there yet: class 08 (connection exception),
 * 57P01–57P03 (shut down by an administrator, crashed, starting up) and 53300 (too many connections).
 */
function unreachableState(state: string): boolean {
  return state.startsWith("08") || state === "57P01" || state === "57P02" || state === "57P03" || state === "53300";
}

/** True when `error` (or one of its causes: drizzle wraps the driver's) says the database server cannot be reached. */
export function databaseUnreachable(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; errno?: unknown; cause?: unknown } | undefined, depth = 0;
    e && typeof e === "object" && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    const code = String(e.code ?? "");
    if (CLIENT_CODES.includes(code) || SOCKET_CODES.includes(code)) return true;
    // Bun reports a server's error with its SQLSTATE in errno (code ERR_POSTGRES_SERVER_ERROR)
    if (typeof e.errno === "string" && unreachableState(e.errno)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && unreachableState(code)) return true;
  }
  return false;
}
