/**
 * The query readers of every route that takes query parameters (and of JSON search bodies):
 * one set of rules and one 400 validation_failed answer, whatever the route. Elysia's
 * `t.Numeric` decoded dynamically on every request (about 58 µs of a key route's time under
 * load; docs/performance.md) and let `limit=1.5` through to SQL (a 500), so no
 * route uses it.
 */
import { validationFailed } from "./errors";

/** A query string, or a JSON body read with the same rules (null counts as absent). */
type Query = Record<string, unknown>;

/** The text of a parameter, or undefined when absent, null or empty; not a string (nor, for a number parameter, a number) → 400. */
function text(query: Query, name: string, numberAllowed = false): string | undefined {
  const v = query[name];
  if (v === undefined || v === null || v === "") return undefined;
  if (numberAllowed && typeof v === "number") return String(v);
  if (typeof v !== "string") throw validationFailed([{ path: name, message: numberAllowed ? "must be a number" : "must be a string" }]);
  return v;
}

/** An optional integer parameter within [min, max], or `fallback`. */
export function intParam(query: Query, name: string, min: number, max: number, fallback: number): number;
export function intParam(query: Query, name: string, min: number, max: number): number | undefined;
export function intParam(query: Query, name: string, min: number, max: number, fallback?: number): number | undefined {
  const raw = text(query, name, true);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || n < min || n > max)
    throw validationFailed([{ path: name, message: `must be a whole number from ${min} to ${max}` }]);
  return n;
}

/** An optional string parameter of at most `max` characters (`required`: 1..max). */
export function strParam(query: Query, name: string, max: number, required: true): string;
export function strParam(query: Query, name: string, max: number, required?: false): string | undefined;
export function strParam(query: Query, name: string, max: number, required = false): string | undefined {
  const v = text(query, name);
  if (v === undefined) {
    if (required) throw validationFailed([{ path: name, message: `${name} is required (1 to ${max} characters)` }]);
    return undefined;
  }
  if (v.length > max) throw validationFailed([{ path: name, message: `must be at most ${max} characters` }]);
  return v;
}

/** An optional parameter among `allowed`. */
export function oneOf<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const v = text(query, name);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v))
    throw validationFailed([{ path: name, message: `${name} must be one of ${allowed.join(", ")}` }]);
  return v as T;
}

/** An optional parameter that must match `pattern` (a cursor, an id), described as `what` in the 400. */
export function patternParam(query: Query, name: string, pattern: RegExp, what: string): string | undefined {
  const v = text(query, name);
  if (v === undefined) return undefined;
  if (v.length > 200 || !pattern.test(v)) throw validationFailed([{ path: name, message: `must be ${what}` }]);
  return v;
}

/** A percent-encoded path segment (Elysia leaves wildcard params encoded), decoded; a malformed escape → 400. */
export function decodedParam(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw validationFailed([{ path: name, message: "is not a valid percent-encoded path segment" }]);
  }
}

/** Throws the 400 of a cursor this route did not write (lib/cursor.ts). */
export function badCursor(): never {
  throw validationFailed([{ path: "cursor", message: "is not a cursor returned by this route" }]);
}
