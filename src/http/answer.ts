/**
 * Answers given after a durable write: in a later event-loop turn than their request, once the
 * writer thread has committed (src/db/writerThread.ts).
 *
 * Bun (1.4.4) writes a plain body of more than ~15 KB given a turn late 4–5× slower than the
 * same body given in the request's own turn: Bun.serve alone, 18,615 bytes, 51k req/s in the
 * same turn, 11k a turn later. A "direct" stream that writes the same text in pieces at once is
 * not taken down that path: ~36k req/s a turn later (docs/performance.md, "Large answers after a
 * commit"). So a large late answer leaves as a direct stream of PIECE-sized writes, which HTTP/1.1
 * sends with chunked transfer encoding (HTTP/1.0: the body ends with the connection); a small
 * one, and any answer given in its request's turn, as a plain body (a direct stream costs more
 * there: 39k against 51k).
 */
const LARGE = 15_000;
const PIECE = 8_192;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Text answered after a commit, as a plain body up to LARGE characters, above as a direct stream. */
export function lateAnswer(text: string, status: number, headers: Record<string, string>): Response {
  if (text.length <= LARGE) return new Response(text, { status, headers });
  const source = {
    type: "direct",
    pull(out: { write(chunk: string): unknown; end(): unknown }) {
      // pieces of text, not bytes: encoding the text here cost more than the late path saved
      // (26k against 38k req/s); a piece never ends inside a surrogate pair (each piece is
      // encoded on its own, and half a pair would be sent as U+FFFD)
      for (let i = 0; i < text.length; ) {
        let end = Math.min(i + PIECE, text.length);
        if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
        out.write(text.slice(i, end));
        i = end;
      }
      return out.end();
    },
  };
  return new Response(new ReadableStream(source as unknown as UnderlyingDefaultSource), { status, headers });
}

/** A JSON value answered after a commit (lateAnswer): the bytes Elysia would send, as application/json. */
export function lateJson(value: unknown, status: number): Response {
  return lateAnswer(JSON.stringify(value), status, { "content-type": "application/json" });
}
