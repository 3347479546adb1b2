/**
 * `GET /web/projects/:id/setup` (the connection kit), `POST /web/projects/:id/token` (the
 * automation key for hooks and CI) and `POST /web/projects/:id/file` (read one talent file as
 * a person, with the key route's rules): docs/api.md "Connection kit, automation key, reading a file".
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import type { Guards } from "../../auth/guards";
import { validationFailed } from "../../http/errors";
import { readFiles } from "../../resolution/deepen";
import { rotateAutomationKey } from "../automationKey";
import { getProject } from "../service";
import { connectionKit } from "../setup";
import { routeGuard, routePattern } from "../../http/route";
import { PROJECT } from "../describe";

export function connectionRoutes(deps: CatalogDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .get(
      routePattern(PROJECT.setup),
      async ({ org, params }) => connectionKit(deps.config.baseUrl, await getProject(deps.database, org.id, params.id)),
      routeGuard(PROJECT.setup),
    )
    .post(
      routePattern(PROJECT.token),
      async ({ auth, org, params, set }) => {
        const project = await getProject(deps.database, org.id, params.id);
        // one transaction: the previous automation key is revoked exactly when the new one exists
        const r = await rotateAutomationKey(deps.database, project, { id: auth.user.id, email: auth.user.email });
        set.status = 201;
        return {
          key: r.created.key,
          value: r.created.value,
          revoked: r.revoked,
          env: { TALENTD_URL: deps.config.baseUrl, TALENTD_KEY: r.created.value },
          notice: `Copy the value now: it is shown once and cannot be retrieved again.${r.revoked.length > 0 ? " The previous automation key no longer works: replace the CI secret TALENTD_KEY with this value." : ""}`,
        };
      },
      routeGuard(PROJECT.token),
    )
    .post(
      routePattern(PROJECT.readFile),
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
      routeGuard(PROJECT.readFile),
    );
}
