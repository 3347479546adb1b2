/**
 * The client commands of the `talentd` binary (docs/design.md "The binary and its client"): prepare, playbook, check, hook
 * install, lock, ci verify, verify, import (importFiles.ts). They talk to a server with a project key (src/client/api.ts) and
 * read git (src/client/git.ts); nothing of the server's code is loaded, so a hook starts fast.
 *
 * Exit codes: 0 clean, 1 findings (check: a blocking finding; ci verify: any problem), 2 usage,
 * configuration or connection errors, a malformed answer — thrown as CliError, printed by main as one line.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import type { CommandLine } from "../cli/args";
import { CliError } from "../cli/errors";
import { call, serverOptions, type ServerOptions } from "./api";
import { runDetectors, type ServedObligation } from "./check";
import { findingsBody, reportsFindings, sendFindings } from "./findingsReport";
import { changedPaths, repoOf, repoPaths, requireRepo, type Repo } from "./git";
import { designate, type Designation } from "./match";
import { hookInstall } from "./hooks";
import { changeOf } from "./change";
import { list, note, print, printJson, stdoutDrained } from "./output";
import { ciVerify, lockCommand, verifyCommand } from "./lockCommands";
import { importCommand } from "./importFiles";
import { findingWhy, withHookRules, type HookChoice } from "./hookRules";
import { calibrateCommand } from "./calibrateCommand";
import { evalCommand } from "./eval/command";

type Run = Extract<CommandLine, { kind: "run" }>;

/**
 * Runs a client command; resolves to the exit code. Exit 1 means findings only: any other
 * failure, such as an answer of the wrong shape (a field missing, a list that is not one),
 * becomes a CliError, exit 2.
 */
export async function runClientCommand(cli: Run): Promise<number> {
  try {
    const code = await runCommand(cli, process.cwd());
    await stdoutDrained(); // the exit that follows would drop what a slow reader has not taken
    return code;
  } catch (e) {
    const err = e as { name?: string; code?: unknown; message?: string };
    if (err?.name === "CliError") throw e;
    if (typeof err?.code === "string") throw new CliError(`${cli.command.name}: ${err.message ?? String(e)}`); // the file system's
    const what = err?.message ?? String(e);
    throw new CliError(
      `${cli.command.name}: the server's answer is not what talentd ${pkg.version} expects (${what}): is TALENTD_URL a talentd server?`,
    );
  }
}

async function runCommand(cli: Run, cwd: string): Promise<number> {
  switch (cli.command.name) {
    case "prepare":
      return prepareCommand(cli, cwd);
    case "playbook":
      return playbookCommand(cli, cwd);
    case "check":
      return checkCommand(cli, cwd);
    case "hook install":
      return hookInstall(cli, cwd);
    case "calibrate":
      return calibrateCommand(cli, cwd);
    case "eval":
      return evalCommand(cli, cwd);
    case "lock":
      return lockCommand(cli, cwd);
    case "ci verify":
      return ciVerify(cli, cwd);
    case "import":
      return importCommand(cli, cwd);
    case "verify":
      return verifyCommand(cli, cwd);
    default:
      throw new Error(`client command "${cli.command.name}" has no implementation`);
  }
}

// ---- designation and resolutions

interface Prepared {
  resolutionId: string | null;
  designated: Designation[];
  paths: string[];
  response: any;
}

type Designable = { talents: { id: string; triggers?: { files?: string[] }; languages?: string[] }[] };
const fetchDesignable = (server: ServerOptions): Promise<Designable> => call<Designable>(server, "GET", "/api/prepare-task/designable");

/**
 * Designates from `paths` and `named` (GET designable, POST prepare-task); remembers the
 * resolution in the repository. `early`: the designable directory already requested.
 */
async function prepareFrom(
  server: ServerOptions,
  repo: Repo | null,
  paths: string[],
  named: string[],
  early?: Promise<Designable>,
): Promise<Prepared> {
  const designable = await (early ?? fetchDesignable(server));
  const designated = designate(designable.talents, paths, named);
  if (designated.length === 0) return { resolutionId: null, designated, paths, response: null };
  const response = await call(server, "POST", "/api/prepare-task", { talentIds: designated.map((d) => d.id) });
  if (repo) remember(repo, response.resolutionId);
  return { resolutionId: response.resolutionId, designated, paths, response };
}

function remember(repo: Repo, resolutionId: string): void {
  try {
    mkdirSync(dirname(repo.resolutionFile), { recursive: true });
    writeFileSync(repo.resolutionFile, resolutionId + "\n");
  } catch {
    // remembering is a convenience for `talentd playbook`; never a reason to fail
  }
}

async function lastResolution(cwd: string): Promise<string> {
  const repo = await repoOf(cwd);
  if (repo && existsSync(repo.resolutionFile)) {
    const id = readFileSync(repo.resolutionFile, "utf8").trim();
    if (id) return id;
  }
  throw new CliError("no RESOLUTION given and none prepared in this repository yet: run talentd prepare (or name a res_… id)");
}

async function prepareCommand(cli: Run, cwd: string): Promise<number> {
  const named = list(cli.flags.talent);
  if (cli.flags.staged && cli.args.length > 0) throw new CliError("prepare: give --staged or PATHs, not both");
  const repo = await repoOf(cwd);
  const root = repo?.root ?? null;
  let paths: string[];
  if (cli.flags.staged) {
    if (!root) throw new CliError(`prepare --staged needs a git repository: ${cwd} is not inside one`);
    paths = await changedPaths(root, { kind: "staged" });
    if (paths.length === 0 && named.length === 0)
      throw new CliError("prepare --staged: nothing staged (git add some files, or name PATHs or --talent ID)");
  } else {
    paths = repoPaths(cwd, root, cli.args);
    if (paths.length === 0 && named.length === 0)
      throw new CliError("prepare: nothing to designate from: give --staged, PATHs or --talent ID (see talentd prepare --help)");
  }
  const server = serverOptions(cli.flags, process.env);
  const p = await prepareFrom(server, repo, paths, named);
  if (cli.flags.json) {
    printJson({ ...(p.response ?? { resolutionId: null }), designated: p.designated, paths: p.paths });
    return 0;
  }
  if (!p.resolutionId) {
    print(`nothing designated: no active talent's triggers.files or languages match the ${paths.length} path(s)`);
    return 0;
  }
  const r = p.response;
  const why = new Map(p.designated.map((d) => [d.id, d.because === "--talent" ? "--talent" : whyDesignated(d.because)]));
  const rows = (r.talents as { id: string; version: string }[]).map((t) => [t.id, t.version, why.get(t.id) ?? ""]);
  print(`${r.resolutionId} (${r.talents.length} talent${r.talents.length === 1 ? "" : "s"}, ${r.tokens} tokens)`);
  print(table(rows));
  for (const pre of r.prerequisites ?? [])
    print(
      `prerequisite not designated: ${pre.id} (required by ` +
        `${pre.requiredBy.join(", ")}${pre.active ? "; active: add --talent " + pre.id : "; not active in the project"})`,
    );
  for (const c of r.conflicts ?? []) print(`conflict: ${c.a} × ${c.b}`);
  return 0;
}

/** A designation's reason in words: `src/a.ts matches **\/*.ts` or `src/a.ts is typescript`. */
const whyDesignated = (b: Exclude<Designation["because"], "--talent">): string =>
  "glob" in b ? `${b.path} matches ${b.glob}` : `${b.path} is ${b.language}`;

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]!.length))) ?? [];
  return rows
    .map(
      (r) =>
        "  " +
        r
          .map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c))
          .join("  ")
          .trimEnd(),
    )
    .join("\n");
}

async function playbookCommand(cli: Run, cwd: string): Promise<number> {
  const named = list(cli.flags.talent);
  if (named.length > 1) throw new CliError("playbook: --talent takes one talent (the detail of one at a time)");
  const server = serverOptions(cli.flags, process.env);
  const resolutionId = cli.args[0] ?? (await lastResolution(cwd));
  const q = new URLSearchParams({ resolutionId, ...(named[0] ? { talent: named[0] } : {}) });
  const p = await call(server, "GET", `/api/validation/playbook?${q}`);
  if (cli.flags.json) {
    printJson(p);
    return 0;
  }
  print(`Audit playbook of ${p.resolutionId}`);
  for (const step of p.procedure) print(step);
  for (const o of p.obligations) {
    print("");
    print(`${o.id} ${o.version}: ${oneLine(o.title)}${o.verdictRequired ? " (verdict required)" : ""}`);
    for (const r of o.rules) print(`  [${r.id}] ${r.severity.padEnd(8)} ${oneLine(r.title)}`);
  }
  if (p.detail) {
    const d = p.detail;
    print("", `Detail of ${d.id} ${d.version}`);
    for (const r of d.rules) {
      print(`  [${r.id}] ${r.severity} ${oneLine(r.title)}`, `    check: ${oneLine(r.check)}`);
      for (const x of r.detect ?? []) print(`    detect: /${x.pattern}/${x.flags ?? ""} in ${x.files.join(", ")}`);
      for (const t of d.tests.filter((t: { rule: string }) => t.rule === r.id))
        print(`    pass: ${oneLine(t.pass)}`, `    fail: ${oneLine(t.fail)}`);
    }
  }
  return 0;
}

const oneLine = (s: string): string => s.trim().replace(/\n/g, " ⏎ ");

// ---- check

async function checkCommand(cli: Run, cwd: string): Promise<number> {
  const modes = [
    cli.flags.staged && "--staged",
    cli.flags.base && "--base",
    cli.flags["pre-push"] && "--pre-push",
    cli.flags["commit-msg"] && "--commit-msg",
  ].filter(Boolean);
  if (modes.length > 1) throw new CliError(`check: give one of --staged, --base, --pre-push, --commit-msg (got ${modes.join(", ")})`);
  const repo = await requireRepo(cwd, "check");
  // the designable directory is asked for while git runs (one round trip less); an empty diff
  // ignores its answer, so a commit with nothing to check never waits on the server
  let early: Promise<Designable> | undefined;
  // one server (and so one run id) for every call of this run
  let run: ServerOptions | undefined;
  if (!cli.args[0]) {
    try {
      run = serverOptions(cli.flags, process.env, "check");
      early = fetchDesignable(run);
      early.catch(() => undefined);
    } catch {
      early = undefined; // reported below, once there is something to check
    }
  }
  const change = await changeOf(cli, repo.root, cwd);
  const { files, paths } = change;
  const named = list(cli.flags.talent);
  const emptyResult = (message: string, resolutionId: string | null = null): number => {
    if (cli.flags.json)
      printJson({ resolutionId, findings: [], blocking: 0, advisory: 0, checked: { files: files.length, lines: 0, rules: 0 }, message });
    else note(`talentd check: ${message}`);
    return 0;
  };
  // nothing to check needs no server: an empty commit is not blocked by one that is down
  if (files.length === 0) return emptyResult(change.nothing);
  const server = run ?? serverOptions(cli.flags, process.env, "check");
  const contents = change.contents(); // read while the server answers
  let resolutionId = cli.args[0];
  let designatedIds: string[] | null = null;
  if (!resolutionId) {
    const p = await prepareFrom(server, repo, paths, named, early);
    if (!p.resolutionId) return emptyResult(change.noTalent);
    resolutionId = p.resolutionId;
    designatedIds = p.designated.map((d) => d.id);
  }
  const playbook = await call<{ obligations: ServedObligation[]; hookRules?: Record<string, HookChoice>; hookRulesLocked?: string[] }>(
    server,
    "GET",
    `/api/validation/playbook?${new URLSearchParams({ resolutionId, include: "detectors" })}`,
  );
  // the pinned detectors, with the project's hook rules applied (block, advise, off)
  const obligations = withHookRules(playbook.obligations, playbook.hookRules);
  const checked = await contents;
  const result = runDetectors(obligations, files, (path) => checked.get(path) ?? null);
  for (const s of result.skipped) note(`talentd check: skipped a detector that cannot run here: ${s}`);
  // sent while the result is printed, and waited for at most REPORT_TIMEOUT_MS (src/client/findingsReport.ts)
  const report = reportsFindings(cli.flags, process.env)
    ? sendFindings(server, findingsBody(obligations, result, cli.args[0]))
    : Promise.resolve(null);
  const blocking = result.findings.filter((f) => f.severity === "blocking").length;
  const advisory = result.findings.length - blocking;
  const lines = files.reduce((n, f) => n + f.lines.length, 0);
  if (cli.flags.json) {
    printJson({
      resolutionId,
      findings: result.findings,
      blocking,
      advisory,
      checked: { files: files.length, lines, rules: result.rulesWithDetectors },
      skipped: result.skipped,
      ignored: result.ignored,
    });
  } else {
    // a rule blocking for review whose finding does not block says why: "advisory (hook: the project advises it)"
    const why = findingWhy(playbook.obligations, playbook.hookRules, playbook.hookRulesLocked);
    for (const f of result.findings) {
      const reason = f.severity === "advisory" ? why(f.rule) : null;
      print(`${f.file}:${f.line} ${f.rule} ${f.severity}${reason ? ` (hook: ${reason})` : ""} ${oneLine(f.title)}`);
    }
    const talents = designatedIds ?? obligations.map((o) => o.id);
    note(`talentd check: talents ${talentList(talents)}`);
    note(
      `talentd check: ${result.findings.length === 0 ? "no finding" : `${blocking} blocking, ${advisory} advisory`} ` +
        `in ${lines} added line(s) of ${files.length} file(s); ` +
        `${result.rulesWithDetectors} rule(s) with detectors from ${talents.length} talent(s), resolution ${resolutionId}` +
        (blocking > 0 ? ". Fix the blocking findings (or mark a deliberate line with talentd-ignore RULE-ID)." : ""),
    );
  }
  const failed = await report;
  if (failed && !cli.flags.json) note(failed);
  return blocking > 0 ? 1 : 0;
}

/** The talents a check ran, on one line: the first ten by id, then how many more. */
function talentList(ids: string[]): string {
  const shown = ids.slice(0, 10).join(", ");
  return ids.length > 10 ? `${shown} and ${ids.length - 10} more` : shown;
}
