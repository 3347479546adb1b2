/**
 * The backup thread (a Bun Worker started for one scheduled or pre-migration backup): runs
 * `snapshotDatabase` (VACUUM INTO + integrity_check, synchronous in the native driver) off the
 * thread serving requests, then answers once. Built as an entrypoint of dist/talentd (build.ts).
 */
import { snapshotDatabase } from "./backup";

declare const self: Worker;

export interface BackupRequest {
  source: string;
  target: string;
}

export type BackupReply = { ok: true; file: string; bytes: number; tables: number } | { ok: false; error: string };

self.onmessage = (event: MessageEvent<BackupRequest>) => {
  let reply: BackupReply;
  try {
    reply = { ok: true, ...snapshotDatabase(event.data.source, event.data.target) };
  } catch (e) {
    reply = { ok: false, error: (e as Error)?.message ?? String(e) };
  }
  postMessage(reply);
};
