/**
 * The command table: every command of talentd, its arguments, flags, description and the
 * environment-only settings it reads. Data only; the parser and usage texts are in args.ts.
 */
import { CONFIG_FLAGS, type ConfigFlag } from "../config";
import { CALIBRATE_FLAGS, CALIBRATE_SPEC } from "./calibrateSpec";
import { EVAL_FLAGS, EVAL_SPEC } from "./evalSpec";
import { ENV_ONLY } from "./envSettings";

export { ENV_ONLY };

/** One flag: its value placeholder, the variable it overrides, its help line. */
export interface FlagSpec {
  /** The value's placeholder (`N`, `DIR`); absent for a flag that takes no value. */
  value?: string;
  /** The environment variable the flag overrides (configuration flags only). */
  env?: string;
  /** The environment variable a client flag overrides (shown in the usage; read by the client). */
  clientEnv?: string;
  /** May be given more than once: the values are collected in order. */
  multiple?: boolean;
  help: string;
}

/** Every flag of every command. A command accepts the subset it lists (`CommandSpec.flags`). */
export const FLAGS: Record<string, FlagSpec> = {
  port: { value: "N", env: CONFIG_FLAGS.port, help: "default 8787" },
  host: { value: "H", env: CONFIG_FLAGS.host, help: "default 0.0.0.0 (all interfaces)" },
  "base-url": { value: "URL", env: CONFIG_FLAGS["base-url"], help: "default http://localhost:PORT: the URL agents and browsers use" },
  "data-dir": { value: "DIR", env: CONFIG_FLAGS["data-dir"], help: "default ./data" },
  "database-url": { value: "U", env: CONFIG_FLAGS["database-url"], help: "default file:DATA_DIR/talentd.db" },
  "talents-dir": { value: "DIR", env: CONFIG_FLAGS["talents-dir"], help: "extra catalog folder merged over the embedded one" },
  "log-level": { value: "L", env: CONFIG_FLAGS["log-level"], help: "debug|info|warn|error (default info)" },
  email: { value: "E", help: "the administrator's e-mail address" },
  project: { value: "ID", help: "export this project's active selection, read from the database (DATA_DIR or DATABASE_URL)" },
  "password-stdin": { help: "read the password from standard input (first line)" },
  // the client (docs/design.md): talks to a server with a project key
  url: { value: "URL", clientEnv: "TALENTD_URL", help: "the talentd server" },
  key: { value: "KEY", clientEnv: "TALENTD_KEY", help: "a project key (prefer the environment: a flag shows in ps)" },
  timeout: { value: "S", clientEnv: "TALENTD_TIMEOUT", help: "seconds to wait for each answer of the server (default 10)" },
  json: { help: "print JSON for scripts instead of text" },
  staged: { help: "the staged changes (git diff --cached)" },
  talent: { value: "ID", multiple: true, help: "designate this talent too (repeatable)" },
  base: { value: "REF", help: "the changes since REF (git diff REF...HEAD), e.g. origin/main in CI" },
  "pre-push": { help: "the commits being pushed, read from a pre-push hook's standard input" },
  "commit-msg": { value: "FILE", help: "a commit message (a commit-msg hook's file), checked as .git/COMMIT_EDITMSG" },
  lock: { value: "FILE", help: "the lock file (default .talentd/lock.json at the repository root)" },
  keys: {
    value: "FILE",
    help: "the public key set: /.well-known/jwks.json saved, or a lock file (default the lock file's, else the server's)",
  },
  resolution: {
    value: "FILE",
    help: "with a report's answer: its resolution's saved prepare-task answer or playbook, which it must belong to",
  },
  force: { help: "replace a hook that talentd did not install (kept as <hook>.before-talentd)" },
  "dry-run": { help: "list the migrations that would run, with their statements; change nothing" },
  local: { help: "check this machine's data folder (no server needed)" },
  ...CALIBRATE_FLAGS,
  ...EVAL_FLAGS,
  "no-report": { help: "do not report the findings' counts per rule to the server (or set TALENTD_REPORT=0)" },
  help: { help: "print this text and exit" },
};

/** One command: its name (two words for `admin create`, `talents lint`), arguments and flags. */
export interface CommandSpec {
  name: string;
  /** One line for `talentd --help`. */
  summary: string;
  /** A few lines for `talentd <command> --help`. */
  description: string;
  /** Positional arguments, all required unless `optional`; a `variadic` last one takes any number. */
  args: { name: string; help: string; optional?: boolean; variadic?: boolean }[];
  /** The flags it accepts (`--help` always). */
  flags: string[];
  /** Flags that must be given. */
  required: string[];
  /** Settings read from the environment only that matter to this command. */
  env: string[];
  /** A shared flag this command reads its own way: its help line here (eval's --timeout). */
  flagHelp?: Record<string, string>;
}

const CLIENT = ["url", "key", "timeout", "json"];
const CLIENT_EXIT = "Exit codes: 0 clean, 1 findings, 2 usage, configuration or connection errors (one line).";

/** `serve` reads every setting of the environment. */
const SERVE_ENV = (): string[] => Object.keys(ENV_ONLY);

/** The commands, in the order `talentd --help` lists them. */
export const COMMANDS: CommandSpec[] = [
  {
    name: "serve",
    summary: "run the HTTP server (the default command)",
    description:
      "Runs the HTTP server: key API, /web, setup and sign-in pages, MCP, OAuth. Creates DATA_DIR and\n" +
      "the database, applies migrations (after a verified backup in DATA_DIR/backups when there are\n" +
      "any), loads the catalog, then listens. Refuses a database migrated by a newer talentd.\n" +
      "SIGTERM or SIGINT drains in-flight requests and exits 0; SIGHUP reloads the catalog\n" +
      "(TALENTS_DIR). A port already in use stops the start (exit 2).",
    args: [],
    flags: ["port", "host", "base-url", "data-dir", "database-url", "talents-dir", "log-level"],
    required: [],
    get env() {
      return SERVE_ENV();
    },
  },
  {
    name: "admin create",
    summary: "create a platform admin (or promote an existing user)",
    description:
      "Creates a platform administrator with the password read from standard input, or gives an\n" +
      "existing account of that e-mail the admin role. Applies migrations first. Example:\n" +
      '  echo "$PASSWORD" | talentd admin create --email admin@example.com --password-stdin',
    args: [],
    flags: ["email", "password-stdin", "data-dir", "database-url", "log-level"],
    required: ["email", "password-stdin"],
    env: ["LOG_FORMAT", "DATABASE_AUTH_TOKEN"],
  },
  {
    name: "migrate",
    summary: "apply database migrations (after a backup) and exit; --dry-run lists them",
    description:
      "Applies the migrations this binary embeds and exits (serve does it too), after a verified\n" +
      "backup to DATA_DIR/backups/pre-migrate-<time>.db when any is pending. Idempotent. Refuses a\n" +
      "database migrated by a newer talentd. --dry-run lists what would run and changes nothing.",
    args: [],
    flags: ["dry-run", "data-dir", "database-url"],
    required: [],
    env: ["DATABASE_AUTH_TOKEN"],
  },
  {
    name: "migrate-to",
    summary: "copy the embedded database into an empty PostgreSQL database",
    description:
      "Moves an embedded instance into PostgreSQL: migrates the target, refuses one that already holds\n" +
      "data, copies every table of DATA_DIR's database (or a file: DATABASE_URL) in one transaction,\n" +
      "prints the rows per table and checks each count. Stop the server first. The signing keys stay\n" +
      "in DATA_DIR/signing-keys.json: copy that file to every replica. Example:\n" +
      "  talentd migrate-to postgres://talentd:PASSWORD@db.internal:5432/talentd",
    args: [{ name: "URL", help: "the target: postgres://USER:PASSWORD@HOST:PORT/DATABASE" }],
    flags: ["data-dir", "database-url"],
    required: [],
    env: [],
  },
  {
    name: "talents lint",
    summary: "validate talent folders; exit 1 with file: field: problem lines",
    description:
      "Validates every talent folder in DIR as the server would load it (links may point at the\n" +
      "embedded catalog). Prints one `file: field: problem` line per finding; exit 1 if any. For an\n" +
      "Agent Skills folder, `note: file: field: …` lines name what no talent field carries (exit 0).",
    args: [{ name: "DIR", help: "a folder of talent folders (as TALENTS_DIR)" }],
    flags: [],
    required: [],
    env: [],
  },
  {
    name: "talents export",
    summary: "write the catalog (or a project's selection) as Agent Skills folders",
    description:
      "Writes every talent of the catalog (the embedded one with TALENTS_DIR over it) as an Agent\n" +
      "Skills folder DIR/<name>/ (SKILL.md and its other files: the bytes the MCP Skills extension\n" +
      "serves). With --project, that project's active talents and expertises instead, read from the\n" +
      "database (the server need not run). DIR must be new or empty. `talents lint DIR` reads it back.",
    args: [{ name: "DIR", help: "the folder to write (new or empty)" }],
    flags: ["project", "talents-dir", "data-dir", "database-url"],
    required: [],
    env: ["DATABASE_AUTH_TOKEN"],
  },
  {
    name: "backup",
    summary: "consistent snapshot of the database (VACUUM INTO), verified",
    description:
      "Writes a consistent snapshot of the database to FILE with VACUUM INTO (the server may be\n" +
      "running), then checks the copy with PRAGMA integrity_check. Refuses an existing FILE.\n" +
      "Applies no migration: back up before an upgrade. A FILE named like a flag goes after --.",
    args: [{ name: "FILE", help: "the snapshot to write (must not exist)" }],
    flags: ["data-dir", "database-url"],
    required: [],
    env: ["DATABASE_AUTH_TOKEN"],
  },
  {
    name: "restore",
    summary: "put a backup in place of a stopped server's database",
    description:
      "Checks FILE (integrity_check, a talentd database, no migration newer than this binary), then\n" +
      "replaces the database with a copy of it. Refuses while another process (a running server)\n" +
      "has the database open: stop the server first and start it after. The database it replaces\n" +
      "is kept as DATA_DIR/backups/pre-restore-<time>.db.",
    args: [{ name: "FILE", help: "a backup (talentd backup, or DATA_DIR/backups/*.db)" }],
    flags: ["data-dir", "database-url"],
    required: [],
    env: [],
  },
  {
    name: "doctor",
    summary: "check the data folder (--local: no server needed)",
    description:
      "Checks this machine's data folder: permissions, free disk, integrity_check, WAL size,\n" +
      "pending or unknown migrations, the catalog (embedded + TALENTS_DIR) and, with\n" +
      "BACKUP_INTERVAL, that scheduled backups are not overdue. Safe beside a running server.\n" +
      "Exit codes: 0 all ok, 3 warnings only, 1 a check failed, 2 usage.",
    args: [],
    flags: ["local", "data-dir", "database-url", "talents-dir"],
    required: ["local"],
    env: ["BACKUP_INTERVAL"],
  },
  {
    name: "prepare",
    summary: "designate talents from paths (triggers.files) and print the resolution",
    description:
      "Designates the project's active talents whose triggers.files globs match the paths (the staged\n" +
      "ones with --staged, or the PATHs given; repository-relative, matched with picomatch), plus each\n" +
      "--talent ID, then prepares a task with exactly those (POST /api/prepare-task) and prints the\n" +
      "resolution. Nothing else is guessed; no match designates nothing (exit 0). Needs TALENTD_URL and\n" +
      "TALENTD_KEY (scope prepare_task). " +
      CLIENT_EXIT,
    args: [{ name: "PATH…", help: "paths to designate from (instead of --staged)", optional: true, variadic: true }],
    flags: ["staged", "talent", ...CLIENT],
    required: [],
    env: [],
  },
  {
    name: "playbook",
    summary: "print the audit playbook of a resolution",
    description:
      "Prints the audit playbook of RESOLUTION (default: the last one prepare or check made in this\n" +
      "repository): the procedure and every obligation with its rules; with --talent ID, that talent's\n" +
      "rules with their check, detectors and conformance tests. Scope validate. " +
      CLIENT_EXIT,
    args: [{ name: "RESOLUTION", help: "a resolutionId (res_…)", optional: true }],
    flags: ["talent", ...CLIENT],
    required: [],
    env: [],
  },
  {
    name: "check",
    summary: "run the served rules' detectors over the added lines of a diff, locally",
    description:
      "Checks the added lines of the diff (--staged: the index; --base REF: REF...HEAD; --pre-push: the\n" +
      "commits a pre-push hook is given; default: the working tree against HEAD) with the detectors of\n" +
      "the rules RESOLUTION served. Without RESOLUTION it designates from the diff's paths as prepare\n" +
      "does. --commit-msg FILE checks a commit message instead, with the detectors of the active talents\n" +
      "whose triggers.files name .git/COMMIT_EDITMSG (conventional-commits, git-commit-messages).\n" +
      "Prints `file:line RULE-ID severity title` per finding. The diff never leaves the machine:\n" +
      "only talent ids go to the server. A line holding `talentd-ignore RULE-ID` is not reported for\n" +
      "that rule. Afterwards it reports how many findings each rule had (counts only, no path, line\n" +
      "or code; --no-report or TALENTD_REPORT=0 to skip). Scopes prepare_task (without RESOLUTION)\n" +
      "and validate.\n" +
      "Exit codes: 0 clean or advisory findings only, 1 a blocking finding, 2 usage, configuration or\n" +
      "connection errors (one line).",
    args: [{ name: "RESOLUTION", help: "a resolutionId (default: designate from the diff's paths)", optional: true }],
    flags: ["staged", "base", "pre-push", "commit-msg", "talent", "no-report", ...CLIENT],
    required: [],
    env: [],
  },
  {
    name: "hook install",
    summary: "install a git hook that runs talentd check (pre-commit, pre-push or commit-msg)",
    description:
      "Writes the repository's HOOK (default pre-commit; core.hooksPath is followed): pre-commit runs\n" +
      "`talentd check --staged`, pre-push `talentd check --pre-push`, commit-msg `talentd check\n" +
      "--commit-msg` on the message git gives it, with this talentd. The hook reads\n" +
      "TALENTD_URL and TALENTD_KEY from the environment (--url writes a default URL into it; a key is\n" +
      "never written). A hook talentd did not install is kept unless --force. Skip the hook once with\n" +
      "`git commit --no-verify`. First it calibrates (talentd calibrate; --no-calibrate skips it): the\n" +
      "proposal is applied when the key holds install, and it says which rules block from now on; a\n" +
      "calibration that cannot run is one line, never a failure. Exit codes: 0 installed, 2 usage errors (one line).",
    args: [{ name: "HOOK", help: "pre-commit (default), pre-push or commit-msg", optional: true }],
    flags: ["url", "key", "timeout", "force", "no-calibrate", "history"],
    required: [],
    env: [],
  },
  CALIBRATE_SPEC,
  EVAL_SPEC,
  {
    name: "lock",
    summary: "write .talentd/lock.json: the project's selection with versions and digests",
    description:
      "Writes the lock file (--lock FILE, default .talentd/lock.json at the repository root): every\n" +
      "installed talent of the key's project with its kind, state, version and content digest, sorted by\n" +
      "id, so that `talentd ci verify` can tell when the project no longer matches it. Commit it.\n" +
      "Scope doctor. Exit codes: 0 written, 2 usage, configuration or connection errors (one line).",
    args: [],
    flags: ["lock", ...CLIENT],
    required: [],
    env: [],
  },
  {
    name: "ci verify",
    summary: "fail on missing prerequisites, conflicts, or a lock that no longer matches the server",
    description:
      "For CI: asks the server's doctor about the key's project and compares the lock file with the\n" +
      "project's selection. Fails on missing or disabled prerequisites, conflicts, installed talents that\n" +
      "can no longer be served, a missing lock file, and every difference between the lock and the\n" +
      "server (a talent added or removed, another version, state or digest), and every difference between\n" +
      "the signing keys the lock recorded and the server's key set. Scope doctor.\n" +
      "Exit codes: 0 consistent and matching, 1 problems (one line each), 2 usage, configuration or\n" +
      "connection errors (one line).",
    args: [],
    flags: ["lock", ...CLIENT],
    required: [],
    env: [],
  },
  {
    name: "verify",
    summary: "check a saved resolution or receipt against the instance's signing keys, offline",
    description:
      "Checks FILE, a saved prepare-task answer, playbook, report answer or compact JWS: its signature\n" +
      "against the public key set, the signing key's window, and that every field the answer's reader acts\n" +
      "on is what was signed: each talent (none missing, none added) with its version, digest and served\n" +
      "text, the prerequisites, conflicts and next steps, the playbook's rules, severities, detectors,\n" +
      "details and required verdicts, a report's verdicts (with --resolution FILE: that they are the verdicts\n" +
      "of that resolution); a field missing is refused. The keys: --keys FILE, else the\n" +
      "lock file's (recorded by talentd lock), else the server's set (TALENTD_URL); the source is printed.\n" +
      "Exit codes: 0 valid, 1 not valid (one line naming what differs), 2 usage (one line).",
    args: [{ name: "FILE", help: "the saved answer (JSON) or a compact JWS" }],
    flags: ["keys", "lock", "url", "timeout", "resolution"],
    required: [],
    env: [],
  },
  {
    name: "import",
    summary: "import rule files (AGENTS.md, CLAUDE.md, .mdc, Copilot instructions…) as expertise drafts",
    description:
      "Reads each PATH here (AGENTS.md, CLAUDE.md, GEMINI.md, .cursor/rules/*.mdc, .cursorrules,\n" +
      ".github/copilot-instructions.md, .github/instructions/*.instructions.md) and sends its text, with\n" +
      "its path from the repository root, to the server: each file becomes a draft expertise of the\n" +
      "key's organization (rules from its imperative bullets, all advisory; triggers from its globs or\n" +
      "folder; the text kept as its body). Nothing is published: review each draft in the dashboard.\n" +
      "At most 20 files, 128 KiB each. Scope import, on a key created by an owner or admin.\n" +
      "Exit codes: 0 imported, 2 usage, configuration, connection errors or a refusal (one line).",
    args: [{ name: "PATH…", help: "the rule files to import", variadic: true }],
    flags: [...CLIENT],
    required: [],
    env: [],
  },
  {
    name: "keys rotate",
    summary: "retire the instance's signing key and make a new one (the old one still verifies)",
    description:
      "Writes a new Ed25519 key to DATA_DIR/signing-keys.json and retires the current one: it stays in\n" +
      "/.well-known/jwks.json with the window in which it signed. A running server signs with the new key\n" +
      "within five seconds. Exit codes: 0 rotated, 2 configuration errors (one line).",
    args: [],
    flags: ["data-dir"],
    required: [],
    env: [],
  },
  {
    name: "version",
    summary: "print the version",
    description: "Prints `talentd <version>` (also: talentd --version).",
    args: [],
    flags: [],
    required: [],
    env: [],
  },
  {
    name: "help",
    summary: "this text, or the usage of COMMAND",
    description: "Prints the list of commands, or the usage of COMMAND (the same as talentd COMMAND --help).",
    args: [{ name: "COMMAND", help: "a command, e.g. backup or admin create", optional: true }],
    flags: [],
    required: [],
    env: [],
  },
];

/** The commands of the client (docs/design.md): main runs them without loading the server's modules. */
export const CLIENT_COMMANDS: ReadonlySet<string> = new Set([
  "prepare",
  "playbook",
  "check",
  "hook install",
  "calibrate",
  "eval",
  "lock",
  "ci verify",
  "verify",
  "import",
]);

/** The configuration flags a command accepts (docs and tests read it). */
export function configFlagsOf(command: string): ConfigFlag[] {
  const spec = COMMANDS.find((c) => c.name === command);
  return (spec?.flags ?? []).filter((f): f is ConfigFlag => f in CONFIG_FLAGS);
}
