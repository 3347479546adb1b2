/**
 * The command line: which commands exist, which flags and arguments each one takes, their
 * usage texts, and the parser that turns argv into one command to run (or a usage text to
 * print, or one line saying what is wrong). Nothing here touches the disk or the network, so
 * `--help` and a usage error have no side effect by construction.
 */
import { parseArgs } from "node:util";
import { CONFIG_FLAGS, type ConfigFlag } from "../config";

interface FlagSpec {
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
const FLAGS: Record<string, FlagSpec> = {
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
  // the client (DESIGN §15): talks to a server with a project key
  url: { value: "URL", clientEnv: "TALENTD_URL", help: "the talentd server" },
  key: { value: "KEY", clientEnv: "TALENTD_KEY", help: "a project key (prefer the environment: a flag shows in ps)" },
  timeout: { value: "S", clientEnv: "TALENTD_TIMEOUT", help: "seconds to wait for each answer of the server (default 10)" },
  json: { help: "print JSON for scripts instead of text" },
  staged: { help: "the staged changes (git diff --cached)" },
  talent: { value: "ID", multiple: true, help: "designate this talent too (repeatable)" },
  base: { value: "REF", help: "the changes since REF (git diff REF...HEAD), e.g. origin/main in CI" },
  "pre-push": { help: "the commits being pushed, read from a pre-push hook's standard input" },
  lock: { value: "FILE", help: "the lock file (default .talentd/lock.json at the repository root)" },
  force: { help: "replace a hook that talentd did not install (kept as <hook>.before-talentd)" },
  "dry-run": { help: "list the migrations that would run, with their statements; change nothing" },
  local: { help: "check this machine's data folder (no server needed)" },
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
}

const CLIENT = ["url", "key", "timeout", "json"];
const CLIENT_EXIT = "Exit codes: 0 clean, 1 findings, 2 usage, configuration or connection errors (one line).";

const SERVE_ENV = [
  "LOG_FORMAT", "DATABASE_AUTH_TOKEN", "SMTP_URL", "MAIL_FROM", "AUTO_APPROVE_ORGS", "KEYS_ENABLED", "BODY_LIMIT", "ACCESS_LOG", "EVENT_RETENTION_DAYS",
  "BACKUP_INTERVAL", "BACKUP_KEEP", "METRICS_TOKEN", "DASHBOARD_READS_PER_USER",
];

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
    env: SERVE_ENV,
  },
  {
    name: "admin create",
    summary: "create a platform admin (or promote an existing user)",
    description:
      "Creates a platform administrator with the password read from standard input, or gives an\n" +
      "existing account of that e-mail the admin role. Applies migrations first. Example:\n" +
      "  echo \"$PASSWORD\" | talentd admin create --email admin@example.com --password-stdin",
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
      "TALENTD_KEY (scope prepare_task). " + CLIENT_EXIT,
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
      "rules with their check, detectors and conformance tests. Scope validate. " + CLIENT_EXIT,
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
      "does. Prints `file:line RULE-ID severity title` per finding. The diff never leaves the machine:\n" +
      "only talent ids go to the server. A line holding `talentd-ignore RULE-ID` is not reported for\n" +
      "that rule. Scopes prepare_task (without RESOLUTION) and validate.\n" +
      "Exit codes: 0 clean or advisory findings only, 1 a blocking finding, 2 usage, configuration or\n" +
      "connection errors (one line).",
    args: [{ name: "RESOLUTION", help: "a resolutionId (default: designate from the diff's paths)", optional: true }],
    flags: ["staged", "base", "pre-push", "talent", ...CLIENT],
    required: [],
    env: [],
  },
  {
    name: "hook install",
    summary: "install a git hook that runs talentd check (pre-commit or pre-push)",
    description:
      "Writes the repository's HOOK (default pre-commit; core.hooksPath is followed): pre-commit runs\n" +
      "`talentd check --staged`, pre-push `talentd check --pre-push`, with this talentd. The hook reads\n" +
      "TALENTD_URL and TALENTD_KEY from the environment (--url writes a default URL into it; a key is\n" +
      "never written). A hook talentd did not install is kept unless --force. Skip the hook once with\n" +
      "`git commit --no-verify`. Exit codes: 0 installed, 2 usage errors (one line).",
    args: [{ name: "HOOK", help: "pre-commit (default) or pre-push", optional: true }],
    flags: ["url", "force"],
    required: [],
    env: [],
  },
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
      "server (a talent added or removed, another version, state or digest). Scope doctor.\n" +
      "Exit codes: 0 consistent and matching, 1 problems (one line each), 2 usage, configuration or\n" +
      "connection errors (one line).",
    args: [],
    flags: ["lock", ...CLIENT],
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

/** The commands of the client (DESIGN §15): main runs them without loading the server's modules. */
export const CLIENT_COMMANDS: ReadonlySet<string> = new Set(["prepare", "playbook", "check", "hook install", "lock", "ci verify"]);

/** What the command line asks for: a text to print (exit 0), or a command to run. */
export type CommandLine =
  | { kind: "help"; text: string }
  | {
      kind: "run";
      command: CommandSpec;
      /** Positional arguments after the command's name. */
      args: string[];
      /** Non-configuration flags given (`email`, `password-stdin`); a repeatable one as a list. */
      flags: Record<string, string | true | string[]>;
      /** Configuration flags given, keyed by the environment variable they override (for loadConfig). */
      config: Record<string, string>;
    };

/** A command line that cannot run; `message` is the one line to print, main exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

const ENV_ONLY: Record<string, string> = {
  LOG_FORMAT: "auto|json|text (default auto: text when stdout is a terminal, JSON lines otherwise)",
  DATABASE_AUTH_TOKEN: "token for a libSQL server (DATABASE_URL libsql://…)",
  SMTP_URL: "validated, not used yet: mails go to the log and the outbox table",
  MAIL_FROM: "default talentd@<BASE_URL host>",
  AUTO_APPROVE_ORGS: "default false",
  KEYS_ENABLED: "default true",
  BODY_LIMIT: "request body limit in bytes (default 1048576)",
  ACCESS_LOG: "one line per request (default true)",
  EVENT_RETENTION_DAYS: "trace and security events kept this many days (default 90; 0 keeps them)",
  BACKUP_INTERVAL: "scheduled verified backups to DATA_DIR/backups, e.g. 6h (s, m, h, d; default off)",
  BACKUP_KEEP: "scheduled backups kept (default 7; older ones are deleted)",
  METRICS_TOKEN: "turns GET /metrics on, for Authorization: Bearer <token> (default off)",
  DASHBOARD_READS_PER_USER: "heavy dashboard reads one user may have in flight; more get 429 (default 2)",
};

const GROUPS = [...new Set(COMMANDS.filter((c) => c.name.includes(" ")).map((c) => c.name.split(" ")[0]!))];

function flagColumn(name: string): string {
  const spec = FLAGS[name]!;
  return name === "help" ? "-h, --help" : `--${name}${spec.value ? " " + spec.value : ""}`;
}

function flagLine(name: string): string {
  const spec = FLAGS[name]!;
  const env = spec.env ?? spec.clientEnv;
  return `  ${flagColumn(name).padEnd(20)}${env ? env.padEnd(16) : ""}${spec.help}`;
}

/** `talentd backup FILE [flags]`: the one-line synopsis of a command. */
export function synopsis(spec: CommandSpec): string {
  const parts = [`talentd ${spec.name}`];
  for (const f of spec.required) parts.push(`--${f}${FLAGS[f]!.value ? " " + FLAGS[f]!.value : ""}`);
  for (const a of spec.args) parts.push(a.optional ? `[${a.name}]` : a.name);
  if (spec.flags.some((f) => !spec.required.includes(f))) parts.push("[flags]");
  return parts.join(" ");
}

/** The text `talentd <command> --help` prints: synopsis, description, arguments, flags. */
export function commandHelp(spec: CommandSpec): string {
  const lines = [`Usage: ${synopsis(spec)}`, "", spec.description];
  if (spec.args.length > 0) {
    lines.push("", "Arguments:", ...spec.args.map((a) => `  ${a.name.padEnd(20)}${a.help}`));
  }
  const config = spec.flags.filter((f) => FLAGS[f]!.env);
  const own = spec.flags.filter((f) => !FLAGS[f]!.env);
  lines.push("", "Flags:", ...own.map(flagLine), flagLine("help"));
  if (config.length > 0) lines.push("", "Configuration flags (override the environment):", ...config.map(flagLine));
  if (spec.env.length > 0) {
    lines.push("", "Environment only:", ...spec.env.map((e) => `  ${e.padEnd(20)}${ENV_ONLY[e] ?? ""}`.trimEnd()));
  }
  return lines.join("\n");
}

/** The text `talentd --help` prints: every command, every flag and which commands take it. */
export function globalHelp(version: string): string {
  const listed = COMMANDS.map((c) => [synopsis(c).slice("talentd ".length).replace(/ \[flags\]$/, ""), c.summary] as const);
  const width = Math.max(...listed.map(([s]) => s.length)) + 2;
  const configFlags = Object.keys(FLAGS).filter((f) => FLAGS[f]!.env);
  const takers = COMMANDS.filter((c) => c.flags.some((f) => FLAGS[f]!.env)).map(
    (c) => `${c.name}: ${c.flags.filter((f) => FLAGS[f]!.env).map((f) => "--" + f).join(", ")}`,
  );
  return [
    `talentd ${version}: conventions for coding agents, resolved per task and auditable.`,
    "",
    "Usage: talentd [command] [flags]      (no command: serve)",
    "       talentd <command> --help       the usage of one command (or: talentd help <command>)",
    "",
    "Commands:",
    ...listed.map(([s, summary]) => `  ${s.padEnd(width)}${summary}`),
    "",
    "Configuration flags (override the environment):",
    ...configFlags.map(flagLine),
    "Each command accepts those it uses:",
    ...takers.map((t) => `  ${t}`),
    "",
    "Environment only:",
    ...Object.entries(ENV_ONLY).map(([e, h]) => `  ${e.padEnd(20)}${h}`),
    "",
    `The client commands (${[...CLIENT_COMMANDS].join(", ")}) talk to a talentd server:`,
    "  TALENTD_URL and TALENTD_KEY (a project key), or --url and --key; TALENTD_TIMEOUT (seconds, default 10).",
    "See README.md (Configuration) and docs/operations.md.",
  ].join("\n");
}

type Resolved =
  | { kind: "command"; spec: CommandSpec; rest: string[] }
  | { kind: "group"; group: string }
  | { kind: "unknown"; name: string }
  | { kind: "none" };

function resolveCommand(words: string[]): Resolved {
  const [first, second] = words;
  if (first === undefined) return { kind: "none" };
  if (GROUPS.includes(first)) {
    if (second === undefined) return { kind: "group", group: first };
    const spec = COMMANDS.find((c) => c.name === `${first} ${second}`);
    return spec ? { kind: "command", spec, rest: words.slice(2) } : { kind: "unknown", name: `${first} ${second}` };
  }
  const spec = COMMANDS.find((c) => c.name === first);
  return spec ? { kind: "command", spec, rest: words.slice(1) } : { kind: "unknown", name: first };
}

function groupHelp(group: string): string {
  return COMMANDS.filter((c) => c.name.startsWith(group + " ")).map(commandHelp).join("\n\n");
}

function helpFor(resolved: Resolved, version: string): string {
  switch (resolved.kind) {
    case "none":
      return globalHelp(version);
    case "group":
      return groupHelp(resolved.group);
    case "command":
      return commandHelp(resolved.spec);
    case "unknown":
      throw new UsageError(`talentd: unknown command "${resolved.name}" (see talentd --help)`);
  }
}

const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many);

/**
 * Parses argv (without the runtime and script): the command, its arguments and flags. `--help`
 * or `-h` anywhere before `--` prints the usage of the command named (of every command when
 * none is) and nothing else runs. No command means `serve`. Throws UsageError with one line
 * naming the problem: an unknown command, a flag the command does not take, a flag without its
 * value, a missing or extra argument, a missing required flag.
 */
export function parseCommandLine(argv: string[], version: string): CommandLine {
  if (argv.length === 1 && argv[0] === "--version") return { kind: "run", command: COMMANDS.find((c) => c.name === "version")!, args: [], flags: {}, config: {} };
  const options = Object.fromEntries(
    Object.entries(FLAGS).map(([name, spec]) => [name, name === "help" ? { type: "boolean" as const, short: "h" } : { type: spec.value ? ("string" as const) : ("boolean" as const) }]),
  );
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const words = tokens.flatMap((t) => (t.kind === "positional" ? [t.value] : []));
  const given = tokens.flatMap((t) => (t.kind === "option" ? [t] : []));
  const end = argv.indexOf("--");
  const wantsHelp = (end < 0 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
  const resolved = resolveCommand(words);

  if (wantsHelp) return { kind: "help", text: helpFor(resolved, version) };
  const unknownAnywhere = [...new Set(given.filter((t) => !FLAGS[t.name]).map((t) => t.rawName))];
  if (resolved.kind === "unknown") {
    // `--prot 9000`: the value of an unknown flag reads as a command; name the flag, not "9000"
    if (unknownAnywhere.length > 0) {
      throw new UsageError(`talentd: unknown ${plural(unknownAnywhere.length, "flag", "flags")} ${unknownAnywhere.join(", ")} (see talentd --help)`);
    }
    throw new UsageError(`talentd: unknown command "${resolved.name}" (see talentd --help)`);
  }
  if (resolved.kind === "group") {
    const subs = COMMANDS.filter((c) => c.name.startsWith(resolved.group + " ")).map((c) => c.name.slice(resolved.group.length + 1));
    throw new UsageError(`talentd ${resolved.group}: missing command (${subs.join(", ")}) (see talentd ${resolved.group} --help)`);
  }
  const spec = resolved.kind === "command" ? resolved.spec : COMMANDS[0]!;
  const rest = resolved.kind === "command" ? resolved.rest : [];
  const see = `(see talentd ${spec.name} --help)`;
  const fail = (problem: string): never => {
    throw new UsageError(`talentd ${spec.name}: ${problem} ${see}`);
  };

  const refused = [...new Set(given.filter((t) => !spec.flags.includes(t.name)).map((t) => t.rawName))];
  if (refused.length > 0) fail(`unknown ${plural(refused.length, "flag", "flags")} ${refused.join(", ")}`);

  const flags: Record<string, string | true | string[]> = {};
  const config: Record<string, string> = {};
  for (const t of given) {
    const flag = FLAGS[t.name]!;
    let value: string | true = true;
    if (flag.value) {
      // `--port --host x` would take "--host" as the port: a separate value may not look like a flag
      if (t.value === undefined || t.value === "" || (!t.inlineValue && t.value.startsWith("-") && t.value !== "-")) {
        fail(`${t.rawName} needs a value: ${t.rawName} ${flag.value}`);
      }
      value = t.value!;
    } else if (t.value !== undefined) {
      fail(`${t.rawName} takes no value`);
    }
    if (flag.env) config[flag.env] = value as string;
    else if (flag.multiple) flags[t.name] = [...((flags[t.name] as string[] | undefined) ?? []), value as string];
    else flags[t.name] = value;
  }

  const needed = spec.args.filter((a) => !a.optional);
  if (rest.length < needed.length) fail(`missing ${needed.slice(rest.length).map((a) => a.name).join(" ")}`);
  const variadic = spec.args.at(-1)?.variadic === true;
  if (spec.name !== "help" && !variadic && rest.length > spec.args.length) fail(`unexpected argument "${rest[spec.args.length]}"`);
  for (const r of spec.required) {
    if (!(r in flags)) fail(`missing --${r}${FLAGS[r]!.value ? " " + FLAGS[r]!.value : ""}`);
  }

  // `talentd help backup`, `talentd help admin create`
  if (spec.name === "help") return { kind: "help", text: helpFor(resolveCommand(rest), version) };
  return { kind: "run", command: spec, args: rest, flags, config };
}

/** The configuration flags a command accepts (docs and tests read it). */
export function configFlagsOf(command: string): ConfigFlag[] {
  const spec = COMMANDS.find((c) => c.name === command);
  return (spec?.flags ?? []).filter((f): f is ConfigFlag => f in CONFIG_FLAGS);
}
