/**
 * What a database error means for the client, on SQLite and PostgreSQL alike: the edge
 * (http/edge.ts) turns these into their answers instead of a 500.
 */
/**
 * A UNIQUE constraint failure anywhere in an error's cause chain (drizzle wraps the driver's
 * error; a write job carries the driver's code). Routes check uniqueness first for a precise
 * message; this turns the race between two such checks into the 409 it is, not a 500.
 */
export function isUniqueViolation(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (String(e.code ?? "").startsWith("SQLITE_CONSTRAINT") && String(e.message ?? "").includes("UNIQUE constraint failed")) return true;
    if (String((e as { errno?: unknown }).errno ?? "") === "23505") return true; // PostgreSQL's unique_violation
  }
  return false;
}

/**
 * PostgreSQL refuses a NUL character in text (SQLSTATE 22021, "invalid byte sequence for encoding
 * UTF8: 0x00"), which SQLite stores: a path or a field holding one (`/projects/%00`) can name
 * nothing stored there, so it is bad input (400), never a 500.
 */
export function isNulInText(error: unknown): boolean {
  for (let e = error as { errno?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++)
    if (String(e.errno ?? "") === "22021") return true;
  return false;
}
