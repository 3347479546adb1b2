/**
 * The precision harness's engine (docs/precision.md): replays `talentd check --base C^` commit by
 * commit over a repository's first-parent history, through the client's own code (the diff parser,
 * designation by triggers.files and languages, the detector engine), with the talents of a stack's
 * specializations loaded from talents/. It counts, per rule, the findings, the commits they would
 * have blocked, and the hand labels of the findings that have one (labels.tsv).
 */
import { historyLog } from "../../src/client/calibrate";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readSpecializationDir, readTalentDir } from "../../src/catalog/load";
import { validateTalent } from "../../src/catalog/validate";
import { runDetectors, type Finding, type ServedObligation } from "../../src/client/check";
import { servedObligationOf } from "../../src/client/served";
import { parseUnifiedDiff } from "../../src/client/git";
import { designate } from "../../src/client/match";

export type Label = "true" | "false" | "debatable";

/** One finding of the replay, with the repository and commit it was found in. */
export interface ReplayFinding extends Finding {
  repo: string;
  commit: string;
}

export interface Replay {
  commits: number;
  /** Commits with at least one blocking finding. */
  blocked: number;
  findings: ReplayFinding[];
  /** Per rule: the commits in which its detectors applied to an added file. */
  ran: Map<string, number>;
}

/** Runs git against a (possibly bare) git directory; throws on failure. */
export function gitIn(gitDir: string, args: string[]): string {
  const r = Bun.spawnSync(["git", "--git-dir", gitDir, "-c", "core.quotePath=false", ...args], {
    env: { PATH: process.env.PATH ?? "", LC_ALL: "C", GIT_CONFIG_NOSYSTEM: "1", HOME: "/nonexistent" },
  });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

/** The talents of the given specializations, as the playbook would serve them with `include=detectors`. */
export function stackTalents(talentsDir: string, specializations: readonly string[]) {
  const ids = new Set<string>();
  for (const s of readSpecializationDir(talentsDir)) {
    if (!specializations.includes(s.id)) continue;
    const m = /^talents:\s*\[([^\]]*)\]/m.exec(s.content);
    for (const id of (m?.[1] ?? "").split(",")) if (id.trim()) ids.add(id.trim());
  }
  const talents = readTalentDir(talentsDir)
    .sources.filter((s) => ids.has(s.folder))
    .map((s) => {
      const v = validateTalent(s);
      if (!v.talent) throw new Error(`${s.folder}: ${v.findings.map((f) => `${f.field}: ${f.problem}`).join("; ")}`);
      return v.talent;
    });
  // as the playbook serves them: findings block only where the rule's blocks is earned
  return talents.map((t) => ({
    id: t.id,
    triggers: { files: t.triggers?.files ?? [] },
    languages: t.languages,
    obligation: servedObligationOf(t),
    security: t.roles.includes("security"),
  }));
}

/**
 * Replays `check --base C^` over the last `count` first-parent commits of `head` (a merge is
 * compared with its first parent; the root commit is left out). One `git log -p` reads them all.
 */
export function replay(repo: string, gitDir: string, talents: ReturnType<typeof stackTalents>, count: number, head = "HEAD"): Replay {
  const log = gitIn(gitDir, [...historyLog(count, "%x01%H %P"), head]);
  const out: Replay = { commits: 0, blocked: 0, findings: [], ran: new Map() };
  for (const chunk of log.split("\x01")) {
    const nl = chunk.indexOf("\n");
    const [commit, parent] = (nl < 0 ? chunk : chunk.slice(0, nl)).trim().split(" ");
    if (!commit || !parent) continue; // the root commit has no C^
    out.commits++;
    const patch = nl < 0 ? "" : chunk.slice(nl + 1);
    const files = parseUnifiedDiff(patch).filter((f) => f.lines.length > 0);
    if (files.length === 0) continue;
    const paths = [...patch.matchAll(/^diff --git a\/(.*) b\/(.*)$/gm)].flatMap((m) => [m[1]!, m[2]!]);
    const designated = new Set(designate(talents, paths, []).map((d) => d.id));
    const obligations = talents.filter((t) => designated.has(t.id)).map((t) => t.obligation);
    if (obligations.length === 0) continue;
    const content = (path: string): string | null => {
      try {
        return gitIn(gitDir, ["show", `${commit}:${path}`]);
      } catch {
        return null;
      }
    };
    const result = runDetectors(obligations, files, content);
    if (result.findings.some((f) => f.severity === "blocking")) out.blocked++;
    for (const f of result.findings) out.findings.push({ ...f, repo, commit });
    for (const id of result.rulesRun) out.ran.set(id, (out.ran.get(id) ?? 0) + 1);
  }
  return out;
}

/** The key of a finding in labels.tsv: repo, short commit, path, line, rule. */
export const labelKey = (repo: string, commit: string, path: string, line: number, rule: string): string =>
  [repo, commit.slice(0, 12), path, String(line), rule].join("\t");

/** labels.tsv: `repo commit path line rule label why`, tab-separated, `#` comments. */
export function readLabels(file: string): Map<string, Label> {
  const labels = new Map<string, Label>();
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return labels;
  }
  for (const line of text.split("\n")) {
    if (!line.trim() || line.startsWith("#")) continue;
    const [repo, commit, path, n, rule, label] = line.split("\t");
    if (!repo || !commit || !path || !n || !rule || (label !== "true" && label !== "false" && label !== "debatable")) continue;
    labels.set(labelKey(repo, commit, path, Number(n), rule), label);
  }
  return labels;
}

export interface RuleRow {
  rule: string;
  severity: string;
  /** Commits in which the rule's detectors applied to an added file. */
  ran: number;
  findings: number;
  /** Commits in which the rule has a finding. */
  commits: number;
  labelled: { true: number; false: number; debatable: number };
}

/**
 * Per rule: the commits it ran on, its findings (a finding another rule leads, listing it in
 * `also`, counts for both, with the leader's label), the commits with one, and the labels of its
 * labelled findings; most findings first.
 */
export function tally(
  findings: readonly ReplayFinding[],
  labels: ReadonlyMap<string, Label>,
  ran: ReadonlyMap<string, number> = new Map(),
): RuleRow[] {
  const rows = new Map<string, RuleRow & { seen: Set<string> }>();
  const rowOf = (rule: string, severity: string): RuleRow & { seen: Set<string> } => {
    let row = rows.get(rule);
    if (!row) {
      row = {
        rule,
        severity,
        ran: ran.get(rule) ?? 0,
        findings: 0,
        commits: 0,
        labelled: { true: 0, false: 0, debatable: 0 },
        seen: new Set(),
      };
      rows.set(rule, row);
    }
    return row;
  };
  for (const f of findings) {
    const label = labels.get(labelKey(f.repo, f.commit, f.file, f.line, f.rule));
    for (const rule of [f.rule, ...(f.also ?? [])]) {
      const row = rowOf(rule, f.severity);
      row.findings++;
      const c = `${f.repo}\0${f.commit}`;
      if (!row.seen.has(c)) {
        row.seen.add(c);
        row.commits++;
      }
      if (label) row.labelled[label]++;
    }
  }
  for (const rule of ran.keys()) rowOf(rule, "");
  return [...rows.values()]
    .map(({ seen: _seen, ...r }) => r)
    .sort((a, b) => b.findings - a.findings || b.ran - a.ran || (a.rule < b.rule ? -1 : 1));
}

/** Precision of a labelled sample: true / (true + false); debatable findings count against it. Null with no label. */
export function precision(r: RuleRow): number | null {
  const n = r.labelled.true + r.labelled.false + r.labelled.debatable;
  return n === 0 ? null : r.labelled.true / n;
}

/** The labels file beside this module. */
export const LABELS = join(import.meta.dir, "labels.tsv");

/** The blocking rules of a replay and the commits each blocks, most first: "UT-002 12, TS-005 3". */
export function blockedBy(findings: readonly ReplayFinding[]): string {
  const commits = new Map<string, Set<string>>();
  for (const f of findings)
    if (f.severity === "blocking") commits.set(f.rule, (commits.get(f.rule) ?? new Set()).add(`${f.repo} ${f.commit}`));
  return [...commits]
    .sort((a, b) => b[1].size - a[1].size)
    .map(([rule, set]) => `${rule} ${set.size}`)
    .join(", ");
}
