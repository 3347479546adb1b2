/**
 * What a signed manifest says about the fields of an answer beyond its items (docs/design.md
 * "What a signature proves"): each acted-on field as the digest of its canonical JSON, so the
 * signing input grows by a few digests, never by the texts themselves. The service writes these
 * claims when it signs; `talentd verify` computes them again from a saved answer and names the
 * field whose digest differs. Only lib/crypto is used: the client's entry point stays small.
 */
import { sha256Hex } from "../lib/crypto";

/** JSON with every object's keys sorted (arrays keep their order): the same text whatever order a file wrote them in. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  const keys = Object.keys(value as object)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

/** The claim of one field: the sha256 of its canonical JSON, base64url (43 characters). */
export function fieldDigest(value: unknown): string {
  return Buffer.from(sha256Hex(canonicalJson(value)), "hex").toString("base64url");
}

/**
 * The prepare-task answer's fields a claim covers, besides the items (each served talent's id,
 * kind, version, digest and compact text are proven by the items themselves): what the agent
 * is told to designate, avoid and do next, and the split at the context budget.
 */
export const ANSWER_FIELDS = ["prerequisites", "conflicts", "next", "contextBudget", "notServed", "overBudget"] as const;

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

/**
 * The claims of a resolution's manifest (`claims`): `tokens` and `language` in clear, a digest
 * per answer field present (ANSWER_FIELDS), and the playbook's `rules` and `detectors`.
 */
export interface ManifestClaims {
  tokens: number;
  language: string | null;
  fields: Partial<Record<(typeof ANSWER_FIELDS)[number], string>>;
  rules: string;
  detectors: string;
}

/** The claims object of a prepare-task answer's fields and its obligations' claims, as JSON text (what the manifest signs). */
export function claimsJson(answer: Record<string, unknown>, obligations: { rules: string; detectors: string }): string {
  const fields: Record<string, string> = {};
  for (const f of ANSWER_FIELDS) if (answer[f] !== undefined) fields[f] = fieldDigest(answer[f]);
  const claims: ManifestClaims = {
    tokens: answer.tokens as number,
    language: (answer.language as string | null | undefined) ?? null,
    fields,
    rules: obligations.rules,
    detectors: obligations.detectors,
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
