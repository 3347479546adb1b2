/**
 * What a signed manifest says about the fields of an answer beyond its items (docs/design.md
 * "What a signature proves"): each acted-on field as the digest of its canonical JSON, so the
 * signing input grows by a few digests, never by the texts themselves. The service writes these
 * claims when it signs; `talentd verify` computes them again from a saved answer and names the
 * field whose digest differs. Only lib/crypto is used: the client's entry point stays small.
 */
import { sha256Hex } from "../lib/crypto";

/** Every key of every object in `value`, once each. */
function keysIn(value: unknown, into: Set<string>): Set<string> {
  if (value === null || typeof value !== "object") return into;
  if (Array.isArray(value)) for (const v of value) keysIn(v, into);
  else
    for (const k in value as Record<string, unknown>) {
      into.add(k);
      keysIn((value as Record<string, unknown>)[k], into);
    }
  return into;
}

/**
 * JSON with every object's keys sorted (arrays keep their order): the same text whatever order a
 * file wrote them in. JSON.stringify with the sorted keys as its replacer list writes each object's
 * keys in that list's order (ten times faster than writing the text by hand).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  return JSON.stringify(value, [...keysIn(value, new Set())].sort());
}

/** The claim of one field: the sha256 of its canonical JSON, base64url (43 characters). */
export function fieldDigest(value: unknown): string {
  return Bun.SHA256.hash(canonicalJson(value), "base64url") as string;
}

/**
 * The prepare-task answer's fields the claims cover, besides the items (each served talent's id,
 * kind, version, digest and compact text are proven by the items themselves): what the agent is
 * told to designate, avoid and do next, and the cut at the context budget (its three fields come
 * and go together: one claim). Claim name → the answer's fields it covers.
 */
export const ANSWER_CLAIMS = {
  prerequisites: ["prerequisites"],
  conflicts: ["conflicts"],
  next: ["next"],
  budget: ["contextBudget", "notServed", "overBudget"],
} as const;

/** The answer's fields a claim covers, each a top-level field of the answer. */
export type AnswerClaim = keyof typeof ANSWER_CLAIMS;

/**
 * The digest of a claim's fields of `answer`, or undefined when the answer has none of them: a
 * claim of one field is that field's digest; of several, the digest of each present field's
 * digest by name. `known`: digests already taken, by field name (the service keeps those every
 * answer of a designation shares).
 */
export function answerClaim(
  answer: Record<string, unknown>,
  claim: AnswerClaim,
  known: Readonly<Record<string, string>> = {},
): string | undefined {
  const fields: readonly string[] = ANSWER_CLAIMS[claim];
  if (fields.every((f) => answer[f] === undefined)) return undefined;
  const digest = (f: string) => known[f] ?? fieldDigest(answer[f]);
  if (fields.length === 1) return digest(fields[0]!);
  const parts: Record<string, string> = {};
  for (const f of fields) if (answer[f] !== undefined) parts[f] = digest(f);
  return fieldDigest(parts);
}

/** A rule of an obligation as the playbook serves it: what `rulesClaim` and `detectorsClaim` read. */
export interface ClaimedRule {
  id: string;
  severity: string;
  title: string;
  detect?: unknown;
}

/** An obligation of the playbook (one per item, in served order) as the claims read it. */
export interface ClaimedObligation {
  id: string;
  title: string;
  rules: readonly ClaimedRule[];
}

/** The claim over every obligation's title and rules (id, severity, title), in served order. */
export function rulesClaim(obligations: readonly ClaimedObligation[]): string {
  return fieldDigest(obligations.map((o) => [o.id, o.title, o.rules.map((r) => [r.id, r.severity, r.title])]));
}

/** The claim over every rule's detectors as served (`include=detectors`: patterns, files, severity), null for a rule without. */
export function detectorsClaim(obligations: readonly ClaimedObligation[]): string {
  return fieldDigest(obligations.map((o) => [o.id, o.rules.map((r) => [r.id, r.detect ?? null])]));
}

/** A talent's detail as the playbook serves it (`talent=`): what `detailDigest` reads. */
export interface ClaimedDetail {
  title: unknown;
  summary: unknown;
  rules: unknown;
  tests: unknown;
}

/** The digest of one talent's detail: its title, summary, rules (with their check and detectors) and conformance tests. */
export function detailDigest(d: ClaimedDetail): string {
  return fieldDigest({ title: d.title, summary: d.summary, rules: d.rules, tests: d.tests });
}

/**
 * The claim over every item's detail: the digest of the list of their digests, in served order. A
 * playbook's detail answers that list beside it (`detailDigests`), so one talent's detail is proven
 * without the others': the list must give the claim, and the detail its own entry.
 */
export function detailsClaim(detailDigests: readonly string[]): string {
  return fieldDigest(detailDigests);
}

/**
 * The claims of a resolution's manifest (`claims`): `tokens` and `language` in clear, a digest
 * per answer field present (ANSWER_FIELDS), and the playbook's `rules` and `detectors`.
 */
export interface ManifestClaims {
  tokens: number;
  language: string | null;
  fields: Partial<Record<AnswerClaim, string>>;
  rules: string;
  detectors: string;
  /** detailsClaim over every item's detail. */
  details: string;
}

/**
 * The claims of a prepare-task answer's fields and of its obligations, as JSON text (what the
 * manifest signs). `known.digests`: digests already taken of answer fields, by name (those shared
 * by every answer of a designation, kept with it), so a call digests only its own fields.
 */
export function claimsJson(
  answer: Record<string, unknown>,
  known: { rules: string; detectors: string; details: string; digests: Readonly<Record<string, string>> },
): string {
  const fields: Partial<Record<AnswerClaim, string>> = {};
  for (const c of Object.keys(ANSWER_CLAIMS) as AnswerClaim[]) {
    const digest = answerClaim(answer, c, known.digests);
    if (digest !== undefined) fields[c] = digest;
  }
  const claims: ManifestClaims = {
    tokens: answer.tokens as number,
    language: (answer.language as string | null | undefined) ?? null,
    fields,
    rules: known.rules,
    detectors: known.detectors,
    details: known.details,
  };
  return JSON.stringify(claims);
}

/** A report's verdicts as recorded, in the canonical order the receipt's `resultsDigest` is taken over (hex, as stored). */
export function resultsDigestOf(
  resolutionId: string,
  results: readonly { id: string; verdict: string; evidence?: readonly string[]; missing?: readonly string[]; note?: string | null }[],
): string {
  const canonical = [...results]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((r) => [r.id, r.verdict, r.evidence ?? [], r.missing ?? [], r.note ?? null]);
  return sha256Hex(JSON.stringify([resolutionId, canonical]));
}
