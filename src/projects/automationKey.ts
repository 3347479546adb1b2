/**
 * The project's automation key for hooks and CI (docs/api.md "Connection kit, automation key"):
 * one active per project. Made once, then rotated: a new key and the current one revoked in one
 * transaction, so hooks and CI fail until their secret is replaced — which is why the dashboard
 * asks before rotating (pages/automationKey.tsx) and a first key never speaks of a previous one.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/client";
import { apiKeys } from "../db/schema";
import { recordSecurityEvent } from "../identity/security";
import { record } from "../audit/record";
import { createKey, keyFacts, type KeyView } from "./keys";
import { AUTOMATION_KEY_NAME, AUTOMATION_SCOPES } from "./setup";

/** Whether the project has an active automation key (what the dashboard offers: create it, or rotate it). */
export async function hasAutomationKey(database: Database, projectId: string): Promise<boolean> {
  const row = await database.get<{ id: string }>(
    "SELECT id FROM api_keys WHERE project_id = ? AND automation = 1 AND revoked_at IS NULL LIMIT 1",
    [projectId],
  );
  return row !== undefined;
}

/** Makes the project's automation key, revoking the active one in the same transaction; `revoked` names what it replaced. */
export async function rotateAutomationKey(
  database: Database,
  project: { id: string; organizationId: string },
  by: { id: string; email: string },
): Promise<{ created: { key: KeyView; value: string }; revoked: string[] }> {
  const projectId = project.id;
  return database.write(async (tx) => {
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: Date.now() })
      .where(and(eq(apiKeys.projectId, projectId), eq(apiKeys.automation, true), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    const created = await createKey(tx, {
      projectId,
      name: AUTOMATION_KEY_NAME,
      tools: AUTOMATION_SCOPES,
      expiresAt: null,
      createdBy: by,
      automation: true,
    });
    // one change, one entry: the first key is created, a later one replaces the active one
    await record(tx, {
      organizationId: project.organizationId,
      actor: { kind: "user", id: by.id, label: by.email },
      action: revoked.length === 0 ? "key.created" : "automation_key.rotated",
      object: { kind: "key", id: created.key.id },
      ...(revoked.length === 0 ? {} : { before: { keyIds: revoked.map((k) => k.id) } }),
      after: keyFacts({ ...created.key, projectId, expiresAt: null }),
    });
    await recordSecurityEvent(tx, {
      kind: "key.created",
      userId: by.id,
      email: by.email,
      detail: { keyId: created.key.id, projectId, tools: created.key.tools, automation: true, revoked: revoked.map((k) => k.id) },
    });
    return { created, revoked: revoked.map((k) => k.id) };
  });
}
