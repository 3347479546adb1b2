/**
 * `talentd calibrate [--history N] [--until REV] [--apply]` and the calibration `talentd hook install` runs
 * first (calibrate.ts replays; this prints, applies and says what blocks from now on).
 */
import type { CommandLine } from "../cli/args";
import { CliError } from "../cli/errors";
import { call, serverOptions, type ServerOptions } from "./api";
import {
  applyProposals,
  CALIBRATION,
  calibrate,
  currentHookRules,
  DEFAULT_HISTORY,
  historyOf,
  skipLocked,
  type Calibration,
} from "./calibrate";
import { requireRepo } from "./git";
import { note, print, printJson } from "./output";

type Run = Extract<CommandLine, { kind: "run" }>;

const HISTORY_MAX = 10_000;

/** `--history N`: a whole number from 1 to HISTORY_MAX (default DEFAULT_HISTORY). */
function historyFlag(v: unknown, command: string): number {
  if (v === undefined) return DEFAULT_HISTORY;
  const n = Number(v);
  if (typeof v !== "string" || !/^\d+$/.test(v) || n < 1 || n > HISTORY_MAX)
    throw new CliError(`${command}: --history takes a number of commits from 1 to ${HISTORY_MAX} (got ${JSON.stringify(v)})`);
  return n;
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
const THRESHOLD = `≥ ${CALIBRATION.commits} commits and ≥ ${pct(CALIBRATION.share)} of the commits it ran on`;

/** What `talentd calibrate` and `hook install` print of a calibration. */
function printCalibration(c: Calibration, rev: string, prefix: string): void {
  print(
    `${prefix}: ${c.commits} first-parent commit(s) up to ${rev} replayed locally ` +
      `(${c.designations} designation(s) prepared; no diff left this machine)`,
  );
  if (c.rules.length > 0) {
    const rows = [
      ["rule", "talent", "findings", "blocked", "ran on", "proposal"],
      ...c.rules.map((r) => [r.rule, r.talent, String(r.findings), String(r.blocked), String(r.ranOn), `${r.proposal ?? "-"}: ${r.why}`]),
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows) print("  " + r.map((x, i) => (i < r.length - 1 ? x.padEnd(widths[i]!) : x)).join("  "));
  }
  if (c.quiet > 0) print(`${c.quiet} other rule(s) with detectors ran and found nothing: left alone`);
  if (c.commits > 0 && c.rules.length === 0 && c.quiet === 0) print("no rule with a detector ran on these commits: nothing to propose");
}

/** Applies the proposals; a line saying what happened (a refusal for scope is said, not thrown, when `lenient`). */
async function apply(server: ServerOptions, c: Calibration, choices: Record<string, string>, lenient: boolean): Promise<string | null> {
  const ids = Object.keys(c.proposals);
  if (ids.length === 0) return null;
  try {
    const r = await applyProposals(server, choices, c.proposals);
    return `applied: ${ids.join(", ")} now advise${ids.length === 1 ? "s" : ""} (${r.changed} change(s) to the project's hook rules)`;
  } catch (e) {
    if (!lenient || !String((e as Error).message).includes("insufficient_scope")) throw e;
    return `not applied: the key lacks the install scope that PUT /api/hook-rules needs; apply with such a key: talentd calibrate --apply`;
  }
}

/** `talentd calibrate`. Exit 0 (a proposal is not a failure); 2 on usage, configuration or connection errors. */
export async function calibrateCommand(cli: Run, cwd: string): Promise<number> {
  const n = historyFlag(cli.flags.history, "calibrate");
  const rev = typeof cli.flags.until === "string" ? cli.flags.until : "HEAD";
  const repo = await requireRepo(cwd, "calibrate");
  const server = serverOptions(cli.flags, process.env, "calibrate");
  const [commits, current] = await Promise.all([historyOf(repo.root, rev, n), currentHookRules(server)]);
  if (commits.length === 0 && rev !== "HEAD") throw new CliError(`calibrate: --until ${rev}: no such commit in this repository`);
  const c = await calibrate(server, repo.root, commits, current.security);
  const locked = skipLocked(c, current.locks);
  const applied = cli.flags.apply ? await apply(server, c, current.choices, false) : null;
  if (cli.flags.json) {
    printJson({ ...c, until: rev, threshold: CALIBRATION, applied: cli.flags.apply === true && applied !== null, locked });
    return 0;
  }
  printCalibration(c, rev, "talentd calibrate");
  if (locked.length > 0) print(lockedLine(locked, current.locks));
  const ids = Object.keys(c.proposals);
  if (ids.length === 0 && locked.length === 0) print(`nothing to relax: no rule would have blocked ${THRESHOLD}`);
  else if (ids.length === 0) print("nothing else to relax");
  else if (applied) print(applied);
  else
    print(
      `proposal: ${ids.join(", ")} → advise ` +
        `(the history shows the team does not follow ${ids.length === 1 ? "it" : "them"}: ${THRESHOLD}). ` +
        "Apply it with talentd calibrate --apply (a key with the install scope), or on the project's hook rules in the dashboard.",
    );
  return 0;
}

/**
 * The calibration `talentd hook install` runs before it writes the hook: prints the proposal, applies it when
 * the key holds install (else says so), and says what blocks from now on. Never fails the install: a
 * problem (no key, no server) is one line.
 */
export async function calibrateForInstall(cli: Run, root: string): Promise<void> {
  try {
    if (!process.env.TALENTD_KEY && typeof cli.flags.key !== "string") {
      note("talentd hook install: not calibrated (no TALENTD_KEY): run talentd calibrate once it is set");
      return;
    }
    const server = serverOptions(cli.flags, process.env, "calibrate");
    const n = historyFlag(cli.flags.history, "hook install");
    const [commits, current] = await Promise.all([historyOf(root, "HEAD", n), currentHookRules(server)]);
    if (commits.length > 0) {
      const c = await calibrate(server, root, commits, current.security);
      const locked = skipLocked(c, current.locks);
      printCalibration(c, "HEAD", "talentd hook install: calibration");
      if (locked.length > 0) print(lockedLine(locked, current.locks));
      const line = await apply(server, c, current.choices, true);
      if (line) print(line);
    } else print("talentd hook install: no commit yet: nothing to calibrate");
    const after = await call<{ rules: { rule: string; effective: string }[] }>(server, "GET", "/api/hook-rules");
    const blocking = after.rules.filter((r) => r.effective === "block").map((r) => r.rule);
    const advising = after.rules.filter((r) => r.effective === "advise").length;
    print(
      `from now on: ${blocking.length} rule(s) block a commit${blocking.length > 0 ? ` (${shortList(blocking)})` : ""}; ` +
        `${advising} only advise`,
    );
  } catch (e) {
    note(`talentd hook install: not calibrated (${(e as Error).message}); the hook is installed all the same`);
  }
}

/** The line saying which rules calibration left because the organization's policy locks them. */
const lockedLine = (ids: string[], locks: Record<string, string>): string =>
  `skipped: ${ids.map((r) => `${r} (locked to ${locks[r]})`).join(", ")}: locked by the organization's policy, ` +
  "calibration leaves locked rules as they are (an owner or admin changes a lock at /org/policy)";

const shortList = (ids: string[]): string =>
  ids.length > 12 ? `${ids.slice(0, 12).join(", ")} and ${ids.length - 12} more` : ids.join(", ");
