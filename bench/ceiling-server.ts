/**
 * The bench-only server of the ceilings bench's ratios (docs/performance.md): the real application (same routes, same edge,
 * same writer thread) plus two ceiling routes that exist nowhere else, so each ratio is taken
 * against a ceiling of the same work in the same process and run:
 * - `POST /bench/prepare-ceiling`: the bytes of one real prepare-task answer (captured on the
 *   first call by sending that call to `/api/prepare-task` with the caller's key), then, on every
 *   call, the same object serialized again — no key, no write, no trace;
 * - `GET /bench/catalog`: `GET /api/catalog`'s handler with no key guard and no trace (a
 *   constant principal: the handler reads none);
 * - `GET /bench/catalog-guarded`: the same handler behind the key guard, without the trace, to
 *   split the key route's overhead between the guard and the trace;
 * - on a second port (FLOOR_PORT), the same application over the same database except that
 *   prepare-task's resolution job is dropped instead of written: everything a call does but its
 *   durable write (key, designation, answer, trace), where the floor of targets 1 and 3 is read;
 * - on a fourth port (DEFER_FLOOR_PORT), the same as FLOOR_PORT except that the dropped job's
 *   promise resolves in a later turn of the event loop (setImmediate), as an answer after any
 *   commit on another thread must: the floor of target 1 for a design that answers after its
 *   durable write, with no write at all;
 * - on a fifth port (BARE_FLOOR_PORT), the same as FLOOR_PORT except that the resolution's job
 *   is replaced by a bare durable job on the same writer thread (one row of a bench-only
 *   one-row table, updated): the answer waits for a group commit with its fsync as the real one
 *   does, but the commit carries none of the resolution's pages — target 3's commit path alone;
 * - on a third port (TRACE_FLOOR_PORT), the same application with the trace events' inserts
 *   dropped: the key route with its guard and its trace built, batched and sent on the request
 *   thread, but nothing inserted on the writer thread (target 2's floor on this 2-core machine).
 * Run by bench/ceilings.ts as `bun bench/ceiling-server.ts` with the serve environment
 * (DATA_DIR, TALENTS_DIR, PORT, HOST, BASE_URL).
 */
import "../src/production";
import { Elysia } from "elysia";
import { createApp } from "../src/app";
import { createGuards } from "../src/auth/guards";
import { CATALOG_PAGE_MAX, catalogPage } from "../src/catalog/routes";
import { loadCatalog, slimCatalog } from "../src/catalog/startup";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db/client";
import { migrate } from "../src/db/migrate";
import { intParam, strParam } from "../src/http/query";
import { createLogger } from "../src/lib/log";

const config = loadConfig(process.env, {}, { checkDataDir: true });
const log = createLogger("error");
const database = await openDatabase(config.databaseUrl);
await migrate(database.client);
const loaded = await loadCatalog(config.talentsDir, log);
const state = { catalog: loaded.catalog, draining: false };
const app = createApp({ config, database, log, state });

let captured: unknown = null;
app
  .post("/bench/prepare-ceiling", async ({ request, body, set }) => {
    if (captured === null) {
      const real = await app.handle(
        new Request(new URL("/api/prepare-task", request.url), { method: "POST", headers: request.headers, body: JSON.stringify(body) }),
      );
      if (real.status !== 201) return new Response(await real.text(), { status: real.status });
      captured = await real.json();
    }
    // answered as the real route answers: an object Elysia serializes, status 201
    set.status = 201;
    return captured as Record<string, unknown>;
  })
  .get("/bench/catalog", ({ query }) =>
    catalogPage(state.catalog, intParam(query, "limit", 1, CATALOG_PAGE_MAX, 50), strParam(query, "cursor", 200)),
  )
  .use(
    new Elysia()
      .use(createGuards({ config, database, log }))
      .get(
        "/bench/catalog-guarded",
        ({ query }) => catalogPage(state.catalog, intParam(query, "limit", 1, CATALOG_PAGE_MAX, 50), strParam(query, "cursor", 200)),
        { key: "catalog" },
      ),
  );

app.listen({ port: config.port, hostname: config.host });
type Job = Parameters<typeof database.writeJob>[0];
/** Jobs with a statement that starts with `prefix` (the resolution's, after its designation's items the first time; the trace's). */
const withStatement = (prefix: string) => (job: Job) => job.statements.some((s) => s.sql.startsWith(prefix));
const isResolution = withStatement("INSERT INTO resolutions ");
const isTrace = withStatement("INSERT INTO trace_events ");
/**
 * The same app and database on another port, except that the jobs `picked` chooses are answered
 * by `instead` (nothing of theirs written); every other job is written as usual.
 */
function floorListener(port: string | undefined, picked: (job: Job) => boolean, instead: () => Promise<unknown>): void {
  if (!port) return;
  const db = { ...database, writeJob: <T>(job: Job) => (picked(job) ? (instead() as Promise<T | undefined>) : database.writeJob<T>(job)) };
  createApp({ config, database: db, log, state }).listen({ port: Number(port), hostname: config.host });
}
floorListener(process.env.FLOOR_PORT, isResolution, () => Promise.resolve(undefined));
floorListener(
  process.env.DEFER_FLOOR_PORT,
  isResolution,
  () => new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined))),
);
if (process.env.BARE_FLOOR_PORT) {
  await database.client.execute("CREATE TABLE IF NOT EXISTS bench_commit (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
  const bare: Job = {
    statements: [{ sql: "INSERT INTO bench_commit (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = n + 1" }],
    durable: true,
  };
  floorListener(process.env.BARE_FLOOR_PORT, isResolution, () => database.writeJob(bare));
}
floorListener(process.env.TRACE_FLOOR_PORT, isTrace, () => Promise.resolve(undefined));
void slimCatalog(database, loaded.catalog, loaded.extraFolders, log);
console.log(`ready ${config.port}`);
