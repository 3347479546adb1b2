/** Timestamps as they leave the service: ISO 8601 strings from stored milliseconds. */

/** ISO 8601 of a stored time in ms. */
export function iso(ms: number): string;
/** ISO 8601 of a stored time in ms, or null for a time that is not set. */
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}
