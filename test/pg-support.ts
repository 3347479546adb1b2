/**
 * A real PostgreSQL for the tests (docs/operations.md "PostgreSQL"): Debian's server
 * binaries start a throwaway cluster in a temp folder (one at a time per test process), listening on a free
 * port of 127.0.0.1 with its socket in that folder; each test file asks for its own database
 * (`pgDatabase`) and drops it after. The cluster runs as the `postgres` user (the tests run as
 * root, which PostgreSQL refuses) with fsync off and small buffers, from a copy of a data directory
 * initdb made once per machine: it starts in well under a second.
 * It stops when the last database handed out is dropped, or by a watchdog when the process ends.
 *
 * Without the binaries a test file skips, saying why — except when CI=true, where .ci/run installs
 * them and their absence is a failure.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The folder of the newest installed server's binaries, or null. */
export function pgBinDir(): string | null {
  const root = process.env.PG_BIN_ROOT ?? "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")) && existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : null;
}

/**
 * Why the PostgreSQL tests cannot run here, or null when they can. Under CI=true a missing server
 * throws: CI installs it, so a skip there would hide the tests.
 */
export function pgUnavailable(): string | null {
  const bin = pgBinDir();
  if (bin) return null;
  const why = "PostgreSQL's server binaries are absent (apt-get install -y postgresql; .ci/run does it)";
  if (process.env.CI === "true") throw new Error(`CI=true: ${why}`);
  console.warn(`skipping the PostgreSQL tests: ${why}`);
  return why;
}

export interface PgCluster {
  port: number;
  /** The temp folder: data directory, socket and server log. */
  dir: string;
  /** Milliseconds from initdb to accepting connections. */
  startupMs: number;
  /** A URL for `database` as the cluster's superuser. */
  url(database: string): string;
  /** Runs one SQL statement through psql on the `postgres` database; throws with psql's output on failure. */
  psql(sql: string, database?: string): string;
  /** Stops the server at once (`pg_ctl stop -m immediate`: a crash, connections cut), keeping its data. */
  halt(): void;
  /** Starts the halted server again on the same port and data (crash recovery replays its WAL). */
  resume(): void;
  stop(): void;
}

let cluster: PgCluster | null = null;
let databases = 0;
/** Databases handed out and not dropped: the cluster stops when the last one is. */
let live = 0;

function run(cmd: string, args: string[], env: Record<string, string> = {}): string {
  // runuser: the server refuses to run as root, and the data directory must be its own user's
  const r = spawnSync("runuser", ["-u", "postgres", "--", cmd, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts the process's cluster (once); every later call returns it. `durable` (benches): fsync,
 * synchronous commits and full page writes on, as a production server runs, instead of off.
 */
export async function pgCluster(want: { durable?: boolean } = {}): Promise<PgCluster> {
  if (cluster) return cluster;
  const bin = pgBinDir();
  if (!bin) throw new Error("PostgreSQL's server binaries are absent");
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), "talentd-pg-"));
  chmodSync(dir, 0o755);
  const { uid, gid } = postgresUser();
  chownSync(dir, uid, gid);
  const data = join(dir, "data");
  try {
    copyTemplate(bin, data);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true }); // nothing runs there yet
    throw e;
  }
  const port = await freePort();
  const opts = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    ...(want.durable
      ? ["-c shared_buffers=128MB"]
      : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off", "-c shared_buffers=16MB"]),
    "-c max_connections=50",
  ].join(" ");
  const start = () => run(join(bin, "pg_ctl"), ["-D", data, "-o", opts, "-l", join(dir, "server.log"), "-w", "-t", "30", "start"]);
  try {
    start();
  } catch (e) {
    spawnSync("runuser", ["-u", "postgres", "--", join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const stop = () => {
    try {
      run(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      /* already stopped */
    }
    rmSync(dir, { recursive: true, force: true });
    cluster = null;
  };
  // a watchdog stops the cluster if this process ends without dropping its databases (a crash,
  // bun test's exit, which runs no exit handlers that spawn)
  const watchdog = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; runuser -u postgres -- ${join(bin, "pg_ctl")} -D ${data} -m immediate stop >/dev/null 2>&1; rm -rf ${dir}`;
  spawn("sh", ["-c", watchdog], { detached: true, stdio: "ignore" }).unref();
  cluster = {
    port,
    dir,
    startupMs: performance.now() - t0,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    psql: (sql, database = "postgres") =>
      run(join(bin, "psql"), [
        "-X",
        "-q",
        "-A",
        "-t",
        "-v",
        "ON_ERROR_STOP=1",
        "-h",
        "127.0.0.1",
        "-p",
        String(port),
        "-U",
        "postgres",
        "-d",
        database,
        "-c",
        sql,
      ]),
    halt: () => void run(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]),
    resume: () => void start(),
    stop,
  };
  return cluster;
}

/**
 * A data directory made by initdb once per machine and server version (in the temp folder),
 * copied for each cluster: initdb's bootstrap takes 1–7 s on a busy machine, the copy a fraction.
 */
function copyTemplate(bin: string, data: string): void {
  const template = join(tmpdir(), `talentd-pg-template-${bin.split("/").at(-2)}`);
  if (!existsSync(join(template, "PG_VERSION"))) {
    const partial = `${template}.partial-${process.pid}`;
    const { uid, gid } = postgresUser();
    mkdirSync(partial, { mode: 0o700 });
    chownSync(partial, uid, gid);
    try {
      run(join(bin, "initdb"), ["-D", partial, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
    } catch (e) {
      rmSync(partial, { recursive: true, force: true });
      throw e;
    }
    try {
      renameSync(partial, template); // another process may have made it meanwhile: theirs is as good
    } catch {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  const r = spawnSync("cp", ["-a", template, data]);
  if (r.status !== 0) throw new Error(`copying the PostgreSQL template failed: ${r.stderr}`);
}

function postgresUser(): { uid: number; gid: number } {
  const r = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const g = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error("there is no postgres user (the postgresql package makes it)");
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

export interface PgDatabase {
  url: string;
  name: string;
  cluster: PgCluster;
  /** Drops the database; the cluster stops with the last one. */
  drop(): void;
}

/** A new, empty database on the process's cluster (one per test file). */
export async function pgDatabase(prefix = "t", opts: { durable?: boolean } = {}): Promise<PgDatabase> {
  const c = await pgCluster(opts);
  const name = `${prefix}_${process.pid}_${++databases}`;
  c.psql(`CREATE DATABASE ${name}`);
  live++;
  let dropped = false;
  return {
    url: c.url(name),
    name,
    cluster: c,
    drop: () => {
      if (dropped) return;
      dropped = true;
      try {
        c.psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } catch {
        /* the cluster is gone */
      }
      if (--live === 0) c.stop();
    },
  };
}
