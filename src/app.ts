/**
 * The composition root: one Elysia app, one plugin per domain, nothing else registers routes.
 */
import { Elysia } from "elysia";
import type { AppDeps, ComposedDeps } from "./deps";
import { TraceJournal } from "./activity/journal";
import { activityRoutes } from "./activity/routes";
import { createGuards } from "./auth/guards";
import { createAuthLimiters } from "./identity/limits";
import { selectionRoutes } from "./projects/selectionRoutes";
import { resolutionRoutes } from "./resolution/routes";
import { skillRoutes } from "./skills/routes";
import { catalogApiRoutes } from "./catalog/routes";
import { catalogWebRoutes } from "./catalog/webRoutes";
import { expertiseRoutes } from "./expertises/routes";
import { healthRoutes } from "./health/routes";
import { mcpRoutes, type Backend } from "./mcp/routes";
import { serverJsonRoutes } from "./mcp/serverJson";
import { oauthRoutes } from "./oauth/routes";
import { identityRoutes, setupRoutes } from "./identity/routes";
import { loginPages } from "./identity/loginPages";
import { linkPages } from "./identity/linkPages";
import { verifyEmailRoutes } from "./identity/verifyPages";
import { passwordResetRoutes } from "./identity/resetPages";
import { ssoAuthRoutes } from "./identity/ssoRoutes";
import { ssoWebRoutes } from "./identity/ssoWebRoutes";
import { ssoPages } from "./web/ssoPage";
import type { Guards } from "./auth/guards";
import { homePage } from "./web/home";
import { htmlErrors } from "./web/errors";
import { viewerOf } from "./web/context";
import { ViewRegistry, webViews } from "./web/views";
import { projectPages } from "./web/projectPages";
import { catalogPages } from "./web/catalogPages";
import { orgPages } from "./web/orgPages";
import { adminPages } from "./web/adminPages";
import { registerTenancyViews } from "./tenancy/views";
import { searchRoutes } from "./web/searchRoutes";
import { registerProjectViews } from "./projects/views";
import { registerExpertiseViews } from "./expertises/views";
import { orgExpertisesPages } from "./web/orgExpertisesPages";
import { orgInsightsPages } from "./web/orgInsightsPages";
import { projectRoutes } from "./projects/routes";
import { relevanceRoutes } from "./projects/relevanceRoutes";
import { connectionRoutes } from "./projects/connectionRoutes";
import { specializationRoutes } from "./specializations/routes";
import { validatorConfigRoutes } from "./projects/validatorConfig";
import { invitationPages } from "./tenancy/invitationPages";
import { tenancyRoutes } from "./tenancy/routes";
import { mailRoutes } from "./mail/routes";
import { codeHostingRoutes } from "./tenancy/codeHostingRoutes";
import { edge } from "./http/edge";
import { methodOverride } from "./http/methodOverride";
import { join } from "node:path";
import { Backups } from "./ops/backups";
import { HttpMetrics } from "./ops/metrics";
import { opsRoutes } from "./ops/routes";
import { assetRoutes } from "./web/assets";
import { openApiRoutes } from "./http/openapi";
import pkg from "../package.json" with { type: "json" };

export type { AppDeps, AppState, ComposedDeps } from "./deps";

/** Builds the app; `app.handle(request)` serves it without a socket (tests), `listen` with one. */
export function createApp(input: AppDeps) {
  // one pair of limiters for the sign-in API and the OAuth login page: a lockout on one is a lockout on both
  const deps: ComposedDeps = {
    ...input,
    journal: input.journal ?? new TraceJournal(input.database, input.log),
    authLimiters: createAuthLimiters(input.config.authLimits),
    metrics: input.metrics ?? new HttpMetrics(),
    backups:
      input.backups ??
      new Backups({ source: input.database.path, folder: join(input.config.dataDir, "backups"), schedule: null, log: input.log }),
    // this app's fragments and form redirects: a second app in the same process keeps its own
    views: new ViewRegistry(),
  };
  deps.database.storage.useLog(deps.log);
  const guards = createGuards(deps);
  registerProjectViews(deps);
  registerTenancyViews(deps);
  registerExpertiseViews(deps.views);
  // The MCP adapter sends each tool call through the app itself (docs/api-oauth-mcp.md).
  const backend: Backend = { handle: (request) => app.handle(request) };
  // Bun's own cap is a backstop above ours, so the edge can answer 413 in the error model.
  // development: false — never Bun's development error page (stack, source), whatever NODE_ENV says.
  // reusePort off: Elysia's listen turns SO_REUSEPORT on, which lets a second talentd bind the
  // same port and take half the connections; off, the second start fails with EADDRINUSE.
  // idleTimeout: Bun closes a connection whose headers have not arrived (or whose request is not
  // answered) this long after it opened; a few seconds past REQUEST_DEADLINE, so the edge's 408 comes first.
  const idleTimeout = Math.min(255, Math.ceil(deps.config.requestDeadlineMs / 1000) + 5);
  const serve = { maxRequestBodySize: deps.config.bodyLimit + 64 * 1024, development: false, reusePort: false, idleTimeout };
  const { trustedProxies, requestDeadlineMs, maxConnectionsPerAddress } = deps.config;
  const app = new Elysia({ serve })
    .use(
      edge({
        log: deps.log,
        bodyLimit: deps.config.bodyLimit,
        accessLog: deps.config.accessLog,
        trustedProxies,
        requestDeadlineMs,
        maxConnectionsPerAddress,
        htmlError: htmlErrors((request, path) => viewerOf(deps, request, path)),
        metrics: deps.config.metricsToken ? deps.metrics : null,
        storage: deps.database.storage,
      }),
    )
    // a form's `?_method=DELETE` (PUT, PATCH) on a /web POST becomes that method before routing (http/methodOverride.ts)
    .use(methodOverride(backend.handle)) // hands the request back to the app once it took its method
    // before the routes: the fragment or redirect a /web route answers to htmx and to a form post (web/views.ts)
    .use(webViews(deps.views))
    .use(healthRoutes(deps))
    .use(assetRoutes())
    .use(openApiRoutes(deps.config.baseUrl, pkg.version))
    .use(identityRoutes(deps, guards))
    .use(pages(deps))
    .use(ssoRoutes(deps, guards))
    .use(searchRoutes(deps, guards))
    .use(tenancyRoutes(deps, guards))
    .use(codeHostingRoutes(deps, guards))
    .use(mailRoutes(deps, guards))
    .use(projectRoutes(deps, guards))
    .use(expertiseRoutes(deps, guards))
    .use(catalogApiRoutes(deps, guards))
    .use(catalogWebRoutes(deps, guards))
    .use(resolutionRoutes(deps, guards))
    .use(skillRoutes(deps, guards))
    .use(selectionRoutes(deps, guards))
    .use(relevanceRoutes(deps, guards))
    .use(connectionRoutes(deps, guards))
    .use(specializationRoutes(deps, guards))
    .use(validatorConfigRoutes(deps, guards))
    .use(activityRoutes(deps, guards))
    .use(oauthRoutes(deps))
    .use(mcpRoutes(deps, backend))
    .use(serverJsonRoutes(deps.config))
    .use(opsRoutes(deps, guards));
  return app;
}

export type App = ReturnType<typeof createApp>;

/**
 * The server-rendered pages (sign-in, setup, reset, invitations, the dashboard) as one plugin
 * typed as a plain Elysia: nothing reads their route types (no typed client), and the app's
 * chain of plugin types stays under TypeScript's instantiation depth limit (TS2589).
 */
function pages(deps: ComposedDeps): Elysia {
  return new Elysia()
    .use(setupRoutes(deps))
    .use(loginPages(deps))
    .use(linkPages(deps))
    .use(verifyEmailRoutes(deps))
    .use(passwordResetRoutes(deps))
    .use(homePage(deps))
    .use(projectPages(deps))
    .use(catalogPages(deps))
    .use(orgPages(deps))
    .use(adminPages(deps))
    .use(invitationPages(deps))
    .use(orgExpertisesPages(deps))
    .use(orgInsightsPages(deps)) as unknown as Elysia;
}

/** Sign-in through identity providers and organization SSO: the /api/auth legs, /web/orgs/current/sso, /org/sso (one plugin; its route types are not needed by callers). */
function ssoRoutes(deps: ComposedDeps, guards: Guards): Elysia {
  return new Elysia().use(ssoAuthRoutes(deps)).use(ssoWebRoutes(deps, guards)).use(ssoPages(deps)) as unknown as Elysia;
}
