/** The talent format (docs/talent-format.md): types shared by the validator, the index and the services. */

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

/** A validated talent, ready to serve. */
export interface Talent {
  id: string;
  /** `talent` for the public catalog; `expertise` for a private talent of an organization. */
  kind: "talent" | "expertise";
  /** `talent` (TALENT.md) or `skill` (Agent Skills SKILL.md). */
  format: "talent" | "skill";
  title: string;
  summary: string;
  version: string;
  roles: string[];
  languages: string[];
  triggers: Triggers;
  requires: string[];
  conflicts: string[];
  budget: number;
  rules: TalentRule[];
  /** rules.length, kept light (listings need it without rebuilding a lazy talent). */
  ruleCount: number;
  tests: ConformanceTest[];
  /** `reviewed`: the day (YYYY-MM-DD) a person last checked the talent against its stack's current docs. */
  reviewed?: string;
  /** `covers`: the products and versions the talent is written for. */
  covers?: Coverage[];
  body: string;
  /** `talent://<id>` (or `talent://@org/slug`). */
  uri: string;
  /** The main file name: TALENT.md or SKILL.md. */
  mainFile: string;
  /** Every file of the talent by relative path, the main file included. */
  files: Map<string, TalentFile>;
  /** talent:// URIs the body points to. */
  pointers: string[];
  /** The served compact form and its digest and token estimate. */
  compact: string;
  compactDigest: string;
  tokens: number;
  /** Digest of the main file: the talent's identity at this version. */
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
