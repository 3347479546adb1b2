/**
 * Prepare-task's 201 body as JSON text. Every answer of one designation serves the same talents
 * (ids, versions, digests and compact forms: ~20–30 KB for ten talents), so their JSON text is
 * kept by designation and number served, and an answer writes only its own fields (resolution
 * id, time, attestation, next steps) around it. Writing the talents each time — the compact forms
 * rendered again (validate.ts keeps none) and JSON.stringify over ~30 KB of fresh strings — was
 * ~100 µs of the request thread's ~350 per call (docs/performance.md "Key route and prepare-task ceilings").
 */
import type { ServableItem } from "../selection/sources";
import { kept } from "../lib/kept";
import { preparedFields, TALENT_FIELDS, type FieldTable } from "../catalog/fields";

/** How many characters of served talents' JSON are kept at most (LRU by total length). */
export const SERVED_JSON_CHARS = 2_000_000;

/**
 * The text is kept with the designation memo it was written for (prepare.ts): a memo is made
 * again when the project's active items change (an install, a new version, a catalog or
 * organization change), and an entry of an older memo is a miss.
 */
const servedJson = kept<string, { memo: object; text: string }>("Served talents of a designation as JSON text", {
  clock: "identity",
  limit: SERVED_JSON_CHARS,
  order: "used",
  weigh: (v) => v.text.length,
});

/**
 * The `talents` array of the answer as JSON text: the served items in the order designated;
 * `digests` false leaves each one's digest out (over MCP it goes to the result's `_meta`); a declared
 * field marked `prepare` (catalog/fields.ts) follows the compact form.
 */
export function servedTalentsJson(
  memo: object,
  designationId: string,
  served: readonly ServableItem[],
  digests = true,
  fields: FieldTable = TALENT_FIELDS,
): string {
  const key = `${designationId}\n${served.length}${digests ? "" : "\nno digests"}`;
  const hit = servedJson.get(key);
  if (hit && hit.memo === memo) return hit.text;
  const text = JSON.stringify(
    served.map((d) => ({
      id: d.id,
      kind: d.kind,
      version: d.version,
      ...(digests ? { digest: d.talent.compactDigest } : {}),
      uri: d.talent.uri,
      compact: d.talent.compact,
      ...preparedFields(d.talent, fields),
    })),
  );
  servedJson.delete(key);
  servedJson.set(key, { memo, text });
  return text;
}

/**
 * The answer's JSON text: `head`'s fields, then `"talents"` (text from servedTalentsJson), then
 * `tail`'s — the same text JSON.stringify gives the whole object with its fields in that order.
 */
export function answerJson(head: Record<string, unknown>, talentsJson: string, tail: Record<string, unknown>): string {
  return `${JSON.stringify(head).slice(0, -1)},"talents":${talentsJson},${JSON.stringify(tail).slice(1)}`;
}

/**
 * How many designated talents a prepare-task serves within the context budget: compact forms in the order designated
 * while their tokens fit, the first always (a budget below one talent still serves it); the rest are listed, not served.
 */
export function servedWithin(designated: readonly ServableItem[], budget: number): { count: number; tokens: number } {
  let count = 0;
  let tokens = 0;
  for (const d of designated) {
    if (count > 0 && tokens + d.talent.tokens > budget) break;
    tokens += d.talent.tokens;
    count++;
  }
  return { count, tokens };
}

/** The designated talents past the budget, by id and summary, each with where to read it. */
export function notServedOf(rest: readonly ServableItem[]) {
  return rest.map((d) => ({
    id: d.id,
    kind: d.kind,
    version: d.version,
    uri: d.talent.uri,
    summary: d.talent.summary,
    tokens: d.talent.tokens,
  }));
}
