/**
 * The talent format (docs/talent-format.md): `Talent`, whose front-matter fields are derived from
 * their one declaration (fields.ts), and the format's parts (formatBase.ts).
 */
import type { TalentFields } from "./fields";
import type { TalentFile } from "./formatBase";

export * from "./formatBase";

/** A validated talent, ready to serve: its declared fields (fields.ts) and what the validator derives. */
export interface Talent extends TalentFields {
  id: string;
  /** `talent` for the public catalog; `expertise` for a private talent of an organization. */
  kind: "talent" | "expertise";
  /** `talent` (TALENT.md) or `skill` (Agent Skills SKILL.md). */
  format: "talent" | "skill";
  /** rules.length, kept light (listings need it without rebuilding a lazy talent). */
  ruleCount: number;
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
