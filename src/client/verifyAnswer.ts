/**
 * What `talentd verify` proves of a saved answer once its signature holds: each field an agent or
 * a hook acts on is computed again from the answer and compared with what was signed (docs/api.md
 * "What verify refuses"). A field missing is a refusal, never a skip; each problem names the field
 * (and the talent) that differs.
 */
import { digestOf } from "../lib/crypto";
import { isObject } from "../lib/json";
import {
  ANSWER_CLAIMS,
  type AnswerClaim,
  answerClaim,
  detailDigest,
  detailsClaim,
  detectorsClaim,
  type ManifestClaims,
  resultsDigestOf,
  rulesClaim,
} from "../signing/claims";

type Json = Record<string, unknown>;

/** An item of a signed resolution manifest (resolution/attestation.ts). */
interface SignedItem {
  id: string;
  kind: string;
  version: string;
  digest: string;
}

const shown = (v: unknown): string => (v === undefined ? "nothing" : typeof v === "string" ? v : JSON.stringify(v));

/** `field` of `of` against the signed value: a problem when it is missing or different. */
function same(problems: string[], where: string, of: Json, field: string, signed: unknown): void {
  if (!(field in of) || of[field] === undefined) problems.push(`${where}${field} is missing (signed ${shown(signed)})`);
  else if (JSON.stringify(of[field]) !== JSON.stringify(signed))
    problems.push(`${where}${field} ${shown(of[field])}, signed ${shown(signed)}`);
}

/**
 * The fields each part of an answer may carry: anything else was added after it was signed (an
 * instruction slipped into a saved answer is refused, not ignored). `talentd prepare --json` adds
 * `designated` and `paths` (the client's own record of why each talent was designated).
 */
const FIELDS = {
  prepare: ["resolutionId", "language", "createdAt", "talents", "prerequisites", "conflicts", "tokens", "attestation"].concat([
    "contextBudget",
    "notServed",
    "overBudget",
    "next",
    "designated",
    "paths",
  ]),
  talent: ["id", "kind", "version", "digest", "uri", "compact"],
  playbook: ["resolutionId", "createdAt", "procedure", "obligations", "verdictsRequired", "requiredNotDesignated", "attestation"].concat([
    "detail",
    "detailDigests",
    // the project's hook rules, read live beside the pinned detectors: a setting, not part of what was served
    "hookRules",
    "hookRulesLocked",
  ]),
  obligation: ["id", "kind", "version", "digest", "title", "verdictRequired", "blocking", "rules"],
  rule: ["id", "severity", "title", "detect"],
  detail: ["id", "kind", "version", "digest", "title", "summary", "rules", "tests"],
  report: [
    "reportId",
    "submissionId",
    "resolutionId",
    "recordedAt",
    "verdicts",
    "expertiseVerdicts",
    "summary",
    "failing",
    "replayed",
  ].concat(["attestation", "expertiseResults"]),
};

/** The fields of `of` that `kind` does not carry, each a problem. */
function unsigned(problems: string[], where: string, of: Json, kind: keyof typeof FIELDS): void {
  for (const f of Object.keys(of)) if (!FIELDS[kind].includes(f)) problems.push(`${where}${f} is in the answer but not signed`);
}

/** The answer's list of entries against the signed items, by id and in order: missing, added, reordered. */
function sameIds(problems: string[], what: string, entries: unknown[], items: readonly SignedItem[]): void {
  const ids = entries.map((e) => (isObject(e) ? String(e.id) : "?"));
  const signed = items.map((i) => i.id);
  const missing = signed.filter((id) => !ids.includes(id));
  const added = ids.filter((id) => !signed.includes(id));
  for (const id of missing) problems.push(`${id} is signed but missing from the ${what}`);
  for (const id of added) problems.push(`${id} is in the ${what} but not in the signed resolution`);
  if (missing.length === 0 && added.length === 0 && ids.join("\n") !== signed.join("\n"))
    problems.push(`the ${what} are in another order than signed (${signed.join(", ")})`);
}

/** Each entry's id, kind, version and digest against its signed item. */
function sameItemFields(problems: string[], entries: unknown[], items: readonly SignedItem[], fields: (keyof SignedItem)[]): Json[] {
  const signed = new Map(items.map((i) => [i.id, i]));
  const out: Json[] = [];
  for (const e of entries) {
    if (!isObject(e)) {
      problems.push(`an entry is not an object: ${shown(e)}`);
      continue;
    }
    const s = signed.get(String(e.id));
    if (!s) continue; // named by sameIds
    for (const f of fields) same(problems, `${s.id}: `, e, f, s[f]);
    out.push(e);
  }
  return out;
}

/** A prepare-task answer against its manifest: every designated talent, each served text, and the claimed fields. */
export function prepareProblems(answer: Json, items: readonly SignedItem[], claims: ManifestClaims | undefined): string[] {
  const problems: string[] = [];
  if (!Array.isArray(answer.talents)) return ["talents is missing: the answer lists no talent"];
  const notServed = answer.notServed === undefined ? [] : answer.notServed;
  if (!Array.isArray(notServed)) return [`notServed is not a list: ${shown(notServed)}`];
  unsigned(problems, "", answer, "prepare");
  sameIds(problems, "talents (served and notServed)", [...answer.talents, ...notServed], items);
  for (const t of sameItemFields(problems, answer.talents, items, ["kind", "version", "digest"])) {
    unsigned(problems, `${t.id}: `, t, "talent");
    if (typeof t.compact !== "string") problems.push(`${t.id}: compact is missing (the served text)`);
    else if (typeof t.digest === "string" && digestOf(t.compact) !== t.digest)
      problems.push(`${t.id}: the served text differs from what was signed`);
    if (t.uri !== `talent://${t.id}`) problems.push(`${t.id}: uri ${shown(t.uri)}, expected talent://${t.id}`);
  }
  sameItemFields(problems, notServed, items, ["kind", "version"]);
  if (!claims) return problems;
  same(problems, "", answer, "tokens", claims.tokens);
  same(problems, "", answer, "language", claims.language);
  for (const c of Object.keys(ANSWER_CLAIMS) as AnswerClaim[]) {
    const signed = claims.fields?.[c];
    const fields: readonly string[] = ANSWER_CLAIMS[c];
    const named = fields.join(", ");
    const missing = fields.filter((f) => answer[f] === undefined);
    if (signed === undefined) {
      if (missing.length < fields.length) problems.push(`${named} ${fields.length > 1 ? "are" : "is"} in the answer but not signed`);
    } else if (missing.length > 0) problems.push(`${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} missing (signed)`);
    else if (answerClaim(answer, c) !== signed) problems.push(`${named} ${fields.length > 1 ? "are" : "is"} not what was signed`);
  }
  return problems;
}

/** A playbook against its manifest: every obligation, whether a verdict is required, each rule and its severity, the detectors. */
export function playbookProblems(answer: Json, items: readonly SignedItem[], claims: ManifestClaims | undefined): string[] {
  const problems: string[] = [];
  if (!Array.isArray(answer.obligations)) return ["obligations is missing: the playbook lists no obligation"];
  unsigned(problems, "", answer, "playbook");
  sameIds(problems, "obligations", answer.obligations, items);
  const kinds = new Map(items.map((i) => [i.id, i.kind]));
  const obligations = sameItemFields(problems, answer.obligations, items, ["kind", "version", "digest"]);
  for (const o of obligations) {
    same(problems, `${o.id}: `, o, "verdictRequired", kinds.get(String(o.id)) === "expertise");
    if (!Array.isArray(o.rules)) {
      problems.push(`${o.id}: rules is missing`);
      continue;
    }
    unsigned(problems, `${o.id}: `, o, "obligation");
    for (const r of o.rules as unknown[]) {
      if (!isObject(r)) {
        problems.push(`${o.id}: a rule is not an object`);
        continue;
      }
      for (const f of ["id", "severity", "title"])
        if (typeof r[f] !== "string") problems.push(`${o.id}: rule ${shown(r.id)}: ${f} is missing`);
      unsigned(problems, `${o.id}: rule ${shown(r.id)}: `, r, "rule");
    }
    const blocking = (o.rules as Json[]).filter((r) => isObject(r) && r.severity === "blocking").length;
    if (o.blocking !== blocking) problems.push(`${o.id}: blocking ${shown(o.blocking)}, but ${blocking} of its rules are blocking`);
    if (typeof o.title !== "string") problems.push(`${o.id}: title is missing`);
  }
  same(
    problems,
    "",
    answer,
    "verdictsRequired",
    items.filter((i) => i.kind === "expertise").map((i) => i.id),
  );
  if (problems.length > 0 || !claims) return problems;
  // each obligation was checked above: an id, a title and a list of rules
  const served = obligations.map((o) => ({ id: String(o.id), title: String(o.title), rules: o.rules as Json[] }));
  const asClaimed = served.map((o) => ({ id: o.id, title: o.title, rules: o.rules as never[] }));
  if (rulesClaim(asClaimed) !== claims.rules)
    problems.push("the obligations' rules differ from what was signed (a rule added or removed, or its severity or title changed)");
  const withDetectors = served.some((o) => o.rules.some((r) => "detect" in r));
  if (withDetectors && detectorsClaim(asClaimed) !== claims.detectors) problems.push("the rules' detectors differ from what was signed");
  if (isObject(answer.detail)) problems.push(...detailProblems(answer, answer.detail, served, withDetectors, claims.details));
  else if (answer.detail !== undefined) problems.push("detail is not an object");
  return problems;
}

/**
 * The detail of one talent against its (verified) obligation, and against the manifest's `details`
 * claim through the answer's `detailDigests` (every item's detail digest, in served order).
 */
function detailProblems(
  answer: Json,
  detail: Json,
  obligations: readonly { id: string; title: string; rules: Json[] }[],
  withDetectors: boolean,
  claimed: string | undefined,
): string[] {
  const at = obligations.findIndex((x) => x.id === detail.id);
  const o = obligations[at];
  if (!o) return [`detail: ${shown(detail.id)} is not an obligation of the signed resolution`];
  const problems: string[] = [];
  unsigned(problems, "detail: ", detail, "detail");
  const rules = Array.isArray(detail.rules) ? (detail.rules as Json[]) : [];
  const pick = (r: Json) => [r.id, r.severity, r.title, ...(withDetectors ? [r.detect ?? null] : [])];
  if (JSON.stringify(rules.map(pick)) !== JSON.stringify(o.rules.map(pick)))
    problems.push(`detail: the rules of ${o.id} differ from its signed obligation`);
  if (claimed === undefined) return problems; // signed before details were claimed: its checks and tests are not proven
  for (const f of ["title", "summary", "rules", "tests"]) if (detail[f] === undefined) problems.push(`detail: ${f} is missing`);
  const list = answer.detailDigests;
  if (!Array.isArray(list) || list.length !== obligations.length || list.some((d) => typeof d !== "string"))
    problems.push(
      `detailDigests ${list === undefined ? "is missing" : "is not one digest per obligation"} (the detail cannot be proven without it)`,
    );
  else if (detailsClaim(list as string[]) !== claimed) problems.push("detailDigests is not what was signed");
  else if (detailDigest(detail as never) !== list[at])
    problems.push(`detail: ${o.id}'s checks, rules, tests or summary differ from what was signed`);
  return problems;
}

/** A report's answer against its receipt: the same report, the same resolution, and counts taken from the signed verdicts. */
export function receiptProblems(answer: Json, p: Json): string[] {
  const problems: string[] = [];
  if (!("reportId" in answer)) return ["the receipt is attached to an answer that is not a report's (it has no reportId)"];
  unsigned(problems, "", answer, "report");
  for (const f of ["reportId", "submissionId", "resolutionId", "recordedAt"]) same(problems, "", answer, f, p[f]);
  const verdicts = (Array.isArray(p.verdicts) ? p.verdicts : []) as { id: string; verdict: string }[];
  same(problems, "", answer, "verdicts", verdicts.length);
  const summary = { pass: 0, fail: 0, not_applicable: 0 };
  for (const v of verdicts) if (v.verdict in summary) summary[v.verdict as keyof typeof summary]++;
  same(problems, "", answer, "summary", summary);
  same(
    problems,
    "",
    answer,
    "failing",
    verdicts.filter((v) => v.verdict === "fail").map((v) => v.id),
  );
  // the report itself saved with its receipt: its results are the ones the receipt's digest binds
  if (answer.expertiseResults !== undefined) {
    const results = Array.isArray(answer.expertiseResults) ? (answer.expertiseResults as Json[]) : [];
    const digest = resultsDigestOf(
      String(answer.resolutionId),
      results.map((r) => ({
        id: String(r.id),
        verdict: String(r.verdict),
        evidence: (r.evidence as string[] | undefined) ?? [],
        missing: (r.missing as string[] | undefined) ?? [],
        note: (r.note as string | null | undefined) ?? null,
      })),
    );
    if (digest !== p.resultsDigest) problems.push("expertiseResults differ from the results the receipt signed");
  }
  return problems;
}

/**
 * A receipt against the (verified) manifest of the resolution it should belong to: the same
 * resolution and project, a verdict only for a talent it served, one for each of its expertises,
 * and the answer's `expertiseVerdicts` the number of those.
 */
export function bindingProblems(answer: Json | null, receipt: Json, manifest: Json): string[] {
  const problems: string[] = [];
  for (const f of ["resolutionId", "projectId"])
    if (receipt[f] !== manifest[f]) problems.push(`the receipt's ${f} is ${shown(receipt[f])}, the resolution's ${shown(manifest[f])}`);
  if (problems.length > 0) return problems;
  const items = (Array.isArray(manifest.items) ? manifest.items : []) as SignedItem[];
  const verdicts = (Array.isArray(receipt.verdicts) ? receipt.verdicts : []) as { id: string }[];
  const served = new Set(items.map((i) => i.id));
  for (const v of verdicts) if (!served.has(v.id)) problems.push(`a verdict for ${v.id}, which the resolution did not serve`);
  const expertises = items.filter((i) => i.kind === "expertise").map((i) => i.id);
  for (const id of expertises)
    if (verdicts.filter((v) => v.id === id).length !== 1) problems.push(`not exactly one verdict for expertise ${id}`);
  if (answer) same(problems, "", answer, "expertiseVerdicts", expertises.length);
  return problems;
}
