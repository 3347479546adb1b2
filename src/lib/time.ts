/** Timestamps as they leave the service: ISO 8601 strings from stored milliseconds. */

/** ISO 8601 of a stored time in ms. */
export function iso(ms: number): string;
/** ISO 8601 of a stored time in ms, or null for a time that is not set. */
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}

/** A time as ms or as the ISO 8601 text `iso` gave it. */
type TimeLike = number | string;
const isoText = (t: TimeLike): string => (typeof t === "number" ? new Date(t).toISOString() : t);

/** `2026-11-23`: the UTC day of a time. */
export function utcDay(t: TimeLike): string {
  return isoText(t).slice(0, 10);
}

/** `2026-11-23 00:30`: a time as pages and mails show it, to the minute, UTC. */
export function utcMinute(t: TimeLike): string {
  return isoText(t).slice(0, 16).replace("T", " ");
}

/** `2026-11-23 00:30:00`: the same to the second (logs of mails, security events). */
export function utcSecond(t: TimeLike): string {
  return isoText(t).slice(0, 19).replace("T", " ");
}

/** `20261123T003000123Z`: UTC, sortable, safe in a file name, unique to the millisecond (backups). */
export function fileStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, "");
}
