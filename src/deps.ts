/**
 * What every route plugin receives, of the lowest layers only: the configuration, the database
 * and the logger (and, for the plugins that register HTML answers, the app's view registry).
 * A domain that needs more declares its own slice on top of these (catalog/state.ts CatalogDeps,
 * journal/journal.ts JournalDeps, identity/limits.ts SignInDeps, ops/routes.ts OpsDeps); the
 * composition root (app.ts) builds the whole (ComposedDeps) and hands each plugin its slice, so
 * this file imports no domain and every domain may import it.
 */
import type { Config } from "./config";
import type { Database } from "./db/client";
import type { Logger } from "./lib/log";
import type { ViewRegistry } from "./ui/views";

/** The configuration, the database and the logger: what main or a test hands createApp first. */
export interface CoreDeps {
  config: Config;
  database: Database;
  log: Logger;
}

/** CoreDeps with the app's view registry (fragments and form redirects of its /web routes: ui/views.ts). */
export interface ViewDeps extends CoreDeps {
  views: ViewRegistry;
}
