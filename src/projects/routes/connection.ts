/**
 * `GET /web/projects/:id/setup` (the connection kit), `POST /web/projects/:id/token` (the
 * automation key for hooks and CI) and `POST /web/projects/:id/file` (read one talent file as
 * a person, with the key route's rules): docs/api.md "Connection kit, automation key, reading a file".
 */
import { and, eq, isNull } from "drizzle-orm";
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import type { Guards } from "../../auth/guards";
import { apiKeys } from "../../db/schema";
import { validationFailed } from "../../http/errors";
import { recordSecurityEvent } from "../../identity/security";
import { readFiles } from "../../resolution/deepen";
import { createKey } from "../keys";
import { getProject } from "../service";
import { AUTOMATION_KEY_NAME, AUTOMATION_SCOPES, connectionKit } from "../setup";

export function connectionRoutes(deps: CatalogDeps, guards: Guards) {
  return new Elysia({ prefix: "/web/projects/:id" })
    .use(guards)
    .get("/setup", async ({ org, params }) => connectionKit(deps.config.baseUrl, await getProject(deps.database, org.id, params.id)), {
      org: "member",
    })
    .post(
      "/token",
      async ({ auth, org, params, set }) => {
        const project = await getProject(deps.database, org.id, params.id);
        // one transaction: the previous automation key is revoked exactly when the new one exists
        const r = await deps.database.write(async (tx) => {
          const revoked = await tx
            .update(apiKeys)
            .set({ revokedAt: Date.now() })
            .where(and(eq(apiKeys.projectId, project.id), eq(apiKeys.automation, true), isNull(apiKeys.revokedAt)))
            .returning({ id: apiKeys.id });
          const created = await createKey(tx, {
            projectId: project.id,
            name: AUTOMATION_KEY_NAME,
            tools: AUTOMATION_SCOPES,
            expiresAt: null,
            createdBy: { id: auth.user.id, email: auth.user.email },
            automation: true,
          });
          await recordSecurityEvent(tx, {
            kind: "key.created",
            userId: auth.user.id,
            email: auth.user.email,
            detail: {
              keyId: created.key.id,
              projectId: project.id,
              tools: created.key.tools,
              automation: true,
              revoked: revoked.map((k) => k.id),
            },
          });
          return { created, revoked: revoked.map((k) => k.id) };
        });
        set.status = 201;
        return {
          key: r.created.key,
          value: r.created.value,
          revoked: r.revoked,
          env: { TALENTD_URL: deps.config.baseUrl, TALENTD_KEY: r.created.value },
          notice:
            "Copy the value now: it is shown once and cannot be retrieved again. The previous automation key, if any, no longer works.",
        };
      },
      { org: "member" },
    )
    .post(
      "/file",
      async ({ org, params, body }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
        const issues = [];
        if (typeof b.uri !== "string" || b.uri === "" || b.uri.length > 500)
          issues.push({ path: "uri", message: "must be a talent:// uri" });
        for (const k of ["section", "resolutionId"] as const) {
          if (b[k] !== undefined && b[k] !== null && (typeof b[k] !== "string" || (b[k] as string).length > 200))
            issues.push({ path: k, message: "must be a string of at most 200 characters" });
        }
        if (issues.length > 0) throw validationFailed(issues);
        const [file] = await readFiles({ database: deps.database, catalog: deps.state.catalog! }, project, {
          uris: [b.uri as string],
          resolutionId: (b.resolutionId as string | null | undefined) ?? undefined,
          section: (b.section as string | null | undefined) ?? undefined,
        });
        return { file };
      },
      { org: "member" },
    );
}
