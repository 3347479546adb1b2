/** `talentd backup FILE`: a consistent snapshot with VACUUM INTO, verified by integrity_check. */
import { createClient } from "@libsql/client";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Database } from "./client";

/** Writes a snapshot of the live database to `file` and checks it opens and is intact. */
export async function backupDatabase(database: Database, file: string): Promise<{ file: string; bytes: number; tables: number }> {
  if (!database.isLocal) throw new Error("backup works on a local database file; back up a libSQL server with its own tools");
  const target = resolve(file);
  if (existsSync(target)) throw new Error(`${target} already exists; choose a new file name`);
  await database.client.execute({ sql: "VACUUM INTO ?", args: [target] });
  const copy = createClient({ url: `file:${target}` });
  try {
    const check = await copy.execute("PRAGMA integrity_check");
    const verdict = String(check.rows[0]?.[0] ?? "");
    if (verdict !== "ok") throw new Error(`integrity_check of the backup says: ${verdict}`);
    const tables = Number((await copy.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'")).rows[0]?.[0] ?? 0);
    return { file: target, bytes: Bun.file(target).size, tables };
  } finally {
    copy.close();
  }
}
