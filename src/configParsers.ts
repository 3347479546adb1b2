/**
 * The setting parsers of src/config.ts: each turns one raw value into a typed one or throws a
 * ConfigError naming the setting. They read nothing themselves (loadConfig passes the values in).
 */
import { accessSync, constants, mkdirSync } from "node:fs";

/** A configuration value that cannot be used; main prints `message` and exits 2. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** A boolean setting: true/yes/on/1 or false/no/off/0; unset or empty = `fallback`. */
export function parseBool(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === "") return fallback;
  const v = raw.toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name}: "${raw}" is not a boolean (use true or false)`);
}

/** A whole number between `min` and `max`, or a ConfigError saying it must be `what`. */
export function parseIntIn(name: string, raw: string, min: number, max: number, what: string): number {
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name}: "${raw}" is not ${what}`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(`${name}: "${raw}" is not ${what}`);
  return n;
}

/** A setting's value as loadConfig reads it (flags over environment; an empty value is unset). */
export type Get = (name: string) => string | undefined;

/**
 * The integer settings' one reader over `get`: `intSetting(name, fallback, min, max, what)` is
 * `fallback` when the setting is unset, else a whole number from `min` to `max` (parseIntIn's
 * error, naming the setting and `what`, otherwise).
 */
export function intSettingOf(get: Get): (name: string, fallback: number, min: number, max: number, what: string) => number {
  return (name, fallback, min, max, what) => {
    const raw = get(name);
    return raw === undefined ? fallback : parseIntIn(name, raw, min, max, what);
  };
}

/** How many auth attempts are allowed; each window is fixed (identity/limits.ts), the counts are settings. */
export interface AuthLimitSettings {
  /** SIGNIN_PAIR_FAILURE_LIMIT. Default 5: failed sign-ins per e-mail and address in 15 min. */
  signInPair: number;
  /** SIGNIN_FAILURE_LIMIT. Default 20: failed sign-ins per address in 15 min. */
  signInAddress: number;
  /** SIGNIN_EMAIL_FAILURE_LIMIT. Default 20: failed sign-ins per e-mail from all addresses in 15 min (then one per 30 s). */
  signInEmail: number;
  /** CHANGE_PASSWORD_LIMIT. Default 5: wrong current passwords per user in 15 min. */
  changePassword: number;
  /** SIGNUP_LIMIT_PER_HOUR. Default 10: new accounts per address in an hour. */
  signUpAddress: number;
  /** PASSWORD_RESET_LIMIT. Default 10: password-reset requests per address in 15 min. */
  resetAddress: number;
  /** PASSWORD_RESET_MAIL_LIMIT. Default 3: reset mails per e-mail in 15 min. */
  resetEmail: number;
  /** OAUTH_REGISTRATION_LIMIT_PER_MINUTE. Default 30: OAuth client registrations per address in a minute. */
  oauthRegistrations: number;
  /** OAUTH_REGISTRATION_GLOBAL_LIMIT_PER_HOUR. Default 300: OAuth client registrations from all addresses in an hour. */
  oauthRegistrationsGlobal: number;
  /** OAUTH_METADATA_FETCH_LIMIT_PER_MINUTE. Default 10: client metadata documents fetched for one address in a minute. */
  oauthMetadataFetches: number;
  /** OAUTH_METADATA_FETCH_GLOBAL_LIMIT_PER_MINUTE. Default 60: client metadata documents fetched for all addresses in a minute. */
  oauthMetadataFetchesGlobal: number;
}

/** Each auth limit's setting and default (AuthLimitSettings). */
export const AUTH_LIMIT_SETTINGS: Record<keyof AuthLimitSettings, { name: string; default: number }> = {
  signInPair: { name: "SIGNIN_PAIR_FAILURE_LIMIT", default: 5 },
  signInAddress: { name: "SIGNIN_FAILURE_LIMIT", default: 20 },
  signInEmail: { name: "SIGNIN_EMAIL_FAILURE_LIMIT", default: 20 },
  changePassword: { name: "CHANGE_PASSWORD_LIMIT", default: 5 },
  signUpAddress: { name: "SIGNUP_LIMIT_PER_HOUR", default: 10 },
  resetAddress: { name: "PASSWORD_RESET_LIMIT", default: 10 },
  resetEmail: { name: "PASSWORD_RESET_MAIL_LIMIT", default: 3 },
  oauthRegistrations: { name: "OAUTH_REGISTRATION_LIMIT_PER_MINUTE", default: 30 },
  oauthRegistrationsGlobal: { name: "OAUTH_REGISTRATION_GLOBAL_LIMIT_PER_HOUR", default: 300 },
  oauthMetadataFetches: { name: "OAUTH_METADATA_FETCH_LIMIT_PER_MINUTE", default: 10 },
  oauthMetadataFetchesGlobal: { name: "OAUTH_METADATA_FETCH_GLOBAL_LIMIT_PER_MINUTE", default: 60 },
};

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `30m`, `6h`, `1d` → ms; `0`, `off` → null (no schedule). Between 1 second and 366 days. */
export function parseInterval(name: string, raw: string): number | null {
  const v = raw.trim().toLowerCase();
  if (v === "0" || v === "off" || v === "none") return null;
  const m = /^(\d+)\s*(s|m|h|d)$/.exec(v);
  const ms = m ? Number(m[1]) * UNIT_MS[m[2]!]! : NaN;
  if (!m || !(ms >= 1000 && ms <= 366 * 86_400_000)) {
    throw new ConfigError(
      `${name}: "${raw}" is not an interval (a number and s, m, h or d, e.g. 6h; between 1s and 366d; 0 or off for none)`,
    );
  }
  return ms;
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

/**
 * The OAUTH_<PROVIDER>_* settings: a provider is enabled when its client id and secret are
 * both set (one without the other is a mistake, refused); its other settings are checked.
 */
export function parseOAuthProviders(get: (name: string) => string | undefined): OAuthProviders {
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
  else if (get("OAUTH_GITLAB_URL"))
    throw new ConfigError("OAUTH_GITLAB_URL is set but OAUTH_GITLAB_CLIENT_ID and OAUTH_GITLAB_CLIENT_SECRET are not");
  const google = client("GOOGLE");
  if (google) out.google = google;
  const microsoft = client("MICROSOFT");
  if (microsoft) {
    const tenant = get("OAUTH_MICROSOFT_TENANT") ?? "organizations";
    if (!/^[A-Za-z0-9.-]{1,100}$/.test(tenant))
      throw new ConfigError(`OAUTH_MICROSOFT_TENANT: "${tenant}" is not a tenant id, domain, organizations, consumers or common`);
    out.microsoft = { ...microsoft, tenant };
  }
  const oidc = client("OIDC");
  const issuer = get("OAUTH_OIDC_ISSUER");
  if (oidc) {
    if (issuer === undefined)
      throw new ConfigError(
        "OAUTH_OIDC_ISSUER is required with OAUTH_OIDC_CLIENT_ID (the issuer URL; discovery reads ISSUER/.well-known/openid-configuration)",
      );
    const name = get("OAUTH_OIDC_NAME") ?? "OpenID Connect";
    if (name.length > 40) throw new ConfigError("OAUTH_OIDC_NAME: at most 40 characters");
    out.oidc = { ...oidc, issuer: (httpUrl("OAUTH_OIDC_ISSUER", issuer), issuer), name };
  } else if (issuer !== undefined)
    throw new ConfigError("OAUTH_OIDC_ISSUER is set but OAUTH_OIDC_CLIENT_ID and OAUTH_OIDC_CLIENT_SECRET are not");
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
