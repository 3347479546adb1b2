/**
 * The commands' implementations: the server, the database commands, the linter, the export. main.ts
 * imports this module only once the command line has parsed to a command that needs it, so
 * `--help`, `version` and a usage error answer without loading the server, the database
 * driver or the catalog (about 30 ms instead of 200).
 */
import { rotateSigningKeys } from "../signing/keys";
import { databaseKeyStore } from "../signing/keyStore";
import { isPostgresUrl } from "../db/pgClient";
import pkg from "../../package.json" with { type: "json" };
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { TraceJournal } from "../journal/journal";
import { createApp } from "../app";
import { buildCatalog, formatFindings } from "../catalog/catalog";
import type { Finding, Talent } from "../catalog/format";
import { readSpecializationDir, readTalentDir, sourcesFromFlat, supportLint } from "../catalog/load";
import { loadCatalog, slimCatalog } from "../catalog/startup";
import { startBackground } from "./background";
import { loadConfig, readContentLinkHosts, type Config } from "../config";
import { databasePath, snapshotDatabase } from "../db/backup";
import { openDatabase, type Database } from "../db/client";
import { NewerSchemaError, type MigrationResult } from "../db/migrate";
import { migrateDatabase, planDatabase } from "../db/migratePg";
import { restoreDatabase } from "../db/restore";
import { backupBeforeMigration, Backups } from "../ops/backups";
import { doctorExitCode, doctorLocal, formatDoctor } from "../ops/doctor";
import { HttpMetrics } from "../ops/metrics";
import { embeddedTalents } from "../embedded";
import { resetRequestsSettled } from "../identity/passwordReset";
import { printable } from "../lib/controls";
import { createLogger, resolveLogFormat, type Logger } from "../lib/log";
import { adminCreate } from "./admin";
import type { CommandLine } from "./args";
import type { AppState } from "../catalog/state";
import { CliError } from "./errors";
import { projectTalents, writeSkillFolders } from "./export";
import { listenFailure, localUrl } from "./listen";

/**
 * `backup` and `restore` on PostgreSQL: the database's own tools do it (exit 2, nothing copied:
 * a script that asked for a backup must not take this for one). The URL is shown without its password.
 */
function pgToolsLine(url: string, what: "backup" | "restore"): string {
  const shown = url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
  const tools = "PostgreSQL with its own tools";
  return what === "backup"
    ? `backup copies the embedded database file; back up ${tools}: pg_dump --format=custom --file=talentd.dump '${shown}'`
    : `restore replaces the embedded database file; restore ${tools}: pg_restore --clean --dbname='${shown}' talentd.dump`;
}

/** `keys rotate` on PostgreSQL: the key table every replica reads (signing/keyStore.ts); the replicas sign with the new key within 5 s. */
async function rotateInDatabase(config: Config, log: Logger) {
  const { database } = await openAndMigrate(config, log);
  try {
    return await databaseKeyStore(database)!.rotate();
  } finally {
    database.close();
  }
}

/** Where the database is, for messages (a server URL without its credentials). */
function whereIs(config: Config): string {
  return databasePath(config.databaseUrl) ?? config.databaseUrl.replace(/\/\/.*@/, "//***@");
}

/**
 * Opens the database and brings it to this binary's schema: refuses one migrated by a newer
 * talentd (NewerSchemaError: one line, nothing applied), and takes a verified backup to
 * DATA_DIR/backups/pre-migrate-<time>.db before applying any migration to a database that has
 * tables (a failed backup stops here: no migration without one).
 */
async function openAndMigrate(config: Config, log: Logger): Promise<{ database: Database; result: MigrationResult }> {
  const database = await openDatabase(config.databaseUrl, config.databaseAuthToken);
  try {
    const plan = await planDatabase(database);
    if (plan.unknown.length > 0) throw new NewerSchemaError(plan.unknown, whereIs(config));
    if (plan.pending.length > 0 && !plan.empty && database.path) {
      let r;
      try {
        r = backupBeforeMigration(database.path, join(config.dataDir, "backups"));
      } catch (e) {
        throw new Error(`could not back up the database before migrating (${(e as Error).message}); no migration was applied`);
      }
      log.info("backup taken before migrating", { file: r.file, bytes: r.bytes, pending: plan.pending.map((p) => p.tag) });
    }
    const result = await migrateDatabase(database, whereIs(config));
    if (result.applied.length > 0) log.info("migrations applied", { applied: result.applied });
    return { database, result };
  } catch (e) {
    database.close();
    throw e;
  }
}

/** CPU time of the process so far (user + system), in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return Math.round((user + system) / 1000);
}

async function serve(config: Config, log: Logger): Promise<void> {
  const started = performance.now(); // performance.now() counts from the process's start
  const { database } = await openAndMigrate(config, log);
  const migrated = performance.now();
  const loaded = await loadCatalog(config.talentsDir, log, config.contentLinkHosts);
  const catalogLoaded = performance.now();
  const state = { catalog: loaded.catalog, draining: false };
  const journal = new TraceJournal(database, log);
  const backups = new Backups({
    source: database.path,
    folder: join(config.dataDir, "backups"),
    schedule: config.backupIntervalMs === null ? null : { intervalMs: config.backupIntervalMs, keep: config.backupKeep },
    log,
  });
  const app = createApp({ config, database, log, state, journal, backups, metrics: new HttpMetrics() });
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
    // where the start went (ms since the process started): the code loaded, the database opened
    // and migrated, the catalog loaded, the routes built and listening
    startup: {
      code: Math.round(started),
      database: Math.round(migrated - started),
      catalog: Math.round(catalogLoaded - migrated),
      routes: Math.round(performance.now() - catalogLoaded),
      total: Math.round(performance.now()),
      cpu: cpuMs(),
    },
  });
  const background = await startBackground(config, log, { database, loaded, backups, port, state });
  handleSignals(config, log, { app, database, state, journal, backups, ...background });
}

/** SIGHUP reloads the catalog; SIGTERM and SIGINT drain and stop. */
function handleSignals(
  config: Config,
  log: Logger,
  running: {
    app: ReturnType<typeof createApp>;
    database: Database;
    state: AppState;
    journal: TraceJournal;
    backups: Backups;
    stopLeaderJobs: () => Promise<void>;
  },
): void {
  const { app, database, state, journal, backups, stopLeaderJobs } = running;
  // SIGHUP (systemctl reload): the catalog is read again (TALENTS_DIR edits); a failure keeps the one being served
  let reloading = false;
  const reload = async (): Promise<void> => {
    if (reloading || state.draining) return;
    reloading = true;
    try {
      const next = await loadCatalog(config.talentsDir, log, config.contentLinkHosts);
      state.catalog = next.catalog;
      log.info("catalog reloaded (SIGHUP)", {
        talents: next.catalog.list.length,
        broken: next.catalog.broken.length,
        digest: next.catalog.digest,
      });
      void slimCatalog(database, next.catalog, next.extraFolders, log);
    } catch (e) {
      log.error("catalog reload failed; the catalog being served stays", { error: String(e) });
    } finally {
      reloading = false;
    }
  };
  process.on("SIGHUP", () => void reload());

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
    await resetRequestsSettled(); // reset requests already answered write their token and mail first
    await stopLeaderJobs(); // housekeeping; the mail in flight, if any, is sent and marked first; then the lock
    backups.stop(); // a backup still running is abandoned: its `.partial` file is removed at the next start
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
  const { catalog } = await loadCatalog(config.talentsDir, log, config.contentLinkHosts);
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
  console.error(
    `${written.length} talent(s) written to ${dir} as Agent Skills ` +
      `folders${typeof projectId === "string" ? ` (project ${projectId})` : ""}`,
  );
  return 0;
}

async function readStdin(): Promise<string> {
  const text = await new Response(Bun.stdin.stream()).text();
  return text.replace(/\r?\n$/, "");
}

/** `talents lint DIR`: every problem of a folder of talents (and its specializations); exit 1 on any. */
function lintCommand(args: string[]): number {
  const [given] = args as [string];
  const dir = resolve(given);
  const read = readTalentDir(dir, given.replace(/\/+$/, ""));
  const label = given.replace(/\/+$/, "") + "/";
  const folders = new Set(read.sources.map((s) => s.folder));
  // Link checks see the embedded catalog too, so a folder may require a shipped talent.
  const embedded = sourcesFromFlat(embeddedTalents()).filter((s) => !folders.has(s.folder));
  // and the folder's specializations (_specializations/*.yaml): ids exist, no conflict in the requires-closure
  const specializations = readSpecializationDir(dir, given.replace(/\/+$/, ""));
  const linkHosts = readContentLinkHosts(process.env.CONTENT_LINK_HOSTS); // the content check, as at start
  const { catalog, findings, notes } = buildCatalog([...embedded, ...read.sources], read.findings, { linkHosts }, specializations);
  const ofDir = (f: Finding) => f.file.startsWith(label) || f.file === label.slice(0, -1);
  const mine = [...findings.filter(ofDir), ...supportLint(dir, label.slice(0, -1), read.sources, (id) => catalog.get(id))];
  const noted = notes.filter(ofDir);
  // a finding may quote the text it refuses (a control character in a title): shown inert
  for (const line of formatFindings(mine)) console.log(printable(line));
  // what an Agent Skills folder holds that no talent field carries: named, never a failure
  for (const line of formatFindings(noted)) console.log(printable(`note: ${line}`));
  const ok = read.sources.filter((s) => catalog.get(s.folder)).length;
  const spec = specializations.length > 0 ? `; ${catalog.specializations.length} of ${specializations.length} specialization(s) valid` : "";
  console.error(
    `${ok} of ${read.sources.length} talent(s) valid${spec}, ${mine.length} ` +
      `problem(s)${noted.length > 0 ? `, ${noted.length} note(s)` : ""}`,
  );
  return mine.length > 0 ? 1 : 0;
}

/** `migrate [--dry-run]`: applies the pending migrations after a backup, or lists them. */
async function migrateCommand(config: Config, dryRun: boolean): Promise<number> {
  if (dryRun) {
    const database = await openDatabase(config.databaseUrl, config.databaseAuthToken);
    try {
      const plan = await planDatabase(database);
      if (plan.unknown.length > 0) throw new NewerSchemaError(plan.unknown, whereIs(config));
      for (const p of plan.pending) {
        console.log(`would apply ${p.tag} (${p.statements.length} statement${p.statements.length === 1 ? "" : "s"}):`);
        for (const st of p.statements) console.log("  " + st.replace(/\s*\n\s*/g, " ").slice(0, 200) + (st.length > 200 ? " …" : ";"));
      }
      const backup =
        plan.pending.length > 0 && !plan.empty && database.isLocal
          ? `, after a backup to ${join(config.dataDir, "backups")}/pre-migrate-<time>.db`
          : "";
      console.log(
        `migrations: ${plan.pending.length} would be applied${backup}, ${plan.applied.length} already there (dry run: nothing changed)`,
      );
      return 0;
    } finally {
      database.close();
    }
  }
  // its log lines (the backup taken first) go to stderr: stdout holds the command's answer
  const toStderr = createLogger(
    config.logLevel,
    (line) => process.stderr.write(line + "\n"),
    resolveLogFormat(config.logFormat, process.stderr.isTTY === true),
  );
  const { database, result } = await openAndMigrate(config, toStderr);
  database.close();
  console.log(`migrations: ${result.applied.length} applied, ${result.skipped.length} already there`);
  return 0;
}

/**
 * Runs a parsed command (not help, not version: main answers those); resolves to the exit code,
 * or -1 for a server that keeps running. Throws ConfigError or CliError for main to print.
 */
export async function runCommand(cli: Extract<CommandLine, { kind: "run" }>): Promise<number> {
  const { command, args, flags } = cli;
  if (command.name === "talents lint") return lintCommand(args);
  if (command.name === "talents export") return exportCommand(cli);
  if (command.name === "migrate-to") return (await import("./migrateTo")).migrateTo(cli);
  // doctor looks at the data folder as it is: it creates nothing
  const config = loadConfig(process.env, cli.config, { checkDataDir: command.name !== "doctor" });
  const log = createLogger(config.logLevel, undefined, resolveLogFormat(config.logFormat, process.stdout.isTTY === true));
  switch (command.name) {
    case "serve":
      await serve(config, log);
      return -1; // keeps running
    case "migrate":
      return migrateCommand(config, Boolean(flags["dry-run"]));
    case "backup": {
      // the database as it is: a backup taken before an upgrade must not run the new binary's migrations
      if (isPostgresUrl(config.databaseUrl)) throw new CliError(pgToolsLine(config.databaseUrl, "backup"));
      const path = databasePath(config.databaseUrl);
      if (path === null) throw new Error("backup works on a local database file; back up a libSQL server with its own tools");
      const r = snapshotDatabase(path, args[0]!);
      console.log(`backup written to ${r.file} (${r.bytes} bytes, ${r.tables} tables, integrity_check ok)`);
      return 0;
    }
    case "restore": {
      if (isPostgresUrl(config.databaseUrl)) throw new CliError(pgToolsLine(config.databaseUrl, "restore"));
      const path = databasePath(config.databaseUrl);
      if (path === null) throw new Error("restore works on a local database file; restore a libSQL server with its own tools");
      const r = restoreDatabase(args[0]!, path, join(config.dataDir, "backups"));
      console.log(
        `restored ${resolve(args[0]!)} to ${r.target} (${r.bytes} bytes, integrity_check ok, migrations ${r.migrations.at(-1) ?? "none"})`,
      );
      if (r.previous) console.log(`the database it replaced is kept as ${r.previous}`);
      console.log("start the server now: it applies any newer migration after a backup");
      return 0;
    }
    case "doctor": {
      const findings = doctorLocal(config);
      for (const line of formatDoctor(findings)) console.log(line);
      const code = doctorExitCode(findings);
      const n = (l: string) => findings.filter((f) => f.level === l).length;
      console.error(`doctor: ${n("ok")} ok, ${n("warn")} warning(s), ${n("fail")} failure(s) (exit ${code})`);
      return code;
    }
    case "keys rotate": {
      const r = isPostgresUrl(config.databaseUrl) ? await rotateInDatabase(config, log) : rotateSigningKeys(config.dataDir);
      const old = r.retired ? `; ${r.retired.kid} is rotated out and still verifies what it signed` : "";
      console.log(`signing key ${r.current.kid} now signs${old}`);
      return 0;
    }
    case "admin create": {
      const email = flags.email as string;
      const password = await readStdin();
      const { database } = await openAndMigrate(config, log);
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
