/**
 * `talentd check`'s engine: the served rules' detectors (from the resolution's playbook, pinned
 * like everything it serves) over the added lines of a diff, on this machine.
 */
import { fileMatches, LINE_MAX, reportsLine, viewOf, type FileView, type ViewDetector } from "../catalog/codeContext";
import { patternProblem, readyDetector, type Detector } from "../catalog/detect";
import { fileKind, pathKind } from "../catalog/pathKind";
import type { AddedFile } from "./git";
import { globMatcher, type GlobCache, type PathMatcher } from "./match";

/** An obligation of the playbook with `include=detectors`. */
export interface ServedObligation {
  id: string;
  kind: string;
  version: string;
  rules: {
    id: string;
    severity: "blocking" | "advisory";
    title: string;
    /** `severity`: of the detector's findings (absent from an older server: the rule's). */
    detect?: (Detector & { files: string[]; severity?: "blocking" | "advisory" })[];
  }[];
}

export interface Finding {
  file: string;
  line: number;
  rule: string;
  talent: string;
  severity: "blocking" | "advisory";
  title: string;
  text: string;
  /** Other rules whose detectors found the same text on the line: one problem, reported once. */
  also?: string[];
}

export interface CheckResult {
  findings: Finding[];
  /** Detectors that could not run here, one line each (a newer server's syntax, say). */
  skipped: string[];
  rulesWithDetectors: number;
  /** The rules whose detectors applied to at least one added file (the precision harness counts them). */
  rulesRun: string[];
  /** Findings silenced by `talentd-ignore`, with the reason written after the rule ids. */
  ignored: { file: string; line: number; rule: string; reason: string }[];
}

interface Compiled {
  talent: string;
  rule: ServedObligation["rules"][number];
  regex: RegExp;
  /** Its `files` globs as one key: detectors with the same list share one matcher and one test per file. */
  filesKey: string;
  files: PathMatcher;
  ready: ViewDetector;
  severity: "blocking" | "advisory";
}

/**
 * `talentd-ignore RULE-ID reason` (or several ids, `RULE-A, RULE-B reason`) silences those rules on
 * its own line, or on the next one when the marker sits on a line above it; the reason follows the
 * ids. An id named only in the reason silences nothing. Null: not ignored.
 */
function ignoreReason(text: string | undefined, rule: string): string | null {
  const at = text?.indexOf("talentd-ignore") ?? -1;
  if (text === undefined || at < 0 || !text.includes(rule, at)) return null;
  const m = /^talentd-ignore\s+((?:[A-Z][A-Z0-9]*-\d+[\s,]*)+)(.*)$/.exec(text.slice(at));
  if (!m || !m[1]!.split(/[\s,]+/).includes(rule)) return null;
  return m[2]!
    .replace(/\s*(?:\*\/|-->|#\})\s*$/, "")
    .replace(/^[\s:—–-]+/, "")
    .trim();
}

/** Detectors tested together: `any` (their patterns as one alternation) screens a line first. */
type Plan = { any: RegExp | null; members: Compiled[] }[];

/**
 * Groups the detectors that apply to a file by flags into one alternation each: most lines match
 * nothing, and one test of the alternation costs a fraction of one test per detector (measured:
 * 90 detectors over 2,000 lines, 30 ms → 6 ms). A pattern with a backreference or a named group
 * would change meaning inside the alternation: it is tested on its own.
 */
function planFor(applicable: Compiled[]): Plan {
  const byFlags = new Map<string, Compiled[]>();
  const alone: Compiled[] = [];
  for (const c of applicable) {
    if (/\\[1-9]|\\k<|\(\?<[A-Za-z_$]/.test(c.regex.source)) alone.push(c);
    else {
      const list = byFlags.get(c.regex.flags) ?? [];
      list.push(c);
      byFlags.set(c.regex.flags, list);
    }
  }
  const plan: Plan = [...byFlags.entries()].map(([flags, members]) => ({
    any: members.length > 1 ? new RegExp(members.map((c) => `(?:${c.regex.source})`).join("|"), flags) : null,
    members,
  }));
  if (alone.length > 0) plan.push({ any: null, members: alone });
  return plan;
}

/** Reads the file at the checked version for context (null: unknown, the added lines stand alone). */
export type ContentOf = (path: string) => string | null;

/**
 * The file as its detectors see it: its checked version when given and it agrees with the added
 * lines, else the added lines alone at their line numbers (a block comment they open still counts).
 */
function fileView(
  f: AddedFile,
  contentOf: ContentOf | undefined,
): { view: FileView; lines: string[]; generated: boolean; whole: () => string } {
  let content = contentOf?.(f.path) ?? null;
  if (content !== null) {
    const lines = content.split("\n");
    if (f.lines.some((l) => (lines[l.line - 1] ?? "").replace(/\r$/, "") !== l.text.replace(/\r$/, ""))) content = null;
  }
  let text = content;
  if (text === null) {
    const sparse: string[] = [];
    for (const l of f.lines) {
      while (sparse.length < l.line - 1) sparse.push("");
      sparse[l.line - 1] = l.text;
    }
    text = sparse.join("\n");
  }
  const normal = text.replace(/\r\n/g, "\n");
  const view = viewOf(f.path, normal);
  let whole: string | undefined;
  return {
    view,
    lines: normal.split("\n"),
    generated: fileKind(f.path, content) === "generated",
    whole: () => (whole ??= view.code.join("\n")),
  };
}

function compileAll(obligations: readonly ServedObligation[]): { compiled: Compiled[]; skipped: string[]; rulesWithDetectors: number } {
  const compiled: Compiled[] = [];
  const skipped: string[] = [];
  let rulesWithDetectors = 0;
  // many detectors name the same globs: each glob compiled once, each list one matcher
  const globs: GlobCache = new Map();
  const matchers = new Map<string, PathMatcher>();
  for (const o of obligations) {
    for (const rule of o.rules) {
      if (!rule.detect || rule.detect.length === 0) continue;
      rulesWithDetectors++;
      rule.detect.forEach((d, i) => {
        // served patterns were validated on the server; check again, a hook must not hang or crash
        const problem =
          patternProblem(d.pattern, d.flags ?? "") ?? (d.unless ? patternProblem(d.unless.replace(/\$1/g, "x"), d.flags) : null);
        if (problem) {
          skipped.push(`${o.id} ${rule.id} detect[${i}]: ${problem}`);
          return;
        }
        const ready = readyDetector(d);
        const regex = ready.regex;
        const severity = d.severity === "advisory" || d.severity === "blocking" ? d.severity : rule.severity;
        const filesKey = JSON.stringify(d.files);
        let files = matchers.get(filesKey);
        if (!files) matchers.set(filesKey, (files = globMatcher(d.files, globs)));
        compiled.push({ talent: o.id, rule, regex, filesKey, files, ready, severity });
      });
    }
  }
  return { compiled, skipped, rulesWithDetectors };
}

/**
 * Runs the served detectors over the added lines. A file of a kind detectors skip (tests, docs…;
 * src/catalog/pathKind.ts), test code and comments are read only by detectors whose `scan` names
 * them; `contentOf` gives the file at the checked version for that context. Two rules finding the
 * same text on a line are one finding (the other rule in `also`).
 */
export function runDetectors(obligations: readonly ServedObligation[], files: readonly AddedFile[], contentOf?: ContentOf): CheckResult {
  const { compiled, skipped, rulesWithDetectors } = compileAll(obligations);
  const findings: Finding[] = [];
  const seen = new Map<string, Finding>();
  const reported = new Set<string>();
  const rulesRun = new Set<string>();
  const ignored: CheckResult["ignored"] = [];
  const plans = new Map<string, Plan>();
  const position = new Map(compiled.map((c, i) => [c, i]));
  for (const f of files) {
    const kind = pathKind(f.path);
    const matches = new Map<string, boolean>(); // one test per distinct list of globs
    const applies = (c: Compiled) => {
      let m = matches.get(c.filesKey);
      if (m === undefined) matches.set(c.filesKey, (m = c.files(f.path) !== null));
      return m;
    };
    const applicable = compiled.filter((c) => applies(c) && (kind === null || c.ready.scan.has(kind)));
    if (applicable.length === 0) continue;
    for (const c of applicable) rulesRun.add(c.rule.id);
    const byLine = applicable.filter((c) => !c.ready.scan.has("file"));
    const key = byLine.map((c) => position.get(c)).join(",");
    let plan = plans.get(key);
    if (!plan) plans.set(key, (plan = planFor(byLine)));
    let context: ReturnType<typeof fileView> | undefined;
    const report = (c: Compiled, line: number, text: string, m: RegExpExecArray): void => {
      const ctx = context!;
      const reason = ignoreReason(text, c.rule.id) ?? (aboveIsComment(ctx, line) ? ignoreReason(ctx.lines[line - 2], c.rule.id) : null);
      if (reason !== null) {
        ignored.push({ file: f.path, line, rule: c.rule.id, reason });
        return;
      }
      const finding: Finding = { file: f.path, line, rule: c.rule.id, talent: c.talent, severity: c.severity, title: c.rule.title, text };
      const byRule = `${f.path}\0${line}\0${c.rule.id}`;
      if (reported.has(byRule)) return;
      reported.add(byRule);
      // one problem: the same text found by rules of different talents (a talent's own rules are distinct problems)
      const same = `${f.path}\0${line}\0${m.index}\0${m[0]}`;
      const known = seen.get(same);
      if (known && known.talent !== finding.talent) merge(known, finding);
      else {
        seen.set(same, finding);
        findings.push(finding);
      }
    };
    for (const { line, text } of f.lines) {
      const s = text.length > LINE_MAX ? text.slice(0, LINE_MAX) : text;
      for (const group of plan) {
        // one test of the group's combined pattern per line; its members only when it matches
        if (group.any && !group.any.test(s)) continue;
        for (const c of group.members) {
          if (!c.regex.test(s)) continue;
          context ??= fileView(f, contentOf);
          if (context.generated && !c.ready.scan.has("generated")) continue;
          const m = reportsLine(c.ready, context.view, line - 1, text, context.whole);
          if (m) report(c, line, text, m);
        }
      }
    }
    const overFile = applicable.filter((c) => c.ready.scan.has("file"));
    if (overFile.length > 0) {
      // a construct over several lines: reported at the line it starts on when any of its lines was added
      context ??= fileView(f, contentOf);
      const added = new Set(f.lines.map((l) => l.line));
      for (const c of overFile) {
        if (context.generated && !c.ready.scan.has("generated")) continue;
        for (const { line, end, match } of fileMatches(c.ready, context.view, context.lines, context.whole)) {
          let touched = false;
          for (let k = line + 1; k <= end + 1 && !touched; k++) touched = added.has(k);
          if (touched) report(c, line + 1, context.lines[line] ?? "", match);
        }
      }
    }
  }
  findings.sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0),
  );
  return { findings, skipped, rulesWithDetectors, rulesRun: [...rulesRun].sort(), ignored };
}

/** The line above holds only a comment (a marker there speaks for the next line, not its own code). */
function aboveIsComment(context: { view: FileView; lines: string[] }, line: number): boolean {
  const code = context.view.code[line - 2];
  return code !== undefined && code.trim() === "" && (context.lines[line - 2] ?? "").trim() !== "";
}

/** Folds a second rule's finding of the same text into the first; a blocking one leads. */
function merge(known: Finding, other: Finding): void {
  if (other.severity === "blocking" && known.severity !== "blocking") {
    const lead = { rule: other.rule, talent: other.talent, severity: other.severity, title: other.title };
    other.rule = known.rule;
    Object.assign(known, lead);
  }
  known.also = [...(known.also ?? []), other.rule].sort();
}
