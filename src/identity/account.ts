/**
 * The signed-in person's own account (docs/api.md "Your account"): what `/account` and the
 * `/web/account…` routes read and change. Each change is the person's own: a session of someone
 * else is "not found", never "forbidden" (nothing says it exists).
 */
import { and, desc, eq, gt, inArray, isNull, ne } from "drizzle-orm";
import type { Config } from "../config";
import type { Database, Tx } from "../db/client";
import { apiKeys, externalAccounts, organizations, projects, sessions, users } from "../db/schema";
import { AppError, type Issue, notFound, validationFailed } from "../http/errors";
import { type ClientMeta, changePassword } from "./service";
import type { AuthLimiters } from "./limits";
import { passwordProblem } from "./passwords";
import { providerLabel } from "./providers";
import { recordSecurityEvent } from "./security";

/** One active session of the person: where and when it was last used. */
export interface AccountSession {
  id: string;
  current: boolean;
  userAgent: string | null;
  ip: string | null;
  createdAt: number;
  lastSeenAt: number;
}

/** One identity (an external provider's, an organization's SSO) linked to the account. */
export interface LinkedIdentity {
  provider: string;
  label: string;
  linkedAt: number;
}

/** One key the person created that still works (not revoked, not expired), with its project. */
export interface OwnKey {
  id: string;
  name: string;
  tools: string[];
  automation: boolean;
  projectId: string;
  projectName: string;
  organizationName: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
}

export interface Account {
  user: { id: string; email: string; name: string; emailVerified: boolean; hasPassword: boolean };
  sessions: AccountSession[];
  identities: LinkedIdentity[];
  keys: OwnKey[];
}

/** Everything `/account` shows of the person signed in with `sessionId`. */
export async function readAccount(database: Database, config: Config, userId: string, sessionId: string): Promise<Account> {
  const now = Date.now();
  const db = database.db;
  const user = (await db.select().from(users).where(eq(users.id, userId)).limit(1))[0];
  if (!user) throw new AppError("unauthenticated");
  const rows = await db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, now)))
    .orderBy(desc(sessions.lastSeenAt));
  const links = await db.select().from(externalAccounts).where(eq(externalAccounts.userId, userId));
  const ssoOrgs = links.filter((l) => l.provider.startsWith("sso:")).map((l) => l.provider.slice(4));
  const orgNames = new Map(
    ssoOrgs.length === 0
      ? []
      : (
          await db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(inArray(organizations.id, ssoOrgs))
        ).map((o) => [o.id, o.name] as const),
  );
  const keys = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      tools: apiKeys.tools,
      automation: apiKeys.automation,
      projectId: projects.id,
      projectName: projects.name,
      organizationName: organizations.name,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      expiresAt: apiKeys.expiresAt,
    })
    .from(apiKeys)
    .innerJoin(projects, eq(projects.id, apiKeys.projectId))
    .innerJoin(organizations, eq(organizations.id, projects.organizationId))
    .where(and(eq(apiKeys.createdBy, userId), isNull(apiKeys.revokedAt)))
    .orderBy(organizations.name, projects.name, desc(apiKeys.createdAt));
  return {
    user: {
      id: user.id,
      email: user.email,
      name: user.name,
      emailVerified: user.emailVerifiedAt !== null,
      hasPassword: !!user.passwordHash,
    },
    sessions: rows.map((s) => ({
      id: s.id,
      current: s.id === sessionId,
      userAgent: s.userAgent,
      ip: s.ip,
      createdAt: s.createdAt,
      lastSeenAt: s.lastSeenAt,
    })),
    identities: links.map((l) => ({
      provider: l.provider,
      label: l.provider.startsWith("sso:")
        ? `Single sign-on of ${orgNames.get(l.provider.slice(4)) ?? "an organization"}`
        : providerLabel(config, l.provider),
      linkedAt: l.createdAt,
    })),
    keys: keys.filter((k) => k.expiresAt === null || k.expiresAt > now).map((k) => ({ ...k, tools: [...k.tools] })),
  };
}

/** The longest name a person gives themselves. */
export const MAX_NAME_LENGTH = 100;

/** The name of a posted form or JSON body, checked: 400 naming `name` when it is not text of at most 100 characters. */
export function readName(body: unknown): string {
  const v = (body as Record<string, unknown> | null)?.name;
  if (typeof v !== "string") throw validationFailed([{ path: "name", message: "name is required: text of at most 100 characters" }]);
  const name = v.trim();
  if (name.length > MAX_NAME_LENGTH)
    throw validationFailed([{ path: "name", message: `name must be at most ${MAX_NAME_LENGTH} characters` }]);
  return name;
}

/** Renames the person. */
export async function renameSelf(database: Database, userId: string, name: string): Promise<void> {
  await database.write((tx) => tx.update(users).set({ name, updatedAt: Date.now() }).where(eq(users.id, userId)));
}

/** The three fields of a password change, as posted. */
export interface PasswordChange {
  currentPassword: string;
  newPassword: string;
  repeatPassword: string;
}

const text = (body: unknown, name: string): string => {
  const v = (body as Record<string, unknown> | null)?.[name];
  return typeof v === "string" ? v : "";
};

/**
 * The password change of a form or JSON body, checked before any hash: the current password given,
 * the new one within the password rules (passwords.ts), the repeat the same. Every problem at once, by field.
 */
export function readPasswordChange(body: unknown): PasswordChange {
  const change = {
    currentPassword: text(body, "currentPassword"),
    newPassword: text(body, "newPassword"),
    repeatPassword: text(body, "repeatPassword"),
  };
  const issues: Issue[] = [];
  if (change.currentPassword === "")
    issues.push({ path: "currentPassword", message: "currentPassword is required: the password you sign in with" });
  else if (change.currentPassword.length > 256)
    issues.push({ path: "currentPassword", message: "currentPassword is not your current password" });
  const weak = passwordProblem(change.newPassword);
  if (weak) issues.push({ path: "newPassword", message: `newPassword ${weak}` });
  else if (change.newPassword === change.currentPassword)
    issues.push({ path: "newPassword", message: "newPassword must differ from the current one" });
  if (change.repeatPassword !== change.newPassword)
    issues.push({ path: "repeatPassword", message: "repeatPassword does not match the new password: type it again" });
  if (issues.length > 0) throw validationFailed(issues);
  return change;
}

/**
 * Changes the person's password (service.ts `changePassword`: CHANGE_PASSWORD_LIMIT wrong attempts per
 * 15 minutes, every session ended, a fresh one returned for this browser). A wrong current password is a
 * 400 naming `currentPassword`: the person is signed in, so it is the form's problem, not a sign-in's.
 */
export async function changeOwnPassword(
  database: Database,
  limiters: AuthLimiters,
  userId: string,
  change: PasswordChange,
  meta: ClientMeta,
) {
  try {
    return await changePassword(database, limiters, userId, change.currentPassword, change.newPassword, meta);
  } catch (e) {
    if (e instanceof AppError && e.code === "invalid_credentials")
      throw validationFailed([{ path: "currentPassword", message: "currentPassword is not your current password" }]);
    throw e;
  }
}

/** Who ends sessions, for the security event recorded in the same transaction. */
interface Ender {
  user: { id: string; email: string };
  meta: ClientMeta;
}

/**
 * Ends every session of the person but `keepId` (this browser's); returns how many ended (a `sessions.ended` security
 * event when any did).
 */
export async function endOtherSessions(database: Database, by: Ender, keepId: string): Promise<number> {
  return database.write(async (tx) => {
    const ended = await tx
      .delete(sessions)
      .where(and(eq(sessions.userId, by.user.id), ne(sessions.id, keepId)))
      .returning({ id: sessions.id });
    if (ended.length > 0) await recordEnded(tx, by, { scope: "others", ended: ended.length });
    return ended.length;
  });
}

/** Ends one session of the person: 404 when it is not theirs (or no longer exists). */
export async function endOwnSession(database: Database, by: Ender, sessionId: string): Promise<void> {
  await database.write(async (tx) => {
    const ended = await tx
      .delete(sessions)
      .where(and(eq(sessions.id, sessionId), eq(sessions.userId, by.user.id)))
      .returning({ id: sessions.id });
    if (ended.length === 0) throw notFound("No such session of yours: it may have ended already.");
    await recordEnded(tx, by, { scope: "one", ended: 1 });
  });
}

function recordEnded(tx: Tx, by: Ender, detail: { scope: "others" | "one"; ended: number }): Promise<void> {
  return recordSecurityEvent(tx, { kind: "sessions.ended", userId: by.user.id, email: by.user.email, ...by.meta, detail });
}
