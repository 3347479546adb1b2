/**
 * What the routes receive: the dependencies main (or a test) hands createApp, and what createApp
 * adds to them. Defined below the composition root so that domains import this file, never
 * `app.ts` (only main, build and tests import the root).
 */
import type { TraceJournal } from "./activity/journal";
import type { Catalog } from "./catalog/catalog";
import type { Config } from "./config";
import type { Database } from "./db/client";
import type { AuthLimiters } from "./identity/limits";
import type { Logger } from "./lib/log";
import type { Backups } from "./ops/backups";
import type { HttpMetrics } from "./ops/metrics";
import type { ViewRegistry } from "./ui/views";

/** Mutable process state the routes read (readiness, the loaded catalog). */
export interface AppState {
  catalog: Catalog | null;
  draining: boolean;
}

/** What main or a test hands createApp. */
export interface AppDeps {
  config: Config;
  database: Database;
  log: Logger;
  state: AppState;
  /** The activity journal; createApp makes one when absent (main passes its own to flush at shutdown). */
  journal?: TraceJournal;
  /** Request counters for /metrics; createApp makes one when absent. */
  metrics?: HttpMetrics;
  /** Scheduled backups (serve passes its started one); createApp makes an unscheduled one when absent. */
  backups?: Backups;
}

/** What createApp adds for the routes: the journal, the one pair of sign-in limiters every sign-in path shares, metrics, backups and the app's view registry. */
export type ComposedDeps = AppDeps & {
  journal: TraceJournal;
  authLimiters: AuthLimiters;
  metrics: HttpMetrics;
  backups: Backups;
  views: ViewRegistry;
};
