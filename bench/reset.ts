/**
 * Password-reset requests for an account and for an unknown e-mail, in process (app.handle over
 * a real database file, so the per-address limit does not apply), interleaved: the answer's
 * time per case and the share of pairs where the account's was slower (a half means no tell).
 * The account-dependent work runs after the answer and is waited for between samples, outside
 * the timing. BENCH_RESETS overrides the number of pairs (default 300).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app";
import { buildCatalog } from "../src/catalog/catalog";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db/client";
import { migrate } from "../src/db/migrate";
import { resetRequestsSettled } from "../src/identity/passwordReset";
import { createLogger } from "../src/lib/log";
import { percentile, printTable } from "./lib";

/** Prints the reset-request timing table. */
export async function benchReset(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "talentd-bench-reset-"));
  const config = loadConfig({ DATA_DIR: dir, BASE_URL: "http://localhost:8787", ACCESS_LOG: "false" }, {}, { checkDataDir: true });
  const database = await openDatabase(config.databaseUrl);
  try {
    await migrate(database.client);
    const catalog = buildCatalog([], [], {}, []).catalog;
    const app = createApp({ config, database, log: createLogger("error", () => {}), state: { catalog, draining: false } });
    const pairs = Number(process.env.BENCH_RESETS ?? 300);
    const now = Date.now();
    // one account per pair: the per-e-mail limit (3 mails in 15 min) must not spare the account's work
    await database.client.batch(
      Array.from({ length: pairs + 20 }, (_, i) => ({
        sql: "INSERT INTO users (id, email, name, password_hash, role, created_at, updated_at) VALUES (?, ?, '', 'x', 'user', ?, ?)",
        args: [`usr_bench${i}`, `account${i}@example.com`, now, now],
      })),
      "write",
    );
    const timed = async (email: string): Promise<number> => {
      const t = performance.now();
      const r = await app.handle(
        new Request(`${config.baseUrl}/api/auth/password-reset`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email }),
        }),
      );
      await r.text();
      const ms = performance.now() - t;
      if (r.status !== 202) throw new Error(`password-reset ${r.status}`);
      await resetRequestsSettled();
      return ms;
    };
    const account: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 20; i++) await timed(`account${pairs + i}@example.com`), await timed(`warm${i}@example.com`);
    for (let i = 0; i < pairs; i++) {
      account.push(await timed(`account${i}@example.com`));
      unknown.push(await timed(`nobody${i}@example.com`));
    }
    const slower = account.filter((a, i) => a > unknown[i]!).length / pairs;
    const row = (name: string, xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return [name, percentile(s, 50).toFixed(3), percentile(s, 90).toFixed(3), percentile(s, 99).toFixed(3)];
    };
    printTable(
      `Password-reset request, answer time (${pairs} interleaved pairs, in process)`,
      ["e-mail", "p50 ms", "p90 ms", "p99 ms"],
      [
        row("an account", account),
        row("unknown", unknown),
        ["account slower in", `${(slower * 100).toFixed(0)}% of pairs`, "", "target ≈ 50%"],
      ],
    );
  } finally {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
