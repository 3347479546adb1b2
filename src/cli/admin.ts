/** `talentd admin create --email E --password-stdin`: make (or promote) a platform admin headlessly. */
import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { users } from "../db/schema";
import { hashPassword, passwordProblem } from "../identity/passwords";
import { EMAIL_PATTERN, findUserByEmail, insertUser, normalizeEmail } from "../identity/users";
import { CliError } from "./errors";

/** Creates the admin user, or gives an existing user of that e-mail the admin role. */
export async function adminCreate(database: Database, email: string, password: string): Promise<{ id: string; created: boolean }> {
  const e = normalizeEmail(email);
  if (!EMAIL_PATTERN.test(e)) throw new CliError(`--email: "${email}" is not an e-mail address`);
  const existing = await findUserByEmail(database, e);
  if (existing) {
    await database.write((tx) => tx.update(users).set({ role: "admin", updatedAt: Date.now() }).where(eq(users.id, existing.id)));
    return { id: existing.id, created: false };
  }
  const problem = passwordProblem(password);
  if (problem) throw new CliError(`password: ${problem}`);
  const passwordHash = await hashPassword(password);
  const id = await database.write((tx) => insertUser(tx, { email: e, passwordHash, role: "admin", emailVerified: true }));
  return { id, created: true };
}
