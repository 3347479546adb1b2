/**
 * What `serve` runs beside the server once it listens: the setup link, the catalog's slimming,
 * scheduled backups, and the work that must run once across replicas — housekeeping and mail
 * delivery — on the leader only (db/leader.ts, ops/leaderJobs.ts). On SQLite the process is
 * always the leader; on PostgreSQL each replica competes for the lock, /readyz says which leads,
 * and another takes over within seconds when the leader dies.
 */
import { join } from "node:path";
import type { loadCatalog } from "../catalog/startup";
import { slimCatalog } from "../catalog/startup";
import type { AppState } from "../catalog/state";
import type { Config } from "../config";
import type { Database } from "../db/client";
import { alwaysLeader, pgLeadership } from "../db/leader";
import { issueSetupToken } from "../identity/service";
import type { Logger } from "../lib/log";
import { MailDelivery } from "../mail/delivery";
import type { Backups } from "../ops/backups";
import { startHousekeeping } from "../ops/housekeeping";
import { runWhileLeader } from "../ops/leaderJobs";
import { publicUrlNotice } from "./listen";

/** On PostgreSQL the leader looks at the outbox this often: mails queued by another replica wait at most this long. */
export const PG_MAIL_POLL_MS = 5_000;

/** SMTP_URL for the log: scheme, host and port, never the credentials. */
function smtpDisplay(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

/** What shutdown stops: the leader's jobs (housekeeping and mail delivery, waiting for the mail in flight), then the lock. */
export interface Background {
  stopLeaderJobs: () => Promise<void>;
}

/** Starts the background work; see the file's comment. */
export async function startBackground(
  config: Config,
  log: Logger,
  {
    database,
    loaded,
    backups,
    port,
    state,
  }: { database: Database; loaded: Awaited<ReturnType<typeof loadCatalog>>; backups: Backups; port: number; state: AppState },
): Promise<Background> {
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
  backups.start();
  const pg = database.dialect === "postgres";
  const leadership = pg
    ? await pgLeadership(config.databaseUrl, {
        onError: (e) => log.debug("leadership: the lock's connection failed", { error: String(e) }),
      })
    : alwaysLeader;
  const mailJob = () => {
    // the outbox's delivery loop: mails queued while SMTP was down (or before a restart) leave now
    const mail = new MailDelivery({ database, config, log, ...(pg ? { pollMs: PG_MAIL_POLL_MS } : {}) });
    mail.start();
    return () => mail.stop();
  };
  const stopJobs = runWhileLeader(
    leadership,
    [() => startHousekeeping(database, log, config), ...(config.smtpUrl === undefined ? [] : [mailJob])],
    (leader) => {
      state.leader = leader;
      if (pg) log.info(leader ? "this replica leads: housekeeping and mail delivery run here" : "this replica does not lead");
    },
  );
  log.info(
    config.smtpUrl !== undefined ? "mail delivery on" : "no SMTP_URL: mails are written to the log and the outbox table",
    config.smtpUrl !== undefined ? { smtp: smtpDisplay(config.smtpUrl), from: config.mailFrom, leaderOnly: pg } : {},
  );
  if (config.backupIntervalMs !== null) {
    log.info("scheduled backups", {
      every: config.backupIntervalMs / 1000,
      keep: config.backupKeep,
      folder: join(config.dataDir, "backups"),
      nextAt: new Date(backups.status().nextAt ?? Date.now()).toISOString(),
    });
  }
  return {
    stopLeaderJobs: async () => {
      await stopJobs();
      await leadership.close();
    },
  };
}
