/**
 * What several replicas of the service on one PostgreSQL database must agree on, and a single
 * process keeps in memory or in its data folder (docs/design.md "Several replicas: what is
 * shared"). Both dialects have the tables (one schema); on SQLite they stay empty: the signing
 * keys live in DATA_DIR/signing-keys.json and the limits count in memory there.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The instance's Ed25519 signing keys on PostgreSQL (src/signing/keyStore.ts), as the key file holds them. */
export const signingKeys = sqliteTable("signing_keys", {
  kid: text("kid").primaryKey(),
  x: text("x").notNull(),
  /** The private part (base64url), as the key file stores it. */
  d: text("d").notNull(),
  /** Seconds. */
  createdAt: integer("created_at").notNull(),
  /** Seconds; null for the key that signs. */
  retiredAt: integer("retired_at"),
});

/**
 * Rate-limit counters on PostgreSQL (src/db/sharedLimits.ts): hits of one key of one limit in one
 * fixed window, counted by an atomic upsert; `expires_at` (ms) lets housekeeping prune them.
 */
export const rateCounters = sqliteTable(
  "rate_counters",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    /** The window's start (ms since the epoch, a multiple of the window's length). */
    windowStart: integer("window_start").notNull(),
    count: integer("count").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key, t.windowStart] })],
);
