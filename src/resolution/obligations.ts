/**
 * A resolution's obligations as the playbook serves them, and the claims its signed manifest
 * makes over them (signing/claims.ts): every item's title and rules (id, severity, title) and
 * every rule's detectors as served. Prepare-task computes the claims from the definitions it is
 * about to pin; the playbook serves the same parse of the same bytes, so `talentd verify`
 * computes the same digests from a saved playbook.
 */
import { detectorFiles } from "../catalog/detect";
import type { Talent, TalentRule } from "../catalog/format";
import { detectorSeverity } from "../catalog/measured";
import { detectorsClaim, rulesClaim } from "../signing/claims";
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
  def: PinnedDefinition;
  triggerFiles: string[];
}

/** The `rules` and `detectors` claims of a resolution's items (in served order). */
export function obligationClaims(items: readonly ServedDefinition[]): { rules: string; detectors: string } {
  const obligations = items.map(({ id, def, triggerFiles }) => ({
    id,
    title: def.title,
    rules: def.rules.map((r) => ({ id: r.id, severity: r.severity, title: r.title, ...servedDetect(r, triggerFiles) })),
  }));
  return { rules: rulesClaim(obligations), detectors: detectorsClaim(obligations) };
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
  return { id: d.id, def, triggerFiles: d.kind === "expertise" ? [...d.talent.triggers.files] : def.triggerFiles };
}
