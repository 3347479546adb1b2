/**
 * The commands' implementations: the server, the database commands, the linter, the export. main.ts
 * imports this module only once the command line has parsed to a command that needs it, so
 * `--help`, `version` and a usage error answer without loading the server, the database
 * driver or the catalog (about 30 ms instead of 200).
 */
import pkg from "../../package.json" with { type: "json" };
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { TraceJournal } from "../activity/journal";
import { createApp } from "../app";
import { buildCatalog, formatFindings } from "../catalog/catalog";
import type { Finding, Talent } from "../catalog/format";
import { readSpecializationDir, readTalentDir, sourcesFromFlat } from "../catalog/load";
import { loadCatalog, slimCatalog } from "../catalog/startup";
import { loadConfig, type Config } from "../config";
import { backupDatabase } from "../db/backup";
import { openDatabase, type Database } from "../db/client";
import { startHousekeeping } from "../db/housekeeping";
import { migrate } from "../db/migrate";
import { embeddedTalents } from "../embedded";
import { issueSetupToken } from "../identity/service";
import { createLogger, resolveLogFormat, type Logger } from "../lib/log";
import { adminCreate } from "./admin";
import type { CommandLine } from "./args";
import { CliError } from "./errors";
import { projectTalents, writeSkillFolders } from "./export";
import { listenFailure, localUrl, publicUrlNotice } from "./listen";

async function openAndMigrate(config: Config, log: Logger): Promise<Database> {
  const database = await openDatabase(config.databaseUrl, config.databaseAuthToken);
  const { applied } = await migrate(database.client);
  if (applied.length > 0) log.info("migrations applied", { applied });
  return database;
}

async function serve(config: Config, log: Logger): Promise<void> {
  const started = performance.now();
  const database = await openAndMigrate(config, log);
  const loaded = await loadCatalog(config.talentsDir, log);
  const state = { catalog: loaded.catalog, draining: false };
  const journal = new TraceJournal(database, log);
  const app = createApp({ config, database, log, state, journal });
  try {
    app.listen({ port: config.port, hostname: config.host });
  } catch (e) {
    const line = listenFailure(e, config.host, config.port);
    database.close();
    if (line) throw new CliError(line);
    throw e;
  }
  const port = app.server?.port ?? config.port;
  log.info("talentd listening", {
    url: localUrl(config.host, port),
    baseUrl: config.baseUrl,
    version: pkg.version,
    database: config.databaseUrl.startsWith("file:") ? config.databaseUrl : config.databaseUrl.replace(/\/\/.*@/, "//***@"),
    ms: Math.round(performance.now() - started),
  });
  const notice = publicUrlNotice(config, port);
  if (notice) log.info(notice);
  // after listen: a start that fails (a busy port) hands out no link
  const setupToken = await issueSetupToken(database);
  if (setupToken) {
    log.warn("no platform administrator yet: open this one-time link within 1 hour to create one (or run `talentd admin create`)", {
      setupLink: `${config.baseUrl}/setup?token=${setupToken}`,
    });
  }
  void slimCatalog(database, loaded.catalog, loaded.extraFolders, log);
  const stopHousekeeping = startHousekeeping(database, log, { eventRetentionDays: config.eventRetentionDays });

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    state.draining = true;
    log.info("shutting down", { signal });
    try {
      // stop accepting connections; in-flight requests finish first
      await app.stop(false);
    } catch (e) {
      log.error("error while stopping the server", { error: String(e) });
    }
    stopHousekeeping();
    await journal.flush();
    await database.idle(); // e.g. a last-use update still queued
    database.close();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

/** `talents export DIR [--project ID]`: the catalog, or a project's active selection, as Agent Skills folders. */
async function exportCommand(cli: Extract<CommandLine, { kind: "run" }>): Promise<number> {
  const [dir] = cli.args as [string];
  const config = loadConfig(process.env, cli.config);
  // a broken talent is skipped with a warning on stderr, as the server skips it
  const log = createLogger("warn", (line) => process.stderr.write(line + "\n"), "text");
  const { catalog } = await loadCatalog(config.talentsDir, log);
  let talents: Talent[] = [...catalog.list];
  const projectId = cli.flags.project;
  if (typeof projectId === "string") {
    const file = config.databaseUrl.startsWith("file:") ? config.databaseUrl.slice("file:".length) : null;
    if (file !== null && !existsSync(file)) throw new CliError(`no database at ${file} (set DATA_DIR or DATABASE_URL)`);
    const database = await openDatabase(config.databaseUrl, config.databaseAuthToken);
    try {
      talents = await projectTalents(database, catalog, projectId);
    } finally {
      database.close();
    }
  }
  const written = writeSkillFolders(dir, talents);
  for (const folder of written) console.log(folder);
  console.error(`${written.length} talent(s) written to ${dir} as Agent Skills folders${typeof projectId === "string" ? ` (project ${projectId})` : ""}`);
  return 0;
}

async function readStdin(): Promise<string> {
  const text = await new Response(Bun.stdin.stream()).text();
  return text.replace(/\r?\n$/, "");
}

/**
 * Runs a parsed command (not help, not version: main answers those); resolves to the exit code,
 * or -1 for a server that keeps running. Throws ConfigError or CliError for main to print.
 */
export async function runCommand(cli: Extract<CommandLine, { kind: "run" }>): Promise<number> {
  const { command, args, flags } = cli;
  if (command.name === "talents lint") {
    const [given] = args as [string];
    const dir = resolve(given);
    const read = readTalentDir(dir, given.replace(/\/+$/, ""));
    const label = given.replace(/\/+$/, "") + "/";
    const folders = new Set(read.sources.map((s) => s.folder));
    // Link checks see the embedded catalog too, so a folder may require a shipped talent.
    const embedded = sourcesFromFlat(embeddedTalents()).filter((s) => !folders.has(s.folder));
    // and the folder's specializations (_specializations/*.yaml): ids exist, no conflict in the requires-closure
    const specializations = readSpecializationDir(dir, given.replace(/\/+$/, ""));
    const { catalog, findings, notes } = buildCatalog([...embedded, ...read.sources], read.findings, {}, specializations);
    const ofDir = (f: Finding) => f.file.startsWith(label) || f.file === label.slice(0, -1);
    const mine = findings.filter(ofDir);
    const noted = notes.filter(ofDir);
    for (const line of formatFindings(mine)) console.log(line);
    // what an Agent Skills folder holds that no talent field carries: named, never a failure
    for (const line of formatFindings(noted)) console.log(`note: ${line}`);
    const ok = read.sources.filter((s) => catalog.get(s.folder)).length;
    const spec = specializations.length > 0 ? `; ${catalog.specializations.length} of ${specializations.length} specialization(s) valid` : "";
    console.error(`${ok} of ${read.sources.length} talent(s) valid${spec}, ${mine.length} problem(s)${noted.length > 0 ? `, ${noted.length} note(s)` : ""}`);
    return mine.length > 0 ? 1 : 0;
  }
  if (command.name === "talents export") return exportCommand(cli);

  const config = loadConfig(process.env, cli.config, { checkDataDir: true });
  const log = createLogger(config.logLevel, undefined, resolveLogFormat(config.logFormat, process.stdout.isTTY === true));
  switch (command.name) {
    case "serve":
      await serve(config, log);
      return -1; // keeps running
    case "migrate": {
      const database = await openDatabase(config.databaseUrl, config.databaseAuthToken);
      const r = await migrate(database.client);
      database.close();
      console.log(`migrations: ${r.applied.length} applied, ${r.skipped.length} already there`);
      return 0;
    }
    case "backup": {
      // the database as it is: a backup taken before an upgrade must not run the new binary's migrations
      const database = await openDatabase(config.databaseUrl, config.databaseAuthToken);
      try {
        const r = await backupDatabase(database, args[0]!);
        console.log(`backup written to ${r.file} (${r.bytes} bytes, ${r.tables} tables, integrity_check ok)`);
        return 0;
      } finally {
        database.close();
      }
    }
    case "admin create": {
      const email = flags.email as string;
      const password = await readStdin();
      const database = await openAndMigrate(config, log);
      try {
        const r = await adminCreate(database, email, password);
        console.log(r.created ? `platform admin ${email} created (${r.id})` : `${email} (${r.id}) is now a platform admin`);
        return 0;
      } finally {
        database.close();
      }
    }
    default:
      // every command of src/cli/args.ts is handled above
      throw new Error(`command "${command.name}" has no implementation`);
  }
}
