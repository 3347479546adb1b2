/**
 * The opaque cursors of paginated lists, written and read in one place: `<kind>:<position>` in
 * base64url. `after` carries the last id (or key) of a page, `at` an offset into a fixed order.
 */

/** What a cursor's position is: the last key of a page, or an offset. */
export type CursorKind = "after" | "at";

/** The cursor of a position. */
export function encodeCursor(kind: CursorKind, position: string | number): string {
  return Buffer.from(`${kind}:${position}`).toString("base64url");
}

/** The position a cursor of `kind` carries, or null for anything else (the route answers 400 naming `cursor`). */
export function decodeCursor(kind: CursorKind, cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const raw = Buffer.from(cursor, "base64url").toString("utf8");
  return raw.startsWith(`${kind}:`) ? raw.slice(kind.length + 1) : null;
}
