/**
 * A project key made from what was sent: `POST /web/projects/:id/keys` (routes/project.ts) and the Keys tab's form
 * without JavaScript (`POST /projects/:id/keys`, pages/keys.tsx) check it the same way and store it the same way.
 */
import type { Database } from "../db/client";
import { KEY_SCOPES, type KeyScope } from "../db/schema";
import { validationFailed } from "../http/errors";
import { recordSecurityEvent } from "../identity/security";
import { createKey, isScope, KEY_NAME_MAX } from "./keys";

/** A key's fields as sent: tools as a list (check boxes) or a comma-separated string. */
export interface KeyBody {
  name: string;
  tools: string[] | string;
  expiresAt?: string | null;
}

/** Checks a key's name, scopes and expiry as sent; 400 naming each bad field. */
export function keyInput(body: KeyBody): { name: string; tools: KeyScope[]; expiresAt: number | null } {
  const name = body.name.trim();
  const issues = [];
  if (name.length === 0) issues.push({ path: "name", message: "must not be empty: it is the only later means of identifying the key" });
  else if (name.length > KEY_NAME_MAX) issues.push({ path: "name", message: `must be at most ${KEY_NAME_MAX} characters` });
  const tools = Array.isArray(body.tools)
    ? body.tools
    : String(body.tools)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
  const unknown = tools.filter((x) => !isScope(x));
  if (tools.length === 0) issues.push({ path: "tools", message: `choose at least one of ${KEY_SCOPES.join(", ")}` });
  if (unknown.length > 0)
    issues.push({ path: "tools", message: `unknown scope(s) ${unknown.join(", ")}; allowed: ${KEY_SCOPES.join(", ")}` });
  let expiresAt: number | null = null;
  if (body.expiresAt !== undefined && body.expiresAt !== null && body.expiresAt !== "") {
    expiresAt = Date.parse(body.expiresAt);
    if (Number.isNaN(expiresAt)) issues.push({ path: "expiresAt", message: "must be an ISO 8601 timestamp" });
    else if (expiresAt <= Date.now()) issues.push({ path: "expiresAt", message: "must be in the future" });
  }
  if (issues.length > 0) throw validationFailed(issues);
  return { name, tools: tools as KeyScope[], expiresAt };
}

/** Checks and stores a key of a project; the key and its security event commit together (never a stored key whose value was not shown). */
export async function createProjectKey(
  database: Database,
  target: { organizationId: string; projectId: string },
  user: { id: string; email: string },
  body: KeyBody,
) {
  const { name, tools, expiresAt } = keyInput(body);
  return database.write(async (tx) => {
    const created = await createKey(tx, { ...target, name, tools, expiresAt, createdBy: { id: user.id, email: user.email } });
    await recordSecurityEvent(tx, {
      kind: "key.created",
      userId: user.id,
      email: user.email,
      detail: { keyId: created.key.id, projectId: target.projectId, tools: created.key.tools },
    });
    return created;
  });
}
