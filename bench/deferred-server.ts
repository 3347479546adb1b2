/**
 * Bun.serve alone (no Elysia, no database), answering every request with the same body of SIZE
 * bytes, either in the request's own turn (WHEN=same) or a turn later (WHEN=later: the Response
 * given at setImmediate, as an answer after a commit on another thread is). bench/ceilings.ts
 * runs it to show the runtime's own cost of a large answer given a turn later (docs/performance.md).
 * WHEN=late-answer: a turn later, as src/http/answer.ts lateAnswer sends an answer after a commit.
 */
import { lateAnswer } from "../src/http/answer";
const size = Number(process.env.SIZE);
const body = JSON.stringify({ pad: "x".repeat(Math.max(0, size - 10)) }).slice(0, size);
const when = process.env.WHEN;
const later = when === "later" || when === "late-answer";
const answer = () =>
  when === "late-answer"
    ? lateAnswer(body, 200, { "content-type": "application/json" })
    : new Response(body, { headers: { "content-type": "application/json" } });
const server = Bun.serve({
  port: Number(process.env.PORT),
  hostname: "127.0.0.1",
  fetch: () => (later ? new Promise<Response>((resolve) => setImmediate(() => resolve(answer()))) : answer()),
});
console.log(`ready ${server.port}`);
