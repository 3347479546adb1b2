/**
 * The command line: the usage texts of the commands in commandTable.ts, and the parser that
 * turns argv into one command to run (or a usage text to print, or one line saying what is wrong). Nothing here touches the disk or the
 * network, so
 * `--help` and a usage error have no side effect by construction.
 */
import { parseArgs } from "node:util";
import { CLIENT_COMMANDS, COMMANDS, ENV_ONLY, FLAGS, type CommandSpec } from "./commandTable";

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

const GROUPS = [...new Set(COMMANDS.filter((c) => c.name.includes(" ")).map((c) => c.name.split(" ")[0]!))];

function flagColumn(name: string): string {
  const spec = FLAGS[name]!;
  return name === "help" ? "-h, --help" : `--${name}${spec.value ? " " + spec.value : ""}`;
}

/** Rows of cells as aligned columns: each column as wide as its longest cell plus two spaces (the last unpadded). */
export function columns(rows: readonly (readonly string[])[], indent = "  "): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => (indent + row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]! + 2) : cell)).join("")).trimEnd());
}

/** A flag's cells: the flag, the variable it overrides (or ""), its help. */
function flagRow(name: string, command?: CommandSpec): string[] {
  const spec = FLAGS[name]!;
  const own = command?.flagHelp?.[name];
  // a flag a command reads its own way (eval's --timeout bounds the agent): its words, and no variable
  return own ? [flagColumn(name), "", own] : [flagColumn(name), spec.env ?? spec.clientEnv ?? "", spec.help];
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
    lines.push("", "Arguments:", ...columns(spec.args.map((a) => [a.name, a.help])));
  }
  const config = spec.flags.filter((f) => FLAGS[f]!.env);
  const own = spec.flags.filter((f) => !FLAGS[f]!.env);
  lines.push("", "Flags:", ...columns([...own, "help"].map((f) => flagRow(f, spec))));
  if (config.length > 0) lines.push("", "Configuration flags (override the environment):", ...columns(config.map((f) => flagRow(f))));
  if (spec.env.length > 0) lines.push("", "Environment only:", ...columns(spec.env.map((e) => [e, ENV_ONLY[e] ?? ""])));
  return lines.join("\n");
}

/** The text `talentd --help` prints: every command, every flag and which commands take it. */
export function globalHelp(version: string): string {
  const listed = COMMANDS.map(
    (c) =>
      [
        synopsis(c)
          .slice("talentd ".length)
          .replace(/ \[flags\]$/, ""),
        c.summary,
      ] as const,
  );
  const configFlags = Object.keys(FLAGS).filter((f) => FLAGS[f]!.env);
  const takers = COMMANDS.filter((c) => c.flags.some((f) => FLAGS[f]!.env)).map(
    (c) =>
      `${c.name}: ${c.flags
        .filter((f) => FLAGS[f]!.env)
        .map((f) => "--" + f)
        .join(", ")}`,
  );
  return [
    `talentd ${version}: conventions for coding agents, resolved per task and auditable.`,
    "",
    "Usage: talentd [command] [flags]      (no command: serve)",
    "       talentd <command> --help       the usage of one command (or: talentd help <command>)",
    "",
    "Commands:",
    ...columns(listed),
    "",
    "Configuration flags (override the environment):",
    ...columns(configFlags.map((f) => flagRow(f))),
    "Each command accepts those it uses:",
    ...takers.map((t) => `  ${t}`),
    "",
    "Environment only:",
    ...columns(Object.entries(ENV_ONLY)),
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
  return COMMANDS.filter((c) => c.name.startsWith(group + " "))
    .map(commandHelp)
    .join("\n\n");
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
  if (argv.length === 1 && argv[0] === "--version")
    return { kind: "run", command: COMMANDS.find((c) => c.name === "version")!, args: [], flags: {}, config: {} };
  const options = Object.fromEntries(
    Object.entries(FLAGS).map(([name, spec]) => [
      name,
      name === "help" ? { type: "boolean" as const, short: "h" } : { type: spec.value ? ("string" as const) : ("boolean" as const) },
    ]),
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
      throw new UsageError(
        `talentd: unknown ${plural(unknownAnywhere.length, "flag", "flags")} ${unknownAnywhere.join(", ")} (see talentd --help)`,
      );
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
  if (rest.length < needed.length)
    fail(
      `missing ${needed
        .slice(rest.length)
        .map((a) => a.name)
        .join(" ")}`,
    );
  const variadic = spec.args.at(-1)?.variadic === true;
  if (spec.name !== "help" && !variadic && rest.length > spec.args.length) fail(`unexpected argument "${rest[spec.args.length]}"`);
  for (const r of spec.required) {
    if (!(r in flags)) fail(`missing --${r}${FLAGS[r]!.value ? " " + FLAGS[r]!.value : ""}`);
  }

  // `talentd help backup`, `talentd help admin create`
  if (spec.name === "help") return { kind: "help", text: helpFor(resolveCommand(rest), version) };
  return { kind: "run", command: spec, args: rest, flags, config };
}
