#!/usr/bin/env bun
/**
 * The talentd command line: parse → loadConfig → command. `serve` is the default command.
 * Exit codes: 0 ok, 1 the command failed, 2 bad usage or configuration.
 */
import "./production"; // first: before Elysia loads (see the file)
import pkg from "../package.json" with { type: "json" };
import { TraceJournal } from "./activity/journal";
import { createApp } from "./app";
import { buildCatalog, formatFindings } from "./catalog/catalog";
import { readTalentDir, sourcesFromFlat } from "./catalog/load";
import { loadCatalog, slimCatalog } from "./catalog/startup";
import { adminCreate, CliError } from "./cli/admin";
import { ConfigError, extractConfigFlags, loadConfig, type Config } from "./config";
import { backupDatabase } from "./db/backup";
import { openDatabase, type Database } from "./db/client";
import { startHousekeeping } from "./db/housekeeping";
import { migrate } from "./db/migrate";
import { embeddedTalents } from "./embedded";
import { issueSetupToken } from "./identity/service";
import { createLogger, type Logger } from "./lib/log";
import { resolve } from "node:path";

const HELP = `talentd ${pkg.version}: conventions for coding agents, resolved per task and auditable.

Usage: talentd [command] [flags]

Commands:
  serve                                  run the HTTP server (default)
  admin create --email E --password-stdin
                                         create a platform admin (or promote an existing user)
  migrate                                apply database migrations and exit
  talents lint DIR                       validate talent folders; non-zero exit with file: field: problem
  backup FILE                            consistent snapshot of the database (VACUUM INTO), verified
  version                                print the version
  --help                                 this text

Flags (override the environment):
  --port N          PORT          default 8787
  --host H          HOST          default 0.0.0.0
  --base-url URL    BASE_URL      default http://localhost:PORT
  --data-dir DIR    DATA_DIR      default ./data
  --database-url U  DATABASE_URL  default file:DATA_DIR/talentd.db
  --talents-dir DIR TALENTS_DIR   extra catalog folder merged over the embedded one
  --log-level L     LOG_LEVEL     debug|info|warn|error (default info)
Other settings (environment only): SMTP_URL, MAIL_FROM, AUTO_APPROVE_ORGS, KEYS_ENABLED,
BODY_LIMIT, ACCESS_LOG, DATABASE_AUTH_TOKEN. See README.md.`;

async function openAndMigrate(config: Config, log: Logger): Promise<Database> {
  const database = await openDatabase(config.databaseUrl, config.databaseAuthToken);
  const { applied } = await migrate(database.client);
  if (applied.length > 0) log.info("migrations applied", { applied });
  return database;
}

async function serve(config: Config, log: Logger): Promise<void> {
  const started = performance.now();
  const database = await openAndMigrate(config, log);
  const setupToken = await issueSetupToken(database);
  if (setupToken) {
    log.warn("no platform administrator yet: open this one-time link within 1 hour to create one (or run `talentd admin create`)", {
      setupLink: `${config.baseUrl}/setup?token=${setupToken}`,
    });
  }
  const loaded = await loadCatalog(config.talentsDir, log);
  const state = { catalog: loaded.catalog, draining: false };
  const journal = new TraceJournal(database, log);
  const app = createApp({ config, database, log, state, journal });
  app.listen({ port: config.port, hostname: config.host });
  const port = app.server?.port;
  log.info("talentd listening", {
    version: pkg.version,
    url: `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}`,
    baseUrl: config.baseUrl,
    database: config.databaseUrl.startsWith("file:") ? config.databaseUrl : config.databaseUrl.replace(/\/\/.*@/, "//***@"),
    ms: Math.round(performance.now() - started),
  });
  void slimCatalog(database, loaded.catalog, loaded.extraFolders, log);
  const stopHousekeeping = startHousekeeping(database, log);

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

async function readStdin(): Promise<string> {
  const text = await new Response(Bun.stdin.stream()).text();
  return text.replace(/\r?\n$/, "");
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const eq = args.find((a) => a.startsWith(name + "="));
  return eq?.slice(name.length + 1);
}

async function run(argv: string[]): Promise<number> {
  const { values, rest } = extractConfigFlags(argv);
  const [command = "serve", ...args] = rest;
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(HELP);
    return 0;
  }
  if (command === "version" || command === "--version") {
    console.log(`talentd ${pkg.version}`);
    return 0;
  }
  if (command === "talents") {
    if (args[0] !== "lint" || !args[1]) {
      console.error("usage: talentd talents lint DIR");
      return 2;
    }
    const dir = resolve(args[1]);
    const read = readTalentDir(dir, args[1].replace(/\/+$/, ""));
    const label = args[1].replace(/\/+$/, "") + "/";
    const folders = new Set(read.sources.map((s) => s.folder));
    // Link checks see the embedded catalog too, so a folder may require a shipped talent.
    const embedded = sourcesFromFlat(embeddedTalents()).filter((s) => !folders.has(s.folder));
    const { catalog, findings } = buildCatalog([...embedded, ...read.sources], read.findings);
    const mine = findings.filter((f) => f.file.startsWith(label) || f.file === label.slice(0, -1));
    for (const line of formatFindings(mine)) console.log(line);
    const ok = read.sources.filter((s) => catalog.get(s.folder)).length;
    console.error(`${ok} of ${read.sources.length} talent(s) valid, ${mine.length} problem(s)`);
    return mine.length > 0 ? 1 : 0;
  }

  const config = loadConfig(process.env, values, { checkDataDir: true });
  const log = createLogger(config.logLevel);
  switch (command) {
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
      if (!args[0]) {
        console.error("usage: talentd backup FILE");
        return 2;
      }
      // the database as it is: a backup taken before an upgrade must not run the new binary's migrations
      const database = await openDatabase(config.databaseUrl, config.databaseAuthToken);
      try {
        const r = await backupDatabase(database, args[0]);
        console.log(`backup written to ${r.file} (${r.bytes} bytes, ${r.tables} tables, integrity_check ok)`);
        return 0;
      } finally {
        database.close();
      }
    }
    case "admin": {
      const email = option(args, "--email");
      if (args[0] !== "create" || !email || !args.includes("--password-stdin")) {
        console.error("usage: echo PASSWORD | talentd admin create --email E --password-stdin");
        return 2;
      }
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
      console.error(`talentd: unknown command "${command}" (see talentd --help)`);
      return 2;
  }
}

run(Bun.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
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
