/**
 * What an imported rule file is written as (imports.ts reads it): the draft's TALENT.md — the
 * generated front matter, then the original text verbatim — and its slug made free in the
 * organization.
 */
import { estimateTokens } from "../catalog/format";
import type { ImportDraft } from "./imports";

/** The draft's TALENT.md: the generated front matter, then the original text verbatim. */
export function talentMdOf(draft: ImportDraft, slug: string, original: string): string {
  const q = (s: string) => JSON.stringify(s);
  const list = (xs: string[]) => `[${xs.map(q).join(", ")}]`;
  const rules = draft.rules.map(
    (r) => `  - id: ${r.id}\n    severity: ${r.severity}\n    title: ${q(r.title)}\n    check: ${q(r.check)}\n`,
  );
  const head =
    "---\n" +
    `id: ${slug}\n` +
    `title: ${q(draft.title)}\n` +
    `summary: ${q(draft.summary)}\n` +
    "version: 0.1.0\n" +
    "roles: []\n" +
    "languages: []\n" +
    `triggers:\n  files: ${list(draft.triggers.files)}\n  keywords: ${list(draft.triggers.keywords)}\n` +
    "requires: []\n" +
    "conflicts: []\n" +
    (rules.length > 0 ? `rules:\n${rules.join("")}` : "rules: []\n") +
    "tests: []\n";
  const body = original.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  // the compact form holds the rules and the body: the whole text's estimate bounds it (4000 at most: a longer one is a finding)
  const budget = Math.min(4000, Math.ceil((estimateTokens(head + body) + 100) / 100) * 100);
  return `${head}budget: ${budget}\n---\n${body}`;
}

/** Each draft's slug made free: `-2`, `-3`… after one taken in the organization (deleted ones included) or earlier in the request. */
export function freeSlugs(slugs: string[], taken: ReadonlySet<string>): string[] {
  const used = new Set(taken);
  return slugs.map((s) => {
    let slug = s;
    for (let n = 2; used.has(slug); n++) slug = `${s}-${n}`;
    used.add(slug);
    return slug;
  });
}
