/**
 * `talentd calibrate` (docs/design.md "What blocks a commit"): replays the repository's last N first-parent
 * commits through the designation and detectors `talentd check` uses, on this machine (no diff leaves it:
 * only talent ids go to the server, one prepare-task per distinct designation), and proposes, per rule
 * that would have blocked, to keep blocking or to only advise: a rule the team does not follow — it
 * would have blocked at least CALIBRATION.commits commits and CALIBRATION.share of the commits it ran
 * on — is proposed as advise. Security rules are never relaxed here. `--apply` makes the proposals the
 * project's hook rules (PUT /api/hook-rules, merged with the choices already made).
 */
import { withHookRules, type HookChoice } from "./hookRules";
import { call, type ServerOptions } from "./api";
import { runDetectors, type ServedObligation } from "./check";
import { blobsAt } from "./contents";
import { git, parseUnifiedDiff, type AddedFile } from "./git";
import { designate } from "./match";

/**
 * When the history says a team does not follow a rule: it would have blocked at least this many commits
 * and this share of the commits it ran on.
 */
export const CALIBRATION = { commits: 3, share: 0.05 } as const;
export const DEFAULT_HISTORY = 200;
/** Commits whose files are read in one `git cat-file --batch`. */
const BATCH = 25;

/** One rule's replay. */
export interface RuleReplay {
  rule: string;
  talent: string;
  /** Findings over the commits. */
  findings: number;
  /** Commits it would have blocked (a blocking finding of it), with the severity served now. */
  blocked: number;
  /** Commits whose added files its detectors applied to. */
  ranOn: number;
  /** What it does now (the served severity of its detectors). */
  now: "blocking" | "advisory";
  security: boolean;
  proposal: "keep" | "advise" | null;
  /** Why, in words. */
  why: string;
}

export interface Calibration {
  commits: number;
  /** Distinct designations, each prepared once. */
  designations: number;
  rules: RuleReplay[];
  /** Rules with detectors that ran and found nothing (left alone). */
  quiet: number;
  /** The choices to make: rule → advise. */
  proposals: Record<string, "advise">;
}

interface Commit {
  sha: string;
  files: AddedFile[];
  paths: string[];
}

/**
 * The `git log` arguments of a replay of history (calibrate, the precision harness): the last `n` first-parent commits
 * (a merge against its first parent), each as `format` then its patch with no context lines, renames found.
 */
export function historyLog(n: number, format: string): string[] {
  return [
    "log",
    "--first-parent",
    "--diff-merges=first-parent",
    `--max-count=${n}`,
    `--format=${format}`,
    "--no-color",
    "--no-ext-diff",
    "--unified=0",
    "--find-renames",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "-p",
  ];
}

/** The last `n` first-parent commits ending at `rev`, each with the lines it added and the paths it touched (one git process). */
export async function historyOf(root: string, rev: string, n: number): Promise<Commit[]> {
  if (!(await git(root, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`])).ok) return [];
  const r = await git(root, [...historyLog(n, "%x01%H"), rev, "--"]);
  if (!r.ok) return [];
  const commits: Commit[] = [];
  // an added line always starts with "+": a line starting with \x01 is a commit's header
  for (const chunk of r.stdout.split("\n\x01").map((c, i) => (i === 0 ? c.replace(/^\x01/, "") : c))) {
    const nl = chunk.indexOf("\n");
    const sha = (nl < 0 ? chunk : chunk.slice(0, nl)).trim();
    if (!/^[0-9a-f]{40,64}$/.test(sha)) continue;
    const body = nl < 0 ? "" : chunk.slice(nl + 1);
    const paths = new Set<string>();
    for (const m of body.matchAll(/^diff --git a\/(.*?) b\/(.*)$/gm)) paths.add(m[2]!);
    const files = parseUnifiedDiff(body).filter((f) => f.lines.length > 0);
    for (const f of files) paths.add(f.path); // a quoted path ("a/sp ace") is read from its +++ line
    commits.push({ sha, files, paths: [...paths] });
  }
  return commits;
}

type Designable = { talents: { id: string; triggers?: { files?: string[] }; languages?: string[] }[] };

/**
 * Replays the commits: each designated as `check` designates, each distinct designation prepared once
 * and its playbook's detectors fetched once, then run over the commit's added lines with its files as
 * they were in that commit for context. Returns per rule what it found and would have blocked.
 */
export async function calibrate(
  server: ServerOptions,
  root: string,
  commits: Commit[],
  security: ReadonlySet<string>,
): Promise<Calibration> {
  const designable = commits.length > 0 ? await call<Designable>(server, "GET", "/api/prepare-task/designable") : { talents: [] };
  const playbooks = new Map<string, Promise<ServedObligation[]>>();
  const playbookOf = (ids: string[]): Promise<ServedObligation[]> => {
    const key = [...ids].sort().join("\n");
    let p = playbooks.get(key);
    if (!p) {
      p = (async () => {
        const prepared = await call(server, "POST", "/api/prepare-task", { talentIds: ids });
        const q = new URLSearchParams({ resolutionId: prepared.resolutionId, include: "detectors" });
        const pb = await call<{ obligations: ServedObligation[]; hookRules?: Record<string, HookChoice> }>(
          server,
          "GET",
          `/api/validation/playbook?${q}`,
        );
        return withHookRules(pb.obligations, pb.hookRules);
      })();
      playbooks.set(key, p);
    }
    return p;
  };
  const stats = new Map<string, RuleReplay>();
  const statOf = (rule: string, talent: string, now: RuleReplay["now"]): RuleReplay => {
    let s = stats.get(rule);
    if (!s) {
      s = { rule, talent, findings: 0, blocked: 0, ranOn: 0, now, security: security.has(rule), proposal: null, why: "" };
      stats.set(rule, s);
    }
    return s;
  };
  for (let at = 0; at < commits.length; at += BATCH) {
    const batch = commits.slice(at, at + BATCH).filter((c) => c.files.length > 0);
    const contents = await blobsAt(
      root,
      batch.flatMap((c) => c.files.map((f) => `${c.sha}:${f.path}`)),
    );
    for (const c of batch) {
      const designated = designate(designable.talents, c.paths, []);
      if (designated.length === 0) continue;
      const obligations = await playbookOf(designated.map((d) => d.id));
      const result = runDetectors(obligations, c.files, (path) => contents.get(`${c.sha}:${path}`) ?? null);
      const served = new Map<string, { talent: string; now: RuleReplay["now"] }>();
      for (const o of obligations)
        for (const r of o.rules)
          if (r.detect && r.detect.length > 0) served.set(r.id, { talent: o.id, now: r.detect[0]!.severity ?? r.severity });
      for (const rule of result.rulesRun) {
        const s = served.get(rule);
        if (s) statOf(rule, s.talent, s.now).ranOn++;
      }
      const blockedBy = new Set<string>();
      for (const f of result.findings) {
        for (const rule of [f.rule, ...(f.also ?? [])]) {
          const s = served.get(rule);
          if (!s) continue;
          statOf(rule, s.talent, s.now).findings++;
          if (s.now === "blocking") blockedBy.add(rule);
        }
      }
      for (const rule of blockedBy) stats.get(rule)!.blocked++;
    }
  }
  const rules = [...stats.values()].filter((s) => s.findings > 0).sort((a, b) => b.blocked - a.blocked || b.findings - a.findings);
  const proposals: Record<string, "advise"> = {};
  for (const s of rules) judge(s, proposals);
  return { commits: commits.length, designations: playbooks.size, rules, quiet: stats.size - rules.length, proposals };
}

/** The proposal for one rule with findings, and why (also what the precision harness's calibrated mode applies). */
export function proposalOf(s: Pick<RuleReplay, "blocked" | "ranOn" | "now" | "security">): {
  proposal: RuleReplay["proposal"];
  why: string;
} {
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  const share = s.ranOn > 0 ? s.blocked / s.ranOn : 0;
  if (s.now === "advisory") return { proposal: null, why: "advisory already: it blocks nothing" };
  const counts = `would have blocked ${s.blocked} of ${s.ranOn} commit(s) (${pct(share)})`;
  if (s.blocked < CALIBRATION.commits || share < CALIBRATION.share) return { proposal: "keep", why: `${counts}: the team follows it` };
  if (s.security) return { proposal: "keep", why: `${counts}, but a security rule: calibration never relaxes it` };
  return { proposal: "advise", why: `${counts}: the team does not follow it` };
}

/** The proposal for one rule with findings, noted on it and, for advise, among the proposals. */
function judge(s: RuleReplay, proposals: Record<string, "advise">): void {
  const { proposal, why } = proposalOf(s);
  s.proposal = proposal;
  s.why = why;
  if (proposal === "advise") proposals[s.rule] = "advise";
}

type HookRulesAnswer = { rules: { rule: string; choice: string | null; security: boolean }[] };

/** The project's hook rules (GET /api/hook-rules): the security rules and the choices already made. */
export async function currentHookRules(server: ServerOptions): Promise<{ security: Set<string>; choices: Record<string, string> }> {
  const r = await call<HookRulesAnswer>(server, "GET", "/api/hook-rules");
  const choices: Record<string, string> = {};
  for (const x of r.rules) if (x.choice !== null) choices[x.rule] = x.choice;
  return { security: new Set(r.rules.filter((x) => x.security).map((x) => x.rule)), choices };
}

/** Makes the proposals the project's hook rules, merged with its choices: PUT /api/hook-rules (scope install). */
export async function applyProposals(server: ServerOptions, choices: Record<string, string>, proposals: Record<string, "advise">) {
  return call<{ changed: number }>(server, "PUT", "/api/hook-rules", { rules: { ...choices, ...proposals } });
}
