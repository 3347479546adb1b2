/**
 * `talentd check`'s engine: the served rules' detectors (from the resolution's playbook, pinned
 * like everything it serves) over the added lines of a diff, on this machine.
 */
import { compile, LINE_MAX, patternProblem, type Detector } from "../catalog/detect";
import type { AddedFile } from "./git";
import { globMatcher, type PathMatcher } from "./match";

/** An obligation of the playbook with `include=detectors`. */
export interface ServedObligation {
  id: string;
  kind: string;
  version: string;
  rules: { id: string; severity: "blocking" | "advisory"; title: string; detect?: (Detector & { files: string[] })[] }[];
}

export interface Finding {
  file: string;
  line: number;
  rule: string;
  talent: string;
  severity: "blocking" | "advisory";
  title: string;
  text: string;
}

export interface CheckResult {
  findings: Finding[];
  /** Detectors that could not run here, one line each (a newer server's syntax, say). */
  skipped: string[];
  rulesWithDetectors: number;
}

interface Compiled {
  talent: string;
  rule: ServedObligation["rules"][number];
  regex: RegExp;
  files: PathMatcher;
}

/** `talentd-ignore RULE-ID` (or several ids) on an added line silences those rules for it. */
function ignored(text: string, rule: string): boolean {
  const at = text.indexOf("talentd-ignore");
  return at >= 0 && text.slice(at).includes(rule);
}

export function runDetectors(obligations: readonly ServedObligation[], files: readonly AddedFile[]): CheckResult {
  const compiled: Compiled[] = [];
  const skipped: string[] = [];
  let rulesWithDetectors = 0;
  for (const o of obligations) {
    for (const rule of o.rules) {
      if (!rule.detect || rule.detect.length === 0) continue;
      rulesWithDetectors++;
      rule.detect.forEach((d, i) => {
        // served patterns were validated on the server; check again, a hook must not hang or crash
        const problem = patternProblem(d.pattern, d.flags ?? "");
        if (problem) {
          skipped.push(`${o.id} ${rule.id} detect[${i}]: ${problem}`);
          return;
        }
        compiled.push({ talent: o.id, rule, regex: compile(d), files: globMatcher(d.files) });
      });
    }
  }
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    const applicable = compiled.filter((c) => c.files(f.path) !== null);
    if (applicable.length === 0) continue;
    for (const { line, text } of f.lines) {
      const s = text.length > LINE_MAX ? text.slice(0, LINE_MAX) : text;
      for (const c of applicable) {
        if (!c.regex.test(s)) continue;
        const key = `${f.path}\0${line}\0${c.rule.id}`;
        if (seen.has(key) || ignored(text, c.rule.id)) continue;
        seen.add(key);
        findings.push({ file: f.path, line, rule: c.rule.id, talent: c.talent, severity: c.rule.severity, title: c.rule.title, text });
      }
    }
  }
  findings.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0)));
  return { findings, skipped, rulesWithDetectors };
}
