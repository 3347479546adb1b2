/**
 * Configuration: command-line flags, then environment variables, then the defaults written
 * beside each field. Parsed once at start into a typed object that is passed down; no other
 * module reads `process.env`.
 */
import { accessSync, constants, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { LogFormatSetting, LogLevel } from "./lib/log";

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
  /** DATABASE_URL / --database-url. Default file:DATA_DIR/talentd.db; libsql:// or http(s):// for a server. */
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
  /** METRICS_TOKEN. Default none: `/metrics` is off. Set, `/metrics` answers to `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** External identity providers (DESIGN §13), each enabled by its own OAUTH_<PROVIDER>_* settings; absent = not offered. */
  oauth: OAuthProviders;
}

/** A client registered at an identity provider. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/**
 * The external identity providers that are enabled. Callback URLs are
 * `BASE_URL/api/auth/oauth/<provider>/callback` (docs/operations.md).
 */
export interface OAuthProviders {
  /** OAUTH_GITHUB_CLIENT_ID + OAUTH_GITHUB_CLIENT_SECRET. */
  github?: OAuthClient;
  /** OAUTH_GITLAB_CLIENT_ID + _CLIENT_SECRET; OAUTH_GITLAB_URL default https://gitlab.com (a self-managed GitLab). */
  gitlab?: OAuthClient & { baseUrl: string };
  /** OAUTH_GOOGLE_CLIENT_ID + _CLIENT_SECRET. */
  google?: OAuthClient;
  /** OAUTH_MICROSOFT_CLIENT_ID + _CLIENT_SECRET; OAUTH_MICROSOFT_TENANT default `organizations` (a tenant id or domain restricts it). */
  microsoft?: OAuthClient & { tenant: string };
  /** OAUTH_OIDC_ISSUER + _CLIENT_ID + _CLIENT_SECRET; OAUTH_OIDC_NAME (the button's label) default "OpenID Connect". */
  oidc?: OAuthClient & { issuer: string; name: string };
}

/** A configuration value that cannot be used; main prints `message` and exits 2. */
export class ConfigError extends Error {
  override name = "ConfigError";
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

function parseBool(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === "") return fallback;
  const v = raw.toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name}: "${raw}" is not a boolean (use true or false)`);
}

function parseIntIn(name: string, raw: string, min: number, max: number, what: string): number {
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name}: "${raw}" is not ${what}`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(`${name}: "${raw}" is not ${what}`);
  return n;
}

const DB_SCHEMES = ["file:", "libsql:", "http:", "https:", "ws:", "wss:"];

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `30m`, `6h`, `1d` → ms; `0`, `off` → null (no schedule). Between 1 second and 366 days. */
export function parseInterval(name: string, raw: string): number | null {
  const v = raw.trim().toLowerCase();
  if (v === "0" || v === "off" || v === "none") return null;
  const m = /^(\d+)\s*(s|m|h|d)$/.exec(v);
  const ms = m ? Number(m[1]) * UNIT_MS[m[2]!]! : NaN;
  if (!m || !(ms >= 1000 && ms <= 366 * 86_400_000)) {
    throw new ConfigError(`${name}: "${raw}" is not an interval (a number and s, m, h or d, e.g. 6h; between 1s and 366d; 0 or off for none)`);
  }
  return ms;
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

  const port = get("PORT") === undefined ? 8787 : parseIntIn("PORT", get("PORT")!, 0, 65535, "a port (0–65535)");
  const host = get("HOST") ?? "0.0.0.0";

  const baseUrlFromDefault = get("BASE_URL") === undefined;
  let baseUrl = get("BASE_URL") ?? `http://localhost:${port}`;
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
    baseUrl = u.origin + u.pathname.replace(/\/+$/, "");
  } catch {
    throw new ConfigError(`BASE_URL: "${baseUrl}" is not an http(s) URL`);
  }

  const dataDir = resolve(get("DATA_DIR") ?? "./data");
  let databaseUrl = get("DATABASE_URL") ?? `file:${resolve(dataDir, "talentd.db")}`;
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(databaseUrl)?.[0]?.toLowerCase();
  if (!scheme || !DB_SCHEMES.includes(scheme)) {
    throw new ConfigError(
      `DATABASE_URL: "${databaseUrl}" is malformed (expected file:PATH, libsql://HOST, or http(s)://HOST)`,
    );
  }
  if (scheme === "file:") {
    const path = databaseUrl.slice(5);
    if (path === "" || path.startsWith("//") && !path.startsWith("///")) {
      throw new ConfigError(`DATABASE_URL: "${databaseUrl}" is malformed (expected file:PATH)`);
    }
  } else {
    try {
      const u = new URL(databaseUrl);
      if (!u.hostname) throw new Error();
      databaseUrl = u.toString().replace(/\/$/, "");
    } catch {
      throw new ConfigError(`DATABASE_URL: "${databaseUrl}" is malformed (no host)`);
    }
  }

  const bodyLimitRaw = get("BODY_LIMIT");
  const bodyLimit =
    bodyLimitRaw === undefined ? 1024 * 1024 : parseIntIn("BODY_LIMIT", bodyLimitRaw, 1024, 64 * 1024 * 1024, "a size in bytes (1024–67108864)");

  const logLevelRaw = (get("LOG_LEVEL") ?? "info").toLowerCase();
  if (!["debug", "info", "warn", "error"].includes(logLevelRaw)) {
    throw new ConfigError(`LOG_LEVEL: "${logLevelRaw}" is not one of debug, info, warn, error`);
  }

  const logFormatRaw = (get("LOG_FORMAT") ?? "auto").toLowerCase();
  if (!["auto", "json", "text"].includes(logFormatRaw)) {
    throw new ConfigError(`LOG_FORMAT: "${logFormatRaw}" is not one of auto, json, text`);
  }

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
    if (!ok) throw new ConfigError(`SMTP_URL: not an smtp://[user:password@]host[:port] or smtps:// URL (${smtpUrl.replace(/\/\/[^@/]*@/, "//***@").slice(0, 200)})`);
  }
  const mailFrom = get("MAIL_FROM") ?? `talentd@${new URL(baseUrl).hostname}`;
  if (!/^(?:[^<>@\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(mailFrom.trim())) {
    throw new ConfigError(`MAIL_FROM: "${mailFrom}" is not an address (talentd@example.com or "talentd <talentd@example.com>")`);
  }
  const mailRetryBaseMs = get("MAIL_RETRY_BASE") === undefined ? 30_000 : parseInterval("MAIL_RETRY_BASE", get("MAIL_RETRY_BASE")!);
  if (mailRetryBaseMs === null || mailRetryBaseMs > 3_600_000) throw new ConfigError(`MAIL_RETRY_BASE: "${get("MAIL_RETRY_BASE")}" must be between 1s and 1h`);

  const backupIntervalMs = get("BACKUP_INTERVAL") === undefined ? null : parseInterval("BACKUP_INTERVAL", get("BACKUP_INTERVAL")!);
  if (backupIntervalMs !== null && scheme !== "file:") {
    throw new ConfigError("BACKUP_INTERVAL: scheduled backups need a local database file (DATABASE_URL file:…); back up a libSQL server with its own tools");
  }
  const metricsToken = get("METRICS_TOKEN");
  if (metricsToken !== undefined && !/^[\x21-\x7e]{16,256}$/.test(metricsToken)) {
    throw new ConfigError("METRICS_TOKEN: must be 16 to 256 printable characters without spaces (e.g. openssl rand -hex 32)");
  }

  const oauth = parseOAuthProviders(get);

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
    mailMaxAttempts: get("MAIL_MAX_ATTEMPTS") === undefined ? 8 : parseIntIn("MAIL_MAX_ATTEMPTS", get("MAIL_MAX_ATTEMPTS")!, 1, 50, "a number of attempts (1–50)"),
    mailRetryBaseMs,
    autoApproveOrgs: parseBool("AUTO_APPROVE_ORGS", get("AUTO_APPROVE_ORGS"), false),
    keysEnabled: parseBool("KEYS_ENABLED", get("KEYS_ENABLED"), true),
    bodyLimit,
    logLevel: logLevelRaw as LogLevel,
    logFormat: logFormatRaw as LogFormatSetting,
    accessLog: parseBool("ACCESS_LOG", get("ACCESS_LOG"), true),
    eventRetentionDays:
      get("EVENT_RETENTION_DAYS") === undefined ? 90 : parseIntIn("EVENT_RETENTION_DAYS", get("EVENT_RETENTION_DAYS")!, 0, 36500, "a number of days (0–36500; 0 keeps events forever)"),
    dashboardReadsPerUser:
      get("DASHBOARD_READS_PER_USER") === undefined ? 2 : parseIntIn("DASHBOARD_READS_PER_USER", get("DASHBOARD_READS_PER_USER")!, 1, 100, "a number of reads (1–100)"),
    backupIntervalMs,
    backupKeep: get("BACKUP_KEEP") === undefined ? 7 : parseIntIn("BACKUP_KEEP", get("BACKUP_KEEP")!, 1, 10000, "a number of backups to keep (1–10000)"),
    metricsToken,
    oauth,
  };

  if (opts.checkDataDir) ensureWritableDir("DATA_DIR", config.dataDir);
  return config;
}

/** An http(s) URL without a trailing slash, or a ConfigError naming the setting. */
function httpUrl(name: string, raw: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
    return u.href.replace(/\/+$/, "");
  } catch {
    throw new ConfigError(`${name}: "${raw}" is not an http(s) URL`);
  }
}

/**
 * The OAUTH_<PROVIDER>_* settings: a provider is enabled when its client id and secret are
 * both set (one without the other is a mistake, refused); its other settings are checked.
 */
function parseOAuthProviders(get: (name: string) => string | undefined): OAuthProviders {
  const client = (p: string): OAuthClient | undefined => {
    const clientId = get(`OAUTH_${p}_CLIENT_ID`);
    const clientSecret = get(`OAUTH_${p}_CLIENT_SECRET`);
    if (clientId === undefined && clientSecret === undefined) return undefined;
    if (clientId === undefined || clientSecret === undefined) {
      throw new ConfigError(`OAUTH_${p}_CLIENT_ID and OAUTH_${p}_CLIENT_SECRET go together: set both to enable this provider, or neither`);
    }
    return { clientId, clientSecret };
  };
  const out: OAuthProviders = {};
  const github = client("GITHUB");
  if (github) out.github = github;
  const gitlab = client("GITLAB");
  if (gitlab) out.gitlab = { ...gitlab, baseUrl: httpUrl("OAUTH_GITLAB_URL", get("OAUTH_GITLAB_URL") ?? "https://gitlab.com") };
  else if (get("OAUTH_GITLAB_URL")) throw new ConfigError("OAUTH_GITLAB_URL is set but OAUTH_GITLAB_CLIENT_ID and OAUTH_GITLAB_CLIENT_SECRET are not");
  const google = client("GOOGLE");
  if (google) out.google = google;
  const microsoft = client("MICROSOFT");
  if (microsoft) {
    const tenant = get("OAUTH_MICROSOFT_TENANT") ?? "organizations";
    if (!/^[A-Za-z0-9.-]{1,100}$/.test(tenant)) throw new ConfigError(`OAUTH_MICROSOFT_TENANT: "${tenant}" is not a tenant id, domain, organizations, consumers or common`);
    out.microsoft = { ...microsoft, tenant };
  }
  const oidc = client("OIDC");
  const issuer = get("OAUTH_OIDC_ISSUER");
  if (oidc) {
    if (issuer === undefined) throw new ConfigError("OAUTH_OIDC_ISSUER is required with OAUTH_OIDC_CLIENT_ID (the issuer URL; discovery reads ISSUER/.well-known/openid-configuration)");
    const name = get("OAUTH_OIDC_NAME") ?? "OpenID Connect";
    if (name.length > 40) throw new ConfigError("OAUTH_OIDC_NAME: at most 40 characters");
    out.oidc = { ...oidc, issuer: (httpUrl("OAUTH_OIDC_ISSUER", issuer), issuer), name };
  } else if (issuer !== undefined) throw new ConfigError("OAUTH_OIDC_ISSUER is set but OAUTH_OIDC_CLIENT_ID and OAUTH_OIDC_CLIENT_SECRET are not");
  return out;
}

/**
 * Creates `dir` if needed (0750: the database in it holds password and key hashes, so other
 * users of the machine get no way in; an existing folder keeps its mode) and checks the process
 * can write there.
 */
export function ensureWritableDir(name: string, dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o750 });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? "not writable";
    throw new ConfigError(`${name}: "${dir}" is not a writable folder (${reason})`);
  }
}
