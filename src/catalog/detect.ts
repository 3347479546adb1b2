/**
 * Rule detectors (docs/talent-format.md "Detectors"): a rule may carry
 * `detect: [{files?, pattern, flags?}]`, regular expressions for what a pattern can find in the
 * added lines of a diff. The validator reads and proves them here (each conformance test's
 * `fail` sample must match, each `pass` sample must not); `talentd check` compiles and runs
 * them on the client. This module imports nothing else of the server, so the client command
 * loads it without the catalog, the database or Elysia.
 */
import { fileMatches, reportsLine, viewOf, type ViewDetector } from "./codeContext";
import { pathKind, sampleOfGlob, SCAN_VALUES } from "./pathKind";

/** One detector of a rule, as written in TALENT.md. */
export interface Detector {
  /**
   * Globs of the repository paths it applies to (a glob starting with `!` excludes); absent:
   * the talent's `triggers.files`.
   */
  files?: string[];
  /** A JavaScript regular expression, matched against each added line on its own. */
  pattern: string;
  /** Regular-expression flags: any of `i`, `u` (default none). */
  flags?: string;
  /**
   * What the detector reads that detectors skip by default: path kinds (`tests`, `e2e`,
   * `examples`, `docs`, `fixtures`, `generated`, `vendored`; src/catalog/pathKind.ts) and `comments`.
   */
  scan?: string[];
  /**
   * A regular expression over the whole file (comments blanked) that drops the finding when it
   * matches; `$1` in it stands for what the pattern's first group matched (MIG-003: not an index
   * on a table the same migration creates).
   */
  unless?: string;
}

export const DETECT_MAX = 5;
export const PATTERN_MAX = 500;
export const DETECT_FLAGS = /^(?!.*(.).*\1)[iu]*$/;

type Add = (field: string, problem: string) => void;

/**
 * Why a pattern cannot be a detector, or null: it must compile with its flags, and have no
 * quantified group that itself holds an unbounded quantifier (`(a+)+`, `(?:\w*\s)*`): such a
 * pattern can take exponential time on one line, and a hook must never hang.
 */
export function patternProblem(pattern: string, flags = ""): string | null {
  if (pattern.length === 0) return "must not be empty";
  if (pattern.length > PATTERN_MAX) return `too long (${pattern.length} > ${PATTERN_MAX} characters)`;
  if (!DETECT_FLAGS.test(flags)) return null; // reported on flags
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, flags);
  } catch (e) {
    return `invalid regular expression: ${(e as Error).message.replace(/^Invalid regular expression: /i, "")}`;
  }
  if (nestedQuantifier(pattern))
    return "a repeated group holds an unbounded quantifier (like (a+)+): it can backtrack for ever; bound or flatten it";
  if (compiled.test("")) return "matches an empty line: it would flag every added line";
  return null;
}

/** True when a group followed by `*`, `+` or `{n,}` contains `*`, `+` or `{n,}` itself. */
function nestedQuantifier(p: string): boolean {
  const stack: boolean[] = []; // per open group: holds an unbounded quantifier
  let inClass = false;
  const unboundedAt = (i: number): boolean => p[i] === "*" || p[i] === "+" || (p[i] === "{" && /^\{\d+,\}/.test(p.slice(i)));
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === "\\") {
      i++;
      if (!inClass && unboundedAt(i + 1) && stack.length > 0) stack[stack.length - 1] = true;
      continue;
    }
    if (inClass) {
      if (c === "]") {
        inClass = false;
        if (unboundedAt(i + 1) && stack.length > 0) stack[stack.length - 1] = true;
      }
      continue;
    }
    if (c === "[") {
      inClass = true;
      continue;
    }
    if (c === "(") {
      stack.push(false);
      continue;
    }
    if (c === ")") {
      const inner = stack.pop() ?? false;
      if (unboundedAt(i + 1)) {
        if (inner) return true;
        if (stack.length > 0) stack[stack.length - 1] = true;
      } else if (inner && stack.length > 0) stack[stack.length - 1] = true;
      continue;
    }
    if (unboundedAt(i + 1) && stack.length > 0) stack[stack.length - 1] = true;
  }
  return false;
}

/**
 * Reads `rules[i].detect` (validator); reports `rules[ID].detect…: problem` findings and returns
 * the detectors that are well formed. `globProblem` is the validator's check of a file glob.
 */
export function readDetectors(raw: unknown, label: string, add: Add, globProblem: (g: string) => string | null): Detector[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.length === 0) {
    add(`${label}.detect`, "must be a non-empty list of {pattern, files?, flags?}");
    return [];
  }
  if (raw.length > DETECT_MAX) add(`${label}.detect`, `at most ${DETECT_MAX} detectors per rule (has ${raw.length})`);
  const out: Detector[] = [];
  raw.forEach((d, i) => {
    const at = `${label}.detect[${i}]`;
    if (d === null || typeof d !== "object" || Array.isArray(d)) {
      add(at, "must be a mapping with pattern, and optionally files and flags");
      return;
    }
    const o = d as Record<string, unknown>;
    for (const key of Object.keys(o)) if (!DETECTOR_FIELDS.includes(key)) add(`${at}.${key}`, "unknown field");
    let ok = true;
    let flags = "";
    if (o.flags !== undefined) {
      if (typeof o.flags !== "string" || !DETECT_FLAGS.test(o.flags)) {
        add(`${at}.flags`, `must be any of i, u (got ${JSON.stringify(o.flags)})`);
        ok = false;
      } else flags = o.flags;
    }
    if (typeof o.pattern !== "string") {
      add(`${at}.pattern`, "missing (a regular expression; write it in single quotes in YAML)");
      ok = false;
    } else {
      const problem = patternProblem(o.pattern, flags);
      if (problem) {
        add(`${at}.pattern`, problem);
        ok = false;
      }
    }
    let files: string[] | undefined;
    if (o.files !== undefined) {
      if (!Array.isArray(o.files) || o.files.length === 0 || o.files.some((g) => typeof g !== "string" || g.trim() === "")) {
        add(`${at}.files`, "must be a non-empty list of globs");
        ok = false;
      } else {
        files = o.files as string[];
        if (files.every((g) => g.startsWith("!"))) {
          add(`${at}.files`, "needs at least one glob that is not an exclusion (!)");
          ok = false;
        }
        for (const g of files) {
          const problem = globProblem(g.startsWith("!") ? g.slice(1) : g);
          if (problem) {
            add(`${at}.files`, `"${g}" ${problem}`);
            ok = false;
          }
        }
      }
    }
    const extra = readContextFields(o, at, flags, add);
    if (extra === null) ok = false;
    if (ok) out.push({ pattern: o.pattern as string, ...(flags ? { flags } : {}), ...(files ? { files } : {}), ...extra });
  });
  return out;
}

const DETECTOR_FIELDS = ["pattern", "files", "flags", "scan", "unless"];

/** Reads a detector's `scan` and `unless`; null when either is malformed (reported). */
function readContextFields(o: Record<string, unknown>, at: string, flags: string, add: Add): Pick<Detector, "scan" | "unless"> | null {
  const out: Pick<Detector, "scan" | "unless"> = {};
  let ok = true;
  if (o.scan !== undefined) {
    const bad = !Array.isArray(o.scan) || o.scan.length === 0 || o.scan.some((v) => typeof v !== "string" || !SCAN_VALUES.includes(v));
    if (bad) {
      add(`${at}.scan`, `must be a non-empty list of ${SCAN_VALUES.join(", ")}`);
      ok = false;
    } else out.scan = o.scan as string[];
  }
  if (o.unless !== undefined) {
    const problem = typeof o.unless !== "string" ? "must be a regular expression" : patternProblem(o.unless.replace(/\$1/g, "x"), flags);
    if (problem) {
      add(`${at}.unless`, problem);
      ok = false;
    } else out.unless = o.unless as string;
  }
  return ok ? out : null;
}

/** Compiles a detector (its pattern was validated; never the stateful g or y flags). */
export function compile(d: Detector): RegExp {
  return new RegExp(d.pattern, d.flags ?? "");
}

/** A detector ready to run on file views: compiled, with what it scans and its `unless`. */
export function readyDetector(d: Detector): ViewDetector {
  return { regex: compile(d), scan: new Set(d.scan ?? []), ...(d.unless ? { unless: d.unless } : {}) };
}

/** The 1-based line numbers of a sample that the rule's detectors report, read as a file at a path their globs name. */
function sampleMatches(detectors: readonly Detector[], triggerFiles: readonly string[], text: string): { line: number; text: string }[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const hits = new Set<number>();
  for (const d of detectors) {
    const include = detectorFiles(d, triggerFiles).find((g) => !g.startsWith("!")) ?? "**";
    const view = viewOf(sampleOfGlob(include), lines.join("\n"));
    const ready = readyDetector(d);
    let whole: string | undefined;
    const wholeText = () => (whole ??= view.code.join("\n"));
    if (ready.scan.has("file")) for (const m of fileMatches(ready, view, lines, wholeText)) hits.add(m.line);
    else
      lines.forEach((l, i) => {
        if (reportsLine(ready, view, i, l, wholeText)) hits.add(i);
      });
  }
  return [...hits].sort((a, b) => a - b).map((i) => ({ line: i + 1, text: lines[i]! }));
}

/**
 * A detector that would not run where its globs point: one of its own `files` (or half the globs
 * of the talent's triggers it inherits: a talent about tests) names a path kind it skips (tests,
 * docs…) without `scan`. A lock file among a talent's triggers designates it; no detector reads it.
 */
function deadGlobs(d: Detector, triggerFiles: readonly string[]): string | null {
  const dead: string[] = [];
  const include = detectorFiles(d, triggerFiles).filter((g) => !g.startsWith("!"));
  for (const g of include) {
    const kind = pathKind(sampleOfGlob(g));
    if (kind && !(d.scan ?? []).includes(kind))
      dead.push(`"${g}" names ${kind} files, which detectors skip: add scan: [${kind}] or drop the glob`);
  }
  if (d.files && d.files.length > 0) return dead[0] ?? null;
  return dead.length * 2 >= include.length ? (dead[0] ?? null) : null;
}

/**
 * Proves a rule's detectors by its conformance tests (validator and `talents lint`): each test's
 * `fail` sample must be reported on some line, each `pass` sample on none, read as a file its
 * globs name (comments and test code skipped as in a check). A rule with detectors and no test is
 * refused: nothing would prove the pattern.
 */
export function proveDetectors(
  rule: { id: string; detect?: Detector[] },
  tests: readonly { rule: string; pass: string; fail: string }[],
  label: string,
  add: Add,
  triggerFiles: readonly string[] = [],
): void {
  if (!rule.detect || rule.detect.length === 0) return;
  rule.detect.forEach((d, i) => {
    const dead = deadGlobs(d, triggerFiles);
    if (dead) add(`${label}.detect[${i}].files`, dead);
  });
  let proven = false;
  tests.forEach((t, i) => {
    if (t.rule !== rule.id) return;
    proven = true;
    if (sampleMatches(rule.detect!, triggerFiles, t.fail).length === 0)
      add(`${label}.detect`, `tests[${i}] fail sample is matched by no detector: the detector misses what the test calls a violation`);
    const wrong = sampleMatches(rule.detect!, triggerFiles, t.pass);
    if (wrong.length > 0) {
      const w = wrong[0]!;
      add(
        `${label}.detect`,
        `tests[${i}] pass sample matches at line ${w.line} (${JSON.stringify(w.text.trim().slice(0, 80))}): the detector ` +
          `flags what the test calls conforming`,
      );
    }
  });
  if (!proven)
    add(`${label}.detect`, `needs a conformance test of ${rule.id} to prove it (its fail sample must match, its pass sample must not)`);
}

/** The globs a detector applies to: its own `files`, else the talent's `triggers.files`, else every file. */
export function detectorFiles(d: Detector, triggerFiles: readonly string[]): string[] {
  if (d.files && d.files.length > 0) return d.files;
  return triggerFiles.length > 0 ? [...triggerFiles] : ["**"];
}
