/**
 * Verification of an expertise: the one talent validator (src/catalog/validate.ts) on its
 * TALENT.md and files, plus the links a single talent cannot check alone, against the public
 * catalog: `requires` and `conflicts` name public talents, and a `talent://` pointer names either
 * a file of this expertise (`talent://@org/slug/<path>`) or a public talent (and its file).
 */
import { pointerTarget, type Catalog } from "../catalog/catalog";
import type { Finding, Talent } from "../catalog/format";
import { isSkillMdText } from "../catalog/skillFormat";
import { validateTalent } from "../catalog/validate";
import type { Issue } from "../http/errors";

export interface ExpertiseSource {
  orgSlug: string;
  slug: string;
  content: string;
  files: Record<string, string>;
}

export const refOf = (orgSlug: string, slug: string) => `@${orgSlug}/${slug}`;

/** The main file an expertise's content is: SKILL.md when its front matter has `name` and no `id`, else TALENT.md. */
export function mainFileOfContent(content: string): "TALENT.md" | "SKILL.md" {
  return isSkillMdText(content) ? "SKILL.md" : "TALENT.md";
}

/** Runs the talent validator on an expertise's bytes (no link checks); the content is a TALENT.md or a SKILL.md text. */
export function validateExpertise(
  src: ExpertiseSource,
  linkHosts: readonly string[] = [],
): { talent: Talent | null; findings: Finding[]; content: Issue[] } {
  const ref = refOf(src.orgSlug, src.slug);
  const r = validateTalent(
    {
      folder: src.slug,
      files: { ...src.files, [mainFileOfContent(src.content)]: src.content },
      label: (p) => `${ref}/${p}`,
      kind: "expertise",
      uri: `talent://${ref}`,
    },
    // the content check: invisible and control characters refuse it; the rest a person acknowledges
    { content: { linkHosts, strict: false } },
  );
  const content = (r.content ?? []).map((f) => ({
    path: `${ref}/${f.path}: content`,
    message: `line ${f.line}, column ${f.column}: ${f.message}`,
    kind: f.kind,
  }));
  return { talent: r.talent, findings: r.findings, content };
}

/** Links of a structurally valid expertise that the public catalog does not satisfy. */
export function linkFindings(talent: Talent, catalog: Catalog): Finding[] {
  const file = `${talent.id}/${talent.mainFile}`;
  const out: Finding[] = [];
  for (const r of talent.requires)
    if (!catalog.get(r)) out.push({ file, field: "requires", problem: `"${r}" does not exist in the catalog` });
  for (const c of talent.conflicts)
    if (!catalog.get(c)) out.push({ file, field: "conflicts", problem: `"${c}" does not exist in the catalog` });
  for (const p of talent.pointers) {
    if (p === talent.uri || p.startsWith(talent.uri + "/")) continue; // own files: checked by the validator
    if (p.startsWith("talent://@")) {
      out.push({ file, field: "body", problem: `pointer ${p}: an expertise may point to its own files and to public talents only` });
      continue;
    }
    const { target, path } = pointerTarget(p);
    const other = catalog.get(target);
    if (!other) out.push({ file, field: "body", problem: `pointer ${p}: talent "${target}" does not exist in the catalog` });
    else if (path && !other.files.has(path))
      out.push({ file, field: "body", problem: `pointer ${p}: no file "${path}" in talent "${target}"` });
  }
  return out;
}

export interface Verification {
  valid: boolean;
  talent: Talent | null;
  /** `{path: "<file>: <field>", message: <problem>}`, in the validator's order. */
  issues: Issue[];
  /**
   * The content check's findings a person acknowledges before publishing (`path`
   * `<ref>/<file>: content`, `message` `line L, column C: …`).
   */
  content: Issue[];
}

/**
 * Validator + link checks (the links only when the catalog is loaded) + the content check, whose
 * allowed link hosts are the catalog's (CONTENT_LINK_HOSTS), as for the public talents.
 */
export function verifyExpertise(src: ExpertiseSource, catalog: Catalog | null, linkHosts = catalog?.linkHosts ?? []): Verification {
  const { talent, findings, content } = validateExpertise(src, linkHosts);
  const all = talent && catalog ? linkFindings(talent, catalog) : findings;
  const issues = all.map((f) => ({ path: `${f.file}: ${f.field}`, message: f.problem }));
  return { valid: issues.length === 0 && talent !== null, talent: issues.length === 0 ? talent : null, issues, content };
}
