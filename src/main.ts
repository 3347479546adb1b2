#!/usr/bin/env bun
/**
 * The talentd command line: parse (src/cli/args.ts) → command (src/cli/commands.ts). `serve` is
 * the default command.
 * Exit codes: 0 ok, 1 the command failed (the client: findings), 2 bad usage, configuration or
 * (the client) connection.
 */
import "./production"; // first: before Elysia loads (see the file)
import pkg from "../package.json" with { type: "json" };
import { parseCommandLine } from "./cli/args";
import { CLIENT_COMMANDS } from "./cli/commandTable";
import { printable } from "./lib/controls";

/**
 * The client and the server commands are entry points of their own in the binary (build.ts),
 * loaded by specifiers the bundler cannot inline, so a command parses only the code it runs:
 * `version`, `--help` and a hook's `talentd check` start in ~15 ms instead of ~110 ms spent
 * parsing the whole server (docs/performance.md). From the sources the same specifiers
 * name the .ts files.
 */
const CLIENT_ENTRY = process.env.TALENTD_CLIENT_ENTRY_NEVER_SET ?? "./client/commands.ts";
const SERVER_ENTRY = process.env.TALENTD_SERVER_ENTRY_NEVER_SET ?? "./cli/commands.ts";

/** Runs the command line; resolves to the exit code, or -1 for a server that keeps running. */
async function run(argv: string[]): Promise<number> {
  const cli = parseCommandLine(argv, pkg.version);
  if (cli.kind === "help") {
    console.log(cli.text);
    return 0;
  }
  if (cli.command.name === "version") {
    console.log(`talentd ${pkg.version}`);
    return 0;
  }
  // the client commands load none of the server's modules (a hook's check starts fast)
  if (CLIENT_COMMANDS.has(cli.command.name)) {
    const { runClientCommand } = (await import(CLIENT_ENTRY)) as typeof import("./client/commands");
    return runClientCommand(cli);
  }
  // loaded only now: help, version and usage errors need none of the server's modules
  const { runCommand } = (await import(SERVER_ENTRY)) as typeof import("./cli/commands");
  return runCommand(cli);
}

run(Bun.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    // by name, not instanceof: the commands run from other entry points of the binary, each
    // with its own copy of these classes
    const name = (e as Error | undefined)?.name;
    if (name === "UsageError") {
      console.error((e as Error).message);
      process.exit(2);
    }
    if (name === "ConfigError") {
      console.error(`talentd: config: ${(e as Error).message}`);
      process.exit(2);
    }
    // a message may quote the server or a file: shown inert on the terminal
    if (name === "CliError") {
      console.error(`talentd: ${printable((e as Error).message)}`);
      process.exit(2);
    }
    console.error(`talentd: ${printable(String((e as Error)?.message ?? e))}`);
    process.exit(1);
  },
);
