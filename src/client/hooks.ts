/** `talentd hook install`: a git hook that runs `talentd check` (client/commands.ts) on each commit, commit message or push. */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import type { CommandLine } from "../cli/args";
import { CliError } from "../cli/errors";
import { serverOptions } from "./api";
import { gitPath, requireRepo } from "./git";
import { note, print } from "./output";
import { calibrateForInstall } from "./calibrateCommand";

type Run = Extract<CommandLine, { kind: "run" }>;

const HOOKS = ["pre-commit", "pre-push", "commit-msg"] as const;
const HOOK_MARK = "# installed by `talentd hook install";

/** The command line that runs this talentd: the binary itself, or bun and the entry file from a checkout. */
function selfCommand(): string[] {
  const compiled = import.meta.url.includes("/$bunfs/");
  return compiled ? [process.execPath] : [process.execPath, Bun.main];
}

/** The check a hook runs. */
const checkArgs = (hook: (typeof HOOKS)[number]): string =>
  hook === "pre-commit" ? "check --staged" : hook === "pre-push" ? "check --pre-push" : 'check --commit-msg "$1"';

/** What a hook checks, in words. */
const CHECKS: Record<(typeof HOOKS)[number], string> = {
  "pre-commit": "the staged changes",
  "pre-push": "the commits being pushed",
  "commit-msg": "the commit message",
};

const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The hook script: runs this talentd's check on the staged changes or the commits being pushed. */
export function hookScript(hook: (typeof HOOKS)[number], command: string[], url?: string): string {
  const args = checkArgs(hook);
  return [
    "#!/bin/sh",
    `${HOOK_MARK} ${hook}\` (talentd ${pkg.version}): checks ${CHECKS[hook]} against the rules`,
    `# of the talents ${hook === "commit-msg" ? "of the project's commit convention" : "their paths designate"} (talentd check --help). ` +
      "It needs TALENTD_KEY (and TALENTD_URL)",
    `# in the environment; skip it once with \`git ${hook === "pre-push" ? "push" : "commit"} --no-verify\`.`,
    ...(url ? [`: "\${TALENTD_URL:=${url.replace(/[`"$\\]/g, "")}}"`, "export TALENTD_URL"] : []),
    "TALENTD_RUN=hook",
    "export TALENTD_RUN",
    `exec ${command.map(shQuote).join(" ")} ${args}`,
    "",
  ].join("\n");
}

/** `talentd hook install [pre-commit|pre-push]`: writes the hook, keeping a foreign one only with --force. */
export async function hookInstall(cli: Run, cwd: string): Promise<number> {
  const hook = (cli.args[0] ?? "pre-commit") as (typeof HOOKS)[number];
  if (!HOOKS.includes(hook))
    throw new CliError(`hook install: "${cli.args[0]}" is not a hook talentd installs (pre-commit, pre-push or commit-msg)`);
  const { root } = await requireRepo(cwd, "hook install");
  if (typeof cli.flags.url === "string") serverOptions({ url: cli.flags.url, key: "-" }, {});
  const file = await gitPath(root, `hooks/${hook}`);
  let kept: string | null = null;
  if (existsSync(file)) {
    const existing = readFileSync(file, "utf8");
    if (!existing.includes(HOOK_MARK)) {
      if (!cli.flags.force)
        throw new CliError(
          `hook install: ${relative(cwd, file) || file} exists and is not talentd's: add \`talentd ${checkArgs(hook)}\` to it, ` +
            `or pass --force (it is kept as ${hook}.before-talentd)`,
        );
      kept = `${file}.before-talentd`;
      renameSync(file, kept);
    }
  }
  // the project chooses what blocks before the hook starts blocking (docs/design.md "What blocks a commit")
  if (!cli.flags["no-calibrate"]) await calibrateForInstall(cli, root);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, hookScript(hook, selfCommand(), typeof cli.flags.url === "string" ? cli.flags.url : undefined));
  chmodSync(file, 0o755);
  const previous = kept ? ` (the previous hook is kept as ${relative(cwd, kept)})` : "";
  print(`installed ${relative(cwd, file) || file}: runs talentd ${checkArgs(hook)}${previous}`);
  if (!process.env.TALENTD_KEY) note("talentd: TALENTD_KEY is not set in this shell: the hook needs it (and TALENTD_URL) when git runs it");
  return 0;
}
