/**
 * How many password attempts and new accounts are allowed, one set per app,
 * shared by every path that checks a password (`/api/auth/sign-in`, `/login`, the OAuth
 * login) or creates an account (`/api/auth/sign-up`, `/login/sign-up`, the invitation page).
 *
 * An attempt is taken before the password is checked, in one synchronous step with the check
 * of the limit, so parallel requests cannot all slip under it. The counts below are the
 * defaults, each a setting (config.ts AuthLimitSettings); the windows are fixed. The address is
 * the client's (behind a TRUSTED_PROXIES proxy, the forwarded one). Sign-in failures count:
 *   - per e-mail and address pair: 5 in 15 min, then 429 for that pair only;
 *   - per address: 20 in 15 min (one address guessing many e-mails);
 *   - per e-mail from all addresses: 20 in 15 min, then the slow path: one attempt every
 *     30 s for that e-mail, whoever makes it. So nobody can lock another person out by
 *     knowing their e-mail (the owner waits at most a little), while a guesser spread over
 *     many addresses gets two tries a minute.
 * A successful sign-in gives its attempt back and clears the pair's failures. Wrong current
 * passwords on change-password: 5 per user in 15 min. New accounts: 10 per address an hour
 * (a taken e-mail counts too). Password-reset requests: 10 per address in 15 min (then 429),
 * and at most 3 reset mails per e-mail in 15 min: beyond that the request gets the same
 * answer but no mail (nobody can flood a mailbox; the mails already sent stay valid), so the
 * answer never tells whether an account exists. An address-keyed limit needs an address: requests served
 * without a socket (in-process `app.handle`) have none.
 */
import { AUTH_LIMIT_SETTINGS, type AuthLimitSettings } from "../config";
import { AppError } from "../http/errors";
import type { CoreDeps } from "../deps";
import { IntervalGate, SlidingWindowLimiter } from "../lib/rateLimit";
import type { Database } from "../db/database";
import { type SharedWindow, sharedWindow } from "./sharedLimits";

const MIN = 60_000;
const D = AUTH_LIMIT_SETTINGS;

/** The windows, with the default counts (each count is a setting: config.ts AuthLimitSettings). */
export const AUTH_LIMITS = {
  signInPair: { limit: D.signInPair.default, windowMs: 15 * MIN },
  signInAddress: { limit: D.signInAddress.default, windowMs: 15 * MIN },
  signInEmail: { limit: D.signInEmail.default, windowMs: 15 * MIN },
  /** Beyond signInEmail: one attempt per this interval per e-mail. */
  signInSlowPathMs: 30_000,
  changePassword: { limit: D.changePassword.default, windowMs: 15 * MIN },
  signUpAddress: { limit: D.signUpAddress.default, windowMs: 60 * MIN },
  resetAddress: { limit: D.resetAddress.default, windowMs: 15 * MIN },
  resetEmail: { limit: D.resetEmail.default, windowMs: 15 * MIN },
} as const;

/** The default counts (what an app gets without the settings: tests, benchmarks). */
const DEFAULT_COUNTS: AuthLimitSettings = {
  signInPair: D.signInPair.default,
  signInAddress: D.signInAddress.default,
  signInEmail: D.signInEmail.default,
  changePassword: D.changePassword.default,
  signUpAddress: D.signUpAddress.default,
  resetAddress: D.resetAddress.default,
  resetEmail: D.resetEmail.default,
  oauthRegistrations: D.oauthRegistrations.default,
  oauthRegistrationsGlobal: D.oauthRegistrationsGlobal.default,
  oauthMetadataFetches: D.oauthMetadataFetches.default,
  oauthMetadataFetchesGlobal: D.oauthMetadataFetchesGlobal.default,
};

/**
 * The limiters of one app, with the configured counts over AUTH_LIMITS' windows; on PostgreSQL
 * (`database` given) the same limits counted in the database, shared by every replica
 * (sharedLimits.ts), which the `…Attempt` functions below then use.
 */
export function createAuthLimiters(counts: AuthLimitSettings = DEFAULT_COUNTS, database?: Database) {
  const L = AUTH_LIMITS;
  return {
    shared: database?.dialect === "postgres" ? sharedAuthLimits(database, counts) : null,
    pair: new SlidingWindowLimiter(counts.signInPair, L.signInPair.windowMs),
    address: new SlidingWindowLimiter(counts.signInAddress, L.signInAddress.windowMs),
    email: new SlidingWindowLimiter(counts.signInEmail, L.signInEmail.windowMs),
    emailSlowPath: new IntervalGate(L.signInSlowPathMs),
    changePassword: new SlidingWindowLimiter(counts.changePassword, L.changePassword.windowMs),
    signUp: new SlidingWindowLimiter(counts.signUpAddress, L.signUpAddress.windowMs),
    resetAddress: new SlidingWindowLimiter(counts.resetAddress, L.resetAddress.windowMs),
    resetEmail: new SlidingWindowLimiter(counts.resetEmail, L.resetEmail.windowMs),
  };
}
export type AuthLimiters = ReturnType<typeof createAuthLimiters>;

/** 429 rate_limited with Retry-After. */
export function rateLimited(what: string, retryAfter: number): AppError {
  return new AppError("rate_limited", `${what}; retry in ${retryAfter} s.`, { retryAfter }, { "retry-after": String(retryAfter) });
}

/** A sign-in attempt that was let through: `succeeded()` gives it back when the password was right. */
export interface SignInAttempt {
  succeeded(): void;
}

/**
 * Takes one sign-in attempt for `email` from `ip`, or throws 429 naming which limit was hit
 * (`scope` for the security event). Synchronous from the checks to the counts.
 */
export function takeSignInAttempt(l: AuthLimiters, email: string, ip: string | null, now = Date.now()): SignInAttempt {
  const pairKey = `${email}\n${ip ?? "-"}`;
  const pair = l.pair.check(pairKey, now);
  if (!pair.allowed)
    throw Object.assign(rateLimited("Too many failed sign-ins for this e-mail from this address", pair.retryAfter), { scope: "pair" });
  if (ip !== null) {
    const address = l.address.check(ip, now);
    if (!address.allowed)
      throw Object.assign(rateLimited("Too many failed sign-ins from this address", address.retryAfter), { scope: "address" });
  }
  if (!l.email.check(email, now).allowed) {
    const slow = l.emailSlowPath.take(email, now);
    if (!slow.allowed)
      throw Object.assign(rateLimited("Too many failed sign-ins for this e-mail; one attempt is allowed every 30 s", slow.retryAfter), {
        scope: "e-mail",
      });
  }
  l.pair.hit(pairKey, now);
  if (ip !== null) l.address.hit(ip, now);
  l.email.hit(email, now);
  return {
    succeeded: () => {
      l.pair.reset(pairKey);
      if (ip !== null) l.address.release(ip, now);
      l.email.release(email, now);
    },
  };
}

/** Takes one attempt at the current password of `userId` (change-password), or throws 429. */
export function takePasswordCheck(l: AuthLimiters, userId: string, now = Date.now()): SignInAttempt {
  const r = l.changePassword.take(userId, now);
  if (!r.allowed) throw rateLimited("Too many wrong current passwords", r.retryAfter);
  return { succeeded: () => l.changePassword.release(userId, r.at) };
}

/** Counts one account creation from `ip` (none without an address), or throws 429. */
export function takeSignUp(l: AuthLimiters, ip: string | null, now = Date.now()): void {
  if (ip === null) return;
  const r = l.signUp.take(ip, now);
  if (!r.allowed) throw rateLimited("Too many new accounts from this address", r.retryAfter);
}

/**
 * Takes one password-reset request for `email` from `ip`: 429 past the address's limit;
 * otherwise whether a mail may be sent (false past the e-mail's limit: same answer, no mail).
 */
export function takeResetRequest(l: AuthLimiters, email: string, ip: string | null, now = Date.now()): { mail: boolean } {
  if (ip !== null) {
    const r = l.resetAddress.take(ip, now);
    if (!r.allowed) throw rateLimited("Too many password-reset requests from this address", r.retryAfter);
  }
  return { mail: l.resetEmail.take(email, now).allowed };
}

/** The limits of AUTH_LIMITS counted in the database (PostgreSQL: every replica counts together). */
function sharedAuthLimits(database: Database, counts: AuthLimitSettings) {
  const L = AUTH_LIMITS;
  const w = (scope: string, limit: number, windowMs: number, sliding = true) => sharedWindow(database, scope, limit, windowMs, sliding);
  return {
    pair: w("sign-in-pair", counts.signInPair, L.signInPair.windowMs),
    address: w("sign-in-address", counts.signInAddress, L.signInAddress.windowMs),
    email: w("sign-in-email", counts.signInEmail, L.signInEmail.windowMs),
    emailSlowPath: w("sign-in-slow", 1, L.signInSlowPathMs, false),
    changePassword: w("change-password", counts.changePassword, L.changePassword.windowMs),
    signUp: w("sign-up", counts.signUpAddress, L.signUpAddress.windowMs),
    resetAddress: w("reset-address", counts.resetAddress, L.resetAddress.windowMs),
    resetEmail: w("reset-email", counts.resetEmail, L.resetEmail.windowMs),
  } satisfies Record<string, SharedWindow>;
}

/** A refusal of the shared limits, with its scope for the security event (as takeSignInAttempt's). */
const refused = (what: string, retryAfter: number, scope: string) => Object.assign(rateLimited(what, retryAfter), { scope });

/**
 * takeSignInAttempt, counted in the database on PostgreSQL (in memory otherwise): the pair, the
 * address and the e-mail are each taken by an atomic upsert; a refusal gives back what it took.
 */
export async function signInAttempt(l: AuthLimiters, email: string, ip: string | null): Promise<SignInAttempt> {
  const s = l.shared;
  if (!s) return takeSignInAttempt(l, email, ip);
  const pairKey = `${email}\n${ip ?? "-"}`;
  const pair = await s.pair.take(pairKey);
  if (!pair.allowed) throw refused("Too many failed sign-ins for this e-mail from this address", pair.retryAfter, "pair");
  const address = ip !== null ? await s.address.take(ip) : null;
  if (address && !address.allowed) {
    await pair.giveBack();
    throw refused("Too many failed sign-ins from this address", address.retryAfter, "address");
  }
  const mail = await s.email.take(email);
  if (!mail.allowed) {
    const slow = await s.emailSlowPath.take(email);
    if (!slow.allowed) {
      await Promise.all([pair.giveBack(), address?.giveBack()]);
      throw refused("Too many failed sign-ins for this e-mail; one attempt is allowed every 30 s", slow.retryAfter, "e-mail");
    }
  }
  return {
    succeeded: () => {
      // in the background, as the in-memory limiter's is synchronous: a failure here only leaves a few counts
      void Promise.all([s.pair.clear(pairKey), address?.giveBack(), mail.giveBack()]).catch(() => {});
    },
  };
}

/** takePasswordCheck, counted in the database on PostgreSQL. */
export async function passwordCheckAttempt(l: AuthLimiters, userId: string): Promise<SignInAttempt> {
  if (!l.shared) return takePasswordCheck(l, userId);
  const r = await l.shared.changePassword.take(userId);
  if (!r.allowed) throw rateLimited("Too many wrong current passwords", r.retryAfter);
  return { succeeded: () => void r.giveBack().catch(() => {}) };
}

/** takeSignUp, counted in the database on PostgreSQL. */
export async function signUpAttempt(l: AuthLimiters, ip: string | null): Promise<void> {
  if (!l.shared) return takeSignUp(l, ip);
  if (ip === null) return;
  const r = await l.shared.signUp.take(ip);
  if (!r.allowed) throw rateLimited("Too many new accounts from this address", r.retryAfter);
}

/** takeResetRequest, counted in the database on PostgreSQL. */
export async function resetRequestAttempt(l: AuthLimiters, email: string, ip: string | null): Promise<{ mail: boolean }> {
  if (!l.shared) return takeResetRequest(l, email, ip);
  if (ip !== null) {
    const r = await l.shared.resetAddress.take(ip);
    if (!r.allowed) throw rateLimited("Too many password-reset requests from this address", r.retryAfter);
  }
  return { mail: (await l.shared.resetEmail.take(email)).allowed };
}

/** CoreDeps with the one pair of sign-in limiters every sign-in path shares. */
export interface SignInDeps extends CoreDeps {
  authLimiters: AuthLimiters;
}
