/**
 * The talent format's parts (docs/talent-format.md): the types of a field's values (rules, tests,
 * triggers, covers, files), findings and the patterns, below the field declaration (fields.ts),
 * which `Talent` (format.ts) derives from.
 */

import type { Detector } from "./detect";
import type { Measured } from "./measured";

export type Severity = "blocking" | "advisory";

export interface TalentRule {
  id: string;
  severity: Severity;
  title: string;
  check: string;
  /** Patterns `talentd check` runs over added lines; proven by the rule's conformance tests. */
  detect?: Detector[];
  /** Its detectors block a commit (earned by `measured`; src/catalog/measured.ts); else their findings are advisory. */
  blocks?: true;
  /** Its detectors measured on real history (docs/precision.md). */
  measured?: Measured;
}

export interface ConformanceTest {
  rule: string;
  pass: string;
  fail: string;
}

export interface Triggers {
  files: string[];
  keywords: string[];
}

/** A product and the versions of it a talent covers (`covers`; checked against `talents/_support.yaml`). */
export interface Coverage {
  product: string;
  versions: string[];
}

/** A further file of a talent (TALENT.md itself included), with its content digest. */
export interface TalentFile {
  path: string;
  content: string;
  digest: string;
}

/** One validation problem: `file: field: problem`. */
export interface Finding {
  file: string;
  field: string;
  problem: string;
}

/** Renders a finding as the one-line message of the lint and the logs. */
export function formatFinding(f: Finding): string {
  return `${f.file}: ${f.field}: ${f.problem}`;
}

/** Token estimate used for budgets: ceil(characters / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export const ID_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const RULE_ID_PATTERN = /^[A-Z][A-Z0-9]{1,9}-[0-9]{3}$/;
export const SEMVER_PATTERN = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
/** Matches talent:// pointers in markdown. */
export const POINTER_PATTERN = /talent:\/\/[^\s)\]>"'`<]+/g;
