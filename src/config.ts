/**
 * Configuration: command-line flags, then environment variables, then the defaults written
 * beside each field. Parsed once at start into a typed object that is passed down; no other
 * module reads `process.env`.
 */
import { resolve } from "node:path";
import {
  ConfigError,
  ensureWritableDir,
  parseBool,
  intSettingOf,
  type Get,
  parseInterval,
  parseOAuthProviders,
  AUTH_LIMIT_SETTINGS,
  type AuthLimitSettings,
  type OAuthProviders,
} from "./configParsers";
import { parseAllowEntry, type EgressPolicy } from "./lib/egress";
import type { LogFormatSetting, LogLevel } from "./lib/log";
import { NO_TRUSTED_PROXIES, parseTrustedProxies, type TrustedProxies } from "./lib/proxies";

export { AUTH_LIMIT_SETTINGS, type AuthLimitSettings };

export interface Config {
  /** PORT / --port. Default 8787. 0 picks a free port (tests). */
  port: number;
  /** HOST / --host. Default 0.0.0.0 (all interfaces, so agents on the LAN can reach it). */
  host: string;
  /** BASE_URL / --base-url. Default http://localhost:PORT. The public origin (OAuth, links, CSRF). */
  baseUrl: string;
  /** True when BASE_URL was not given and `baseUrl` is the localhost default (serve then says so at start). */
  baseUrlFromDefault: boolean;
  /** DATA_DIR / --data-dir. Default ./data (created at start). */
  dataDir: string;
  /** DATABASE_URL / --database-url. Default file:DATA_DIR/talentd.db; libsql:// or http(s):// for a server; postgres:// (preview). */
  databaseUrl: string;
  /** DATABASE_AUTH_TOKEN. Default none (for a remote libSQL server). */
  databaseAuthToken: string | undefined;
  /** TALENTS_DIR / --talents-dir. Default none: an extra catalog folder merged over the embedded one. */
  talentsDir: string | undefined;
  /** SMTP_URL (`smtp://user:pass@host:587`, `smtps://…:465`). Default none: mails go to the log and the outbox table only. */
  smtpUrl: string | undefined;
  /** MAIL_FROM (`talentd@example.com` or `talentd <talentd@example.com>`). Default talentd@<host of BASE_URL>. */
  mailFrom: string;
  /** MAIL_MAX_ATTEMPTS. Default 8: after this many failed deliveries a mail is marked failed (shown to its organization's admins). */
  mailMaxAttempts: number;
  /** MAIL_RETRY_BASE (`30s`, `1m`). Default 30 s: the wait after the first failed delivery, doubled after each one, at most 1 h. In ms. */
  mailRetryBaseMs: number;
  /** AUTO_APPROVE_ORGS. Default false: new organizations wait for a platform admin. */
  autoApproveOrgs: boolean;
  /** KEYS_ENABLED. Default true: false turns the project-key API off (every key gets 401). */
  keysEnabled: boolean;
  /**
   * SIGNING. Default true: resolutions and report receipts are signed with the instance's Ed25519
   * key (DATA_DIR/signing-keys.json, created at the first start) and the public keys are served at
   * /.well-known/jwks.json; false signs nothing (answers carry no attestation).
   */
  signing: boolean;
  /**
   * CONTENT_LINK_HOSTS: host names (comma-separated; their subdomains too) a talent's prose may
   * link to besides the documentation hosts the content check allows (catalog/contentCheck.ts
   * DEFAULT_LINK_HOSTS). Default none.
   */
  contentLinkHosts: string[];
  /** BODY_LIMIT (bytes). Default 1 MiB: larger request bodies get 413 payload_too_large. */
  bodyLimit: number;
  /** LOG_LEVEL / --log-level. Default info. */
  logLevel: LogLevel;
  /** LOG_FORMAT. Default auto: readable text lines when stdout is a terminal, JSON lines otherwise. */
  logFormat: LogFormatSetting;
  /** ACCESS_LOG. Default true: one log line per request. */
  accessLog: boolean;
  /** EVENT_RETENTION_DAYS. Default 90: trace and security events older than this are deleted hourly; 0 keeps them forever. */
  eventRetentionDays: number;
  /**
   * DASHBOARD_READS_PER_USER. Default 2: heavy dashboard reads (activity summaries, a talent's usage, insights, adoption) one
   * user may have in flight at once; the next gets 429 rate_limited with Retry-After (1–100).
   */
  dashboardReadsPerUser: number;
  /** BACKUP_INTERVAL (`30m`, `6h`, `1d`). Default none (0, `off`): no scheduled backups. In ms. */
  backupIntervalMs: number | null;
  /** BACKUP_KEEP. Default 7: scheduled backups kept in DATA_DIR/backups (older ones are deleted). */
  backupKeep: number;
  /** OAUTH_MAX_CLIENTS. Default 10000: dynamic client registrations kept at once; when full (after deleting the unused ones) → 503. */
  oauthMaxClients: number;
  /** OAUTH_UNUSED_CLIENT_DAYS. Default 1: a client registered (or consented to) that got no token within this many days is deleted. */
  oauthUnusedClientDays: number;
  /**
   * OAUTH_CLIENT_METADATA_LOOPBACK. Default false: a client_id that is a metadata document URL must be https on a
   * public host. True (development only): `http(s)://localhost`, `127.0.0.1` and `[::1]` client ids are fetched too.
   */
  oauthClientMetadataLoopback: boolean;
  /** METRICS_TOKEN. Default none: `/metrics` is off. Set, `/metrics` answers to `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /**
   * DNS_SERVERS (`10.0.0.2`, `127.0.0.1:5353`, comma-separated). Default none: the system's resolver.
   * Used to check the TXT records that prove an organization's SSO domains, and to resolve every egress fetch's
   * host name (`egress.dnsServers`, lib/egress.ts).
   */
  dnsServers: string[];
  /** External identity providers (docs/design.md), each enabled by its own OAUTH_<PROVIDER>_* settings; absent = not offered. */
  oauth: OAuthProviders;
  /**
   * What server-side fetches of URLs others chose (SSO issuers, SAML entry points) may reach beyond the public
   * internet (lib/egress.ts). `allowHosts`: EGRESS_ALLOW_HOSTS, comma-separated host names, `*.domain` patterns,
   * addresses and CIDR ranges (an IdP on the LAN). Default none. `allowLoopback`: EGRESS_ALLOW_LOOPBACK. Default
   * false: 127.0.0.0/8 and ::1 are refused (true for a local IdP, and in tests). `dnsServers`: DNS_SERVERS, which
   * resolve its host names when set.
   */
  egress: EgressPolicy;
  /**
   * TRUSTED_PROXIES (addresses and CIDRs, comma- or space-separated). Default none: the client address is the socket's
   * and X-Forwarded-For is ignored. A request from a listed peer takes its client from X-Forwarded-For (lib/proxies.ts).
   */
  trustedProxies: TrustedProxies;
  /**
   * REQUEST_DEADLINE (`30s`, `1m`). Default 30 s: a request's body must have arrived this long after its headers
   * (else 408 request_timeout and the connection closes); headers, and a request still unanswered, get a few seconds more. In ms.
   */
  requestDeadlineMs: number;
  /**
   * MAX_CONNECTIONS_PER_ADDRESS. Default 64: requests in progress per client address; beyond, 429 too_many_connections and the connection
   * closes.
   */
  maxConnectionsPerAddress: number;
  /** The sign-in, sign-up and reset limits (identity/limits.ts), each a count of its own setting; defaults below. */
  authLimits: AuthLimitSettings;
}

/**
 * The configuration flags and the environment variable each one overrides. The command line
 * (src/cli/args.ts) decides which commands accept which of them; values reach `loadConfig`
 * keyed by the variable's name, so a flag and its variable are validated by the same code.
 */
export const CONFIG_FLAGS = {
  port: "PORT",
  host: "HOST",
  "base-url": "BASE_URL",
  "data-dir": "DATA_DIR",
  "database-url": "DATABASE_URL",
  "talents-dir": "TALENTS_DIR",
  "log-level": "LOG_LEVEL",
} as const;

/** The name of a configuration flag, without its leading `--`. */
export type ConfigFlag = keyof typeof CONFIG_FLAGS;

const DB_SCHEMES = ["file:", "libsql:", "http:", "https:", "ws:", "wss:", "postgres:", "postgresql:"];

/** Reads one setting, flags before the environment; an empty value is unset. */

/** BASE_URL (default http://localhost:PORT), as an origin and a path without a trailing slash. */
function parseBaseUrl(get: Get, port: number): { baseUrl: string; baseUrlFromDefault: boolean } {
  const baseUrlFromDefault = get("BASE_URL") === undefined;
  let baseUrl = get("BASE_URL") ?? `http://localhost:${port}`;
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
    baseUrl = u.origin + u.pathname.replace(/\/+$/, "");
  } catch {
    throw new ConfigError(`BASE_URL: "${baseUrl}" is not an http(s) URL`);
  }
  return { baseUrl, baseUrlFromDefault };
}

/** A database URL as a message may show it: the password of `scheme://user:password@` hidden. */
const shown = (url: string) => url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, "$1:***@");

/** DATABASE_URL (default the file talentd.db in DATA_DIR), checked, with its scheme; a refusal never repeats its password. */
function parseDatabaseUrl(get: Get, dataDir: string): { databaseUrl: string; scheme: string } {
  let databaseUrl = get("DATABASE_URL") ?? `file:${resolve(dataDir, "talentd.db")}`;
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(databaseUrl)?.[0]?.toLowerCase();
  if (!scheme || !DB_SCHEMES.includes(scheme)) {
    throw new ConfigError(
      `DATABASE_URL: "${shown(databaseUrl)}" is malformed (expected file:PATH, libsql://HOST, http(s)://HOST, or postgres://HOST/DB)`,
    );
  }
  if (scheme === "file:") {
    const path = databaseUrl.slice(5);
    if (path === "" || (path.startsWith("//") && !path.startsWith("///"))) {
      throw new ConfigError(`DATABASE_URL: "${databaseUrl}" is malformed (expected file:PATH)`);
    }
  } else {
    try {
      const u = new URL(databaseUrl);
      if (!u.hostname) throw new Error();
      databaseUrl = u.toString().replace(/\/$/, "");
    } catch {
      throw new ConfigError(`DATABASE_URL: "${shown(databaseUrl)}" is malformed (no host)`);
    }
  }
  return { databaseUrl, scheme };
}

/** SMTP_URL, MAIL_FROM and MAIL_RETRY_BASE. */
function parseMail(get: Get, baseUrl: string): { smtpUrl: string | undefined; mailFrom: string; mailRetryBaseMs: number } {
  const smtpUrl = get("SMTP_URL");
  if (smtpUrl !== undefined) {
    let ok = false;
    try {
      const u = new URL(smtpUrl);
      ok = (u.protocol === "smtp:" || u.protocol === "smtps:") && u.hostname !== "";
    } catch {
      /* not a URL */
    }
    // the URL may carry a password: never echo it
    if (!ok)
      throw new ConfigError(
        `SMTP_URL: not an smtp://[user:password@]host[:port] or smtps:// URL (${smtpUrl.replace(/\/\/[^@/]*@/, "//***@").slice(0, 200)})`,
      );
  }
  const mailFrom = get("MAIL_FROM") ?? `talentd@${new URL(baseUrl).hostname}`;
  if (!/^(?:[^<>@\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(mailFrom.trim())) {
    throw new ConfigError(`MAIL_FROM: "${mailFrom}" is not an address (talentd@example.com or "talentd <talentd@example.com>")`);
  }
  const mailRetryBaseMs = get("MAIL_RETRY_BASE") === undefined ? 30_000 : parseInterval("MAIL_RETRY_BASE", get("MAIL_RETRY_BASE")!);
  if (mailRetryBaseMs === null || mailRetryBaseMs > 3_600_000)
    throw new ConfigError(`MAIL_RETRY_BASE: "${get("MAIL_RETRY_BASE")}" must be between 1s and 1h`);
  return { smtpUrl, mailFrom, mailRetryBaseMs };
}

/** CONTENT_LINK_HOSTS as a list of lower-case host names (also read by `talents lint`, which loads no other setting). */
export function readContentLinkHosts(value: string | undefined): string[] {
  return (value ?? "")
    .split(/[\s,]+/)
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "");
}

/** DNS_SERVERS and EGRESS_ALLOW_HOSTS. */
function parseNetwork(get: Get): { dnsServers: string[]; allowHosts: string[] } {
  const dnsServers = (get("DNS_SERVERS") ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
  for (const server of dnsServers) {
    if (!/^(\[[0-9a-f:.]+\](:\d{1,5})?|[0-9a-f:]+|\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?)$/i.test(server)) {
      throw new ConfigError(`DNS_SERVERS: "${server}" is not an address (10.0.0.2, 127.0.0.1:5353, [::1]:53)`);
    }
  }

  const allowHosts = (get("EGRESS_ALLOW_HOSTS") ?? "").split(/[\s,]+/).filter((h) => h !== "");
  for (const h of allowHosts) {
    if (!parseAllowEntry(h)) throw new ConfigError(`EGRESS_ALLOW_HOSTS: "${h}" is not a host name, *.domain pattern, address or CIDR`);
  }
  return { dnsServers, allowHosts };
}

/**
 * Builds the configuration from flags and environment. Throws ConfigError with one readable
 * line for a bad value. `checkDataDir` creates DATA_DIR and checks it is writable.
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  flags: Record<string, string> = {},
  opts: { checkDataDir?: boolean } = {},
): Config {
  const get = (name: string): string | undefined => {
    const v = flags[name] ?? env[name];
    return v === undefined || v === "" ? undefined : v;
  };

  const intSetting = intSettingOf(get);
  const port = intSetting("PORT", 8787, 0, 65535, "a port (0–65535)");
  const host = get("HOST") ?? "0.0.0.0";

  const { baseUrl, baseUrlFromDefault } = parseBaseUrl(get, port);

  const dataDir = resolve(get("DATA_DIR") ?? "./data");
  const { databaseUrl, scheme } = parseDatabaseUrl(get, dataDir);

  const bodyLimit = intSetting("BODY_LIMIT", 1024 * 1024, 1024, 64 * 1024 * 1024, "a size in bytes (1024–67108864)");

  const logLevelRaw = (get("LOG_LEVEL") ?? "info").toLowerCase();
  if (!["debug", "info", "warn", "error"].includes(logLevelRaw)) {
    throw new ConfigError(`LOG_LEVEL: "${logLevelRaw}" is not one of debug, info, warn, error`);
  }

  const logFormatRaw = (get("LOG_FORMAT") ?? "auto").toLowerCase();
  if (!["auto", "json", "text"].includes(logFormatRaw)) {
    throw new ConfigError(`LOG_FORMAT: "${logFormatRaw}" is not one of auto, json, text`);
  }

  const { smtpUrl, mailFrom, mailRetryBaseMs } = parseMail(get, baseUrl);

  const backupIntervalMs = get("BACKUP_INTERVAL") === undefined ? null : parseInterval("BACKUP_INTERVAL", get("BACKUP_INTERVAL")!);
  if (backupIntervalMs !== null && scheme !== "file:") {
    throw new ConfigError(
      "BACKUP_INTERVAL: scheduled backups need a local database file (DATABASE_URL file:…); back up a libSQL server with its own tools",
    );
  }
  const metricsToken = get("METRICS_TOKEN");
  if (metricsToken !== undefined && !/^[\x21-\x7e]{16,256}$/.test(metricsToken)) {
    throw new ConfigError("METRICS_TOKEN: must be 16 to 256 printable characters without spaces (e.g. openssl rand -hex 32)");
  }

  const oauth = parseOAuthProviders(get);
  const { dnsServers, allowHosts } = parseNetwork(get);
  const edgeLimits = parseEdgeLimits(get);

  const config: Config = {
    port,
    host,
    baseUrl,
    baseUrlFromDefault,
    dataDir,
    databaseUrl,
    databaseAuthToken: get("DATABASE_AUTH_TOKEN"),
    talentsDir: get("TALENTS_DIR") ? resolve(get("TALENTS_DIR")!) : undefined,
    smtpUrl,
    mailFrom: mailFrom.trim(),
    mailMaxAttempts: intSetting("MAIL_MAX_ATTEMPTS", 8, 1, 50, "a number of attempts (1–50)"),
    mailRetryBaseMs,
    autoApproveOrgs: parseBool("AUTO_APPROVE_ORGS", get("AUTO_APPROVE_ORGS"), false),
    keysEnabled: parseBool("KEYS_ENABLED", get("KEYS_ENABLED"), true),
    signing: parseBool("SIGNING", get("SIGNING"), true),
    contentLinkHosts: readContentLinkHosts(get("CONTENT_LINK_HOSTS")),
    bodyLimit,
    logLevel: logLevelRaw as LogLevel,
    logFormat: logFormatRaw as LogFormatSetting,
    accessLog: parseBool("ACCESS_LOG", get("ACCESS_LOG"), true),
    eventRetentionDays: intSetting("EVENT_RETENTION_DAYS", 90, 0, 36500, "a number of days (0–36500; 0 keeps events forever)"),
    dashboardReadsPerUser: intSetting("DASHBOARD_READS_PER_USER", 2, 1, 100, "a number of reads (1–100)"),
    backupIntervalMs,
    backupKeep: intSetting("BACKUP_KEEP", 7, 1, 10000, "a number of backups to keep (1–10000)"),
    metricsToken,
    dnsServers,
    ...parseOAuthServer(get),
    oauth,
    egress: { allowHosts, allowLoopback: parseBool("EGRESS_ALLOW_LOOPBACK", get("EGRESS_ALLOW_LOOPBACK"), false), dnsServers },
    ...edgeLimits,
  };

  if (opts.checkDataDir) ensureWritableDir("DATA_DIR", config.dataDir);
  return config;
}

/** The authorization server's own settings: its client budget, the unused clients' expiry, loopback metadata documents. */
function parseOAuthServer(get: Get): Pick<Config, "oauthMaxClients" | "oauthUnusedClientDays" | "oauthClientMetadataLoopback"> {
  const intSetting = intSettingOf(get);
  return {
    oauthMaxClients: intSetting("OAUTH_MAX_CLIENTS", 10_000, 1, 10_000_000, "a number of clients (1–10000000)"),
    oauthUnusedClientDays: intSetting("OAUTH_UNUSED_CLIENT_DAYS", 1, 1, 30, "a number of days (1–30)"),
    oauthClientMetadataLoopback: parseBool("OAUTH_CLIENT_METADATA_LOOPBACK", get("OAUTH_CLIENT_METADATA_LOOPBACK"), false),
  };
}

/** TRUSTED_PROXIES, REQUEST_DEADLINE, MAX_CONNECTIONS_PER_ADDRESS and the auth limits (see Config). */
function parseEdgeLimits(get: Get): Pick<Config, "trustedProxies" | "requestDeadlineMs" | "maxConnectionsPerAddress" | "authLimits"> {
  let trustedProxies = NO_TRUSTED_PROXIES;
  try {
    trustedProxies = get("TRUSTED_PROXIES") === undefined ? NO_TRUSTED_PROXIES : parseTrustedProxies(get("TRUSTED_PROXIES")!);
  } catch (e) {
    throw new ConfigError(`TRUSTED_PROXIES: ${(e as Error).message}`);
  }
  const deadlineRaw = get("REQUEST_DEADLINE");
  const requestDeadlineMs = deadlineRaw === undefined ? 30_000 : parseInterval("REQUEST_DEADLINE", deadlineRaw);
  if (requestDeadlineMs === null || requestDeadlineMs > 240_000)
    throw new ConfigError(`REQUEST_DEADLINE: "${deadlineRaw}" must be between 1s and 4m`);
  const intSetting = intSettingOf(get);
  const count = (name: string, fallback: number, max: number): number => intSetting(name, fallback, 1, max, `a count (1–${max})`);
  const authLimits = {} as AuthLimitSettings;
  for (const [key, s] of Object.entries(AUTH_LIMIT_SETTINGS))
    authLimits[key as keyof AuthLimitSettings] = count(s.name, s.default, 1_000_000);
  return { trustedProxies, requestDeadlineMs, maxConnectionsPerAddress: count("MAX_CONNECTIONS_PER_ADDRESS", 64, 100_000), authLimits };
}
