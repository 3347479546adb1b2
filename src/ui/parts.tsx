/** @jsxImportSource hono/jsx */
/** Pieces the organization views and the administrators' views share. */
import { withoutBidi } from "../lib/controls";
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

/** One line saying what went wrong (announced at once); nothing without a text. */
export function Alert(props: { text?: string | null; id?: string }) {
  return props.text ? (
    <p class="error" role="alert" id={props.id}>
      {props.text}
    </p>
  ) : null;
}

/** Where a long value may wrap: after an `@` or a single `/`, before `.`, `?`, `#`, `&`, `=` or `_`. */
const BREAKS = /(?<=@|[^/]\/(?!\/))|(?=[.?#&=_])/;

/**
 * A long value (an e-mail, a URL, an id) that may wrap between its parts: a <wbr> at each point of
 * BREAKS, so a narrow column breaks `name@` / `example.com` rather than inside a word (the stylesheet
 * breaks anywhere only what still does not fit).
 */
export function Breakable(props: { text: string }) {
  const parts = props.text.split(BREAKS);
  if (parts.length < 2) return <>{props.text}</>;
  return (
    <>
      {parts.map((p, i) =>
        i === 0 ? (
          p
        ) : (
          <>
            <wbr />
            {p}
          </>
        ),
      )}
    </>
  );
}

/**
 * A name someone else chose (an OAuth client's), shown isolated: its bidi controls dropped and the
 * rest in a <bdi>, so neither its characters nor its direction reorder the sentence around it.
 */
export function Isolated(props: { text: string }) {
  return <bdi>{withoutBidi(props.text)}</bdi>;
}
