/**
 * A resolution's obligations as the playbook serves them, and the claims its signed manifest
 * makes over them (signing/claims.ts): every item's title and rules (id, severity, title),
 * every rule's detectors as served, and every item's detail (checks and conformance tests).
 * Prepare-task computes the claims from the definitions it is about to pin; the playbook serves
 * the same parse of the same bytes, so `talentd verify` computes the same digests from a saved
 * playbook.
 */
import { detectorFiles } from "../catalog/detect";
import type { Talent, TalentRule } from "../catalog/format";
import { detectorSeverity } from "../catalog/measured";
import { detailDigest, detailsClaim, detectorsClaim, rulesClaim } from "../signing/claims";
import { kept } from "../lib/kept";
import { definitionOfText, type PinnedDefinition } from "./pinned";

/**
 * A rule's detectors as served: each with the globs it applies to (its own, else the talent's
 * served triggers.files) and the severity of its findings (blocking only where earned).
 */
export function servedDetect(r: TalentRule, triggerFiles: string[]) {
  const severity = detectorSeverity(r);
  return r.detect
    ? {
        detect: r.detect.map((d) => ({
          severity,
          files: detectorFiles(d, triggerFiles),
          pattern: d.pattern,
          ...(d.flags ? { flags: d.flags } : {}),
          ...(d.scan ? { scan: d.scan } : {}),
          ...(d.unless ? { unless: d.unless } : {}),
        })),
      }
    : {};
}

/** One item's definition and the trigger files its detectors apply to, as the playbook serves them. */
export interface ServedDefinition {
  id: string;
  definitionDigest: string;
  def: PinnedDefinition;
  triggerFiles: string[];
}

/** The detail of a talent as the playbook serves it (`talent=`), but for the item's id, kind, version and digest. */
export function servedDetail(def: PinnedDefinition, triggerFiles: string[]) {
  return {
    title: def.title,
    summary: def.summary,
    rules: def.rules.map((r) => ({ id: r.id, severity: r.severity, title: r.title, check: r.check, ...servedDetect(r, triggerFiles) })),
    tests: def.tests,
  };
}

/** The digest of an item's detail (signing/claims.ts detailDigest), kept by its definition and the trigger files its detectors apply to. */
const detailDigests = kept<string, string>("A served detail's digest by definition and trigger files", {
  clock: "immutable",
  limit: 5_000,
});
export function detailDigestOf(definitionDigest: string, def: PinnedDefinition, triggerFiles: string[]): string {
  const key = `${definitionDigest}\n${triggerFiles.join("\n")}`;
  let digest = detailDigests.get(key);
  if (digest === undefined) detailDigests.set(key, (digest = detailDigest(servedDetail(def, triggerFiles))));
  return digest;
}

/** The `rules`, `detectors` and `details` claims of a resolution's items (in served order). */
export function obligationClaims(items: readonly ServedDefinition[]): { rules: string; detectors: string; details: string } {
  const obligations = items.map(({ id, def, triggerFiles }) => ({
    id,
    title: def.title,
    rules: def.rules.map((r) => ({ id: r.id, severity: r.severity, title: r.title, ...servedDetect(r, triggerFiles) })),
  }));
  const details = detailsClaim(items.map(({ definitionDigest, def, triggerFiles }) => detailDigestOf(definitionDigest, def, triggerFiles)));
  return { rules: rulesClaim(obligations), detectors: detectorsClaim(obligations), details };
}

/**
 * A talent about to be pinned, read as the playbook will read it: its main file (the file whose
 * digest is the definition's) parsed by pinned.ts, and the trigger files its detectors apply to
 * (an expertise's confirmed at publication, which its talent carries; else its TALENT.md's).
 */
export function servedDefinitionOf(d: { id: string; kind: string; talent: Talent }): ServedDefinition {
  const files = d.talent.files;
  const main =
    files.get("TALENT.md")?.digest === d.talent.digest
      ? "TALENT.md"
      : files.get("SKILL.md")?.digest === d.talent.digest
        ? "SKILL.md"
        : "TALENT.md";
  const text = files.get(main)?.content ?? [...files.values()].find((f) => f.digest === d.talent.digest)?.content ?? "";
  const def = definitionOfText(d.talent.digest, text, main, d.id);
  return {
    id: d.id,
    definitionDigest: d.talent.digest,
    def,
    triggerFiles: d.kind === "expertise" ? [...d.talent.triggers.files] : def.triggerFiles,
  };
}
