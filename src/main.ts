#!/usr/bin/env bun
/**
 * The talentd command line: parse (src/cli/args.ts) → command (src/cli/commands.ts). `serve` is
 * the default command.
 * Exit codes: 0 ok, 1 the command failed (the client: findings), 2 bad usage, configuration or
 * (the client) connection.
 */
import "./production"; // first: before Elysia loads (see the file)
import pkg from "../package.json" with { type: "json" };
import { CliError } from "./cli/errors";
import { CLIENT_COMMANDS, parseCommandLine, UsageError } from "./cli/args";
import { ConfigError } from "./config";

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
    const { runClientCommand } = await import("./client/commands");
    return runClientCommand(cli);
  }
  // loaded only now: help, version and usage errors need none of the server's modules
  const { runCommand } = await import("./cli/commands");
  return runCommand(cli);
}

run(Bun.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    if (e instanceof UsageError) {
      console.error(e.message);
      process.exit(2);
    }
    if (e instanceof ConfigError) {
      console.error(`talentd: config: ${e.message}`);
      process.exit(2);
    }
    if (e instanceof CliError) {
      console.error(`talentd: ${e.message}`);
      process.exit(2);
    }
    console.error(`talentd: ${(e as Error)?.message ?? e}`);
    process.exit(1);
  },
);
