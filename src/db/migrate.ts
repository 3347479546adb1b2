/**
 * Applies the SQL migrations embedded in the binary (migrations/index.ts), each in one
 * transaction, recording what ran in `__talentd_migrations`. Safe to run again: applied
 * migrations are skipped.
 */
import type { Client } from "@libsql/client";
import { migrations as embedded, type EmbeddedMigration } from "../../migrations";
import { sha256Hex } from "../lib/crypto";

export interface MigrationResult {
  applied: string[];
  skipped: string[];
}

/** Applies every migration not yet recorded; returns which ran and which were already there. */
export async function migrate(client: Client, list: EmbeddedMigration[] = embedded): Promise<MigrationResult> {
  await client.execute(
    "CREATE TABLE IF NOT EXISTS __talentd_migrations (tag TEXT PRIMARY KEY, hash TEXT NOT NULL, applied_at INTEGER NOT NULL)",
  );
  const done = new Map(
    (await client.execute("SELECT tag, hash FROM __talentd_migrations")).rows.map((r) => [String(r.tag), String(r.hash)]),
  );
  const result: MigrationResult = { applied: [], skipped: [] };
  for (const m of list) {
    const hash = sha256Hex(m.sql);
    const seen = done.get(m.tag);
    if (seen !== undefined) {
      if (seen !== hash) throw new Error(`migration ${m.tag} was changed after it was applied (hash differs)`);
      result.skipped.push(m.tag);
      continue;
    }
    const statements = m.sql
      .split("--> statement-breakpoint")
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    await client.batch(
      [
        ...statements,
        { sql: "INSERT INTO __talentd_migrations (tag, hash, applied_at) VALUES (?, ?, ?)", args: [m.tag, hash, Date.now()] },
      ],
      "write",
    );
    result.applied.push(m.tag);
  }
  return result;
}
