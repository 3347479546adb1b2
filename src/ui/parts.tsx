/** @jsxImportSource hono/jsx */
/** Pieces the organization views and the administrators' views share. */
import { utcMinute } from "../lib/time";

/** A time to the minute, UTC, or a dash. */
export const when = (ms: number | null | undefined): string => (ms == null ? "—" : utcMinute(ms));

/** One line saying what the last change did (announced to screen readers). */
export function Notice(props: { text?: string }) {
  return props.text ? (
    <p class="notice" role="status">
      {props.text}
    </p>
  ) : null;
}
