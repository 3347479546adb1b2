/**
 * The configuration epoch (migration 0008): `config_epoch.epoch`, which triggers bump on every
 * change to a configuration table by any connection or process. The caches of configuration
 * rows — keys, sessions, memberships, projects, selections, servable expertises — are kept for
 * one epoch (Database.configEpoch), so the service's own activity commits (a prepare-task's
 * resolution, a report, trace events: dozens a second under agents) no longer drop them, while
 * any other change, made anywhere, still does. test/ops/db.test.ts checks that every table is in one
 * of the two lists below and that each of the first has its three triggers.
 */

/** Tables whose every change bumps the epoch. */
export const EPOCH_TABLES = [
  "api_keys",
  "expertise_versions",
  "expertises",
  "external_accounts",
  "installed_talents",
  "invitations",
  "key_tombstones",
  "members",
  "oauth_clients",
  "oauth_codes",
  "oauth_tokens",
  "organizations",
  "org_policies",
  "password_resets",
  "project_relevance",
  "projects",
  "sessions",
  "setup_tokens",
  "specializations",
  "sso_connections",
  "sso_domains",
  "sso_nonces",
  "users",
  "email_verifications",
  "pending_links",
  "project_hook_rules",
] as const;

/**
 * Tables that do not: the activity log and what only grows with it (read through the data
 * version, src/db/versionMemo.ts keptRead, or not cached), the mail queue, the epoch itself and
 * the migrator's own.
 */
export const NON_EPOCH_TABLES = [
  "trace_events",
  "resolutions",
  "designation_items",
  "reports",
  "report_results",
  "content_blobs",
  "security_events",
  "mail_outbox",
  "talent_days",
  "trace_hours",
  "resolution_hours",
  "audit_entries",
  "rule_finding_days",
  "talent_client_days",
  "evals",
  "config_epoch",
  "__talentd_migrations",
  "signing_keys",
  "rate_counters",
] as const;
