/** User records: creation and lookup by e-mail. */
import { eq } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { users } from "../db/schema";
import { newId } from "../lib/ids";

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Lower-cased, trimmed e-mail: the one form stored and compared. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface NewUser {
  email: string;
  /** From hashPassword, computed before the write: argon2id takes ~70 ms and must not hold the writer mutex. */
  passwordHash: string;
  name?: string;
  role?: "user" | "admin";
  /** The address is already proven (the first administrator, set up from the server's own log). */
  emailVerified?: boolean;
}

/** Inserts a user inside `tx`; the caller has checked the e-mail is free. Returns the id. */
export async function insertUser(tx: Tx, u: NewUser): Promise<string> {
  const now = Date.now();
  const id = newId("usr");
  await tx.insert(users).values({
    id,
    email: normalizeEmail(u.email),
    name: u.name ?? "",
    passwordHash: u.passwordHash,
    role: u.role ?? "user",
    emailVerifiedAt: u.emailVerified ? now : null,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

/** Finds a user by e-mail (normalized). */
export async function findUserByEmail(database: Database, email: string) {
  const rows = await database.db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .limit(1);
  return rows[0];
}
