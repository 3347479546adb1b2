/** The process state the catalog's readers see: the loaded catalog (null until it is) and readiness. */
import type { CoreDeps } from "../deps";
import type { Catalog } from "./catalog";

/** Mutable process state the routes read (readiness, the loaded catalog). */
export interface AppState {
  catalog: Catalog | null;
  draining: boolean;
  /** On PostgreSQL, whether this replica runs the background work now (db/leader.ts; /readyz says it). */
  leader?: boolean;
}

/** CoreDeps with the process state: what a reader of the loaded catalog receives. */
export interface CatalogDeps extends CoreDeps {
  state: AppState;
}
