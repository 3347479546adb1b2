/**
 * The composition root: one Elysia app and every route plugin (several per domain), nothing else registers routes.
 */
import type { PeerInfo } from "./http/requestMeta";
import { databaseKeyStore } from "./signing/keyStore";
import { KEY_FILE_CHECK_MS, Signer, type SignerDeps } from "./signing/signer";
import { jwksRoutes } from "./signing/routes";
import { Elysia, type AnyElysia } from "elysia";
import type { CoreDeps, ViewDeps } from "./deps";
import type { AppState } from "./catalog/state";
import type { SignInDeps } from "./identity/limits";
import { TraceJournal, type JournalDeps } from "./journal/journal";
import { activityRoutes } from "./activity/routes";
import { findingsRoutes } from "./activity/findingsRoutes";
import { evalsRoutes } from "./activity/evalsRoutes";
import { createGuards } from "./auth/guards";
import { createAuthLimiters } from "./identity/limits";
import { selectionRoutes } from "./projects/routes/selection";
import { resolutionRoutes } from "./resolution/routes";
import { skillRoutes } from "./skills/routes";
import { catalogApiRoutes } from "./catalog/routes";
import { catalogWebRoutes } from "./projects/routes/catalog";
import { expertiseRoutes } from "./expertises/routes";
import { healthRoutes } from "./health/routes";
import { mcpRoutes, type Backend } from "./mcp/routes";
import { serverJsonRoutes } from "./mcp/serverJson";
import { oauthRoutes } from "./oauth/routes";
import { signInClient } from "./oauth/pages";
import { identityRoutes, setupRoutes } from "./identity/routes/account";
import { loginPages } from "./identity/pages/login";
import { linkPages } from "./identity/pages/link";
import { verifyEmailRoutes } from "./identity/pages/verify";
import { passwordResetRoutes } from "./identity/pages/reset";
import { ssoAuthRoutes } from "./identity/routes/sso";
import { ssoWebRoutes } from "./identity/routes/ssoSettings";
import { ssoPages } from "./identity/pages/sso";
import { accountPages } from "./identity/pages/account";
import { accountWebRoutes } from "./identity/routes/accountWeb";
import type { Guards } from "./auth/guards";
import { homePage } from "./projects/pages/home";
import { htmlErrors } from "./ui/errors";
import { viewerOf, type PageSessions } from "./ui/pageGuard";
import { pageSessions } from "./tenancy/pageSessions";
import { embeddedAssets } from "./embedded";
import { ViewRegistry, webViews } from "./ui/views";
import { type Places, usePlaces } from "./ui/places";
import { projectPages } from "./projects/pages/project";
import { catalogPages } from "./projects/pages/catalog";
import { orgPages } from "./tenancy/pages/org";
import { adminPages } from "./tenancy/pages/admin";
import { searchRoutes } from "./projects/pages/search";
import { orgExpertisesPages } from "./expertises/pages";
import { importPages } from "./expertises/importPage";
import { expertiseFormPages } from "./expertises/formPages";
import { orgInsightsPages } from "./activity/pages";
import { orgRulesPage } from "./activity/rulesPage";
import { dashboardReadCap } from "./activity/readCap";
import { projectRoutes } from "./projects/routes/project";
import { relevanceRoutes } from "./projects/routes/relevance";
import { hookRulesRoutes } from "./projects/routes/hookRules";
import { connectionRoutes } from "./projects/routes/connection";
import { specializationRoutes } from "./specializations/routes";
import { validatorConfigRoutes } from "./projects/routes/validatorConfig";
import { invitationPages } from "./tenancy/pages/invitations";
import { tenancyRoutes } from "./tenancy/routes";
import { mailRoutes } from "./mail/routes";
import { auditRoutes } from "./audit/routes";
import { codeHostingRoutes } from "./tenancy/codeHostingRoutes";
import { policyRoutes } from "./policy/routes";
import { lockRoutes } from "./policy/lockRoutes";
import { policyPages } from "./policy/pages";
import { edge } from "./http/edge";
import { methodOverride } from "./http/methodOverride";
import { join } from "node:path";
import { Backups } from "./ops/backups";
import { HttpMetrics } from "./ops/metrics";
import { opsRoutes, type OpsDeps } from "./ops/routes";
import { assetRoutes } from "./ui/assets";
import { openApiOperations, openApiRoutes } from "./http/openapi";
import type { RouteDescriptor } from "./http/route";
import { ACCOUNT_ROUTES, AUTH_ROUTES } from "./identity/routes/describe";
import { SSO_PLACES, SSO_ROUTES } from "./identity/routes/ssoDescribe";
import { ADMIN_PLACES, TENANCY_PLACES, TENANCY_ROUTES } from "./tenancy/describe";
import { MAIL_PLACES, MAIL_ROUTES } from "./mail/describe";
import { AUDIT_PLACES, AUDIT_ROUTES } from "./audit/describe";
import { POLICY_PLACES, POLICY_ROUTES } from "./policy/describe";
import { OPS_ROUTES } from "./ops/describe";
import { EXPERTISE_PLACES, EXPERTISE_ROUTES } from "./expertises/describe";
import { CATALOG_WEB_ROUTES } from "./projects/describeCatalog";
import { SPECIALIZATION_ROUTES } from "./specializations/describe";
import { PROJECT_ROUTES } from "./projects/describe";
import { ACTIVITY_PLACES, ACTIVITY_ROUTES } from "./activity/describe";
import { KEY_ROUTE_LIST } from "./keyRoutes";
import pkg from "../package.json" with { type: "json" };

export type { AppState };

/** What main or a test hands createApp. */
export interface AppDeps extends CoreDeps {
  state: AppState;
  /** The activity journal; createApp makes one when absent (main passes its own to flush at shutdown). */
  journal?: TraceJournal;
  /** Request counters for /metrics; createApp makes one when absent. */
  metrics?: HttpMetrics;
  /** Scheduled backups (serve passes its started one); createApp makes an unscheduled one when absent. */
  backups?: Backups;
  /** The signer of resolutions and receipts; createApp makes one from DATA_DIR and SIGNING when absent. */
  signer?: Signer;
}

/**
 * What createApp adds for the routes: the journal, the one pair of sign-in limiters every sign-in
 * path shares, metrics, backups and the app's view registry. Every slice a domain declares
 * (CoreDeps, ViewDeps, CatalogDeps, JournalDeps, SignInDeps, OpsDeps) is a part of it.
 */
export type ComposedDeps = AppDeps & ViewDeps & SignInDeps & JournalDeps & OpsDeps & SignerDeps;

/**
 * The descriptor of every `/web/*` and `/api/auth/*` route, each domain's list beside its handlers (http/route.ts):
 * the OpenAPI document and the views are built from it once, when the app is built. The key routes' are listed in keyRoutes.ts.
 */
export const ROUTES: readonly RouteDescriptor<ComposedDeps>[] = [
  ...AUTH_ROUTES,
  ...TENANCY_ROUTES,
  ...MAIL_ROUTES,
  ...AUDIT_ROUTES,
  ...SSO_ROUTES,
  ...POLICY_ROUTES,
  ...OPS_ROUTES,
  ...EXPERTISE_ROUTES,
  ...CATALOG_WEB_ROUTES,
  ...SPECIALIZATION_ROUTES,
  ...PROJECT_ROUTES,
  ...ACTIVITY_ROUTES,
  ...ACCOUNT_ROUTES,
];

/**
 * The navigation entry of every organization and administration page, each domain's beside its handlers
 * (ui/places.ts), in the order the header, the organization page's list and the palette show them.
 */
export const PLACES: Places = {
  org: [...TENANCY_PLACES, ...EXPERTISE_PLACES, ...ACTIVITY_PLACES, ...POLICY_PLACES, ...SSO_PLACES, ...MAIL_PLACES, ...AUDIT_PLACES],
  admin: ADMIN_PLACES,
};

/** Every row of the OpenAPI document: the key routes' and ROUTES. */
export const OPERATIONS = openApiOperations(KEY_ROUTE_LIST, ROUTES);

/** Builds the app; `app.handle(request)` serves it without a socket (tests), `listen` with one. */
export function createApp(input: AppDeps) {
  // one pair of limiters for the sign-in API and the OAuth login page: a lockout on one is a lockout on both
  const deps: ComposedDeps = {
    ...input,
    journal: input.journal ?? new TraceJournal(input.database, input.log),
    authLimiters: createAuthLimiters(input.config.authLimits, input.database),
    metrics: input.metrics ?? new HttpMetrics(),
    backups:
      input.backups ??
      new Backups({ source: input.database.path, folder: join(input.config.dataDir, "backups"), schedule: null, log: input.log }),
    // this app's fragments and form redirects: a second app in the same process keeps its own
    views: new ViewRegistry(),
    // on PostgreSQL the keys of the database, shared by every replica (signing/keyStore.ts)
    signer: input.signer ?? new Signer(input.config.dataDir, input.config.signing, KEY_FILE_CHECK_MS, databaseKeyStore(input.database)),
  };
  deps.database.storage.useLog(deps.log);
  const guards = createGuards(deps);
  // who is signed in on a page, for the kit's page guard and error pages (ui/pageGuard.ts)
  const sessions = pageSessions(deps);
  // each route's fragment or redirect for htmx and forms, from its descriptor (ui/views.ts)
  deps.views.describe(ROUTES, deps);
  // the pages' navigation entries for the header, the organization page and the palette (ui/places.ts)
  usePlaces(PLACES);
  // The MCP adapter sends each tool call through the app itself (docs/api-oauth-mcp.md).
  const backend: Backend = { handle: (request) => app.handle(request) };
  // Bun's own cap is far above ours (it would answer an empty 413), so the edge answers every body past
  // BODY_LIMIT with 413 in the error model, naming the limit: by its Content-Length before a byte is read,
  // a chunked one once it has counted past it.
  // development: false — never Bun's development error page (stack, source), whatever NODE_ENV says.
  // reusePort off: Elysia's listen turns SO_REUSEPORT on, which lets a second talentd bind the
  // same port and take half the connections; off, the second start fails with EADDRINUSE.
  // idleTimeout: Bun closes a connection whose headers have not arrived (or whose request is not
  // answered) this long after it opened; a few seconds past REQUEST_DEADLINE, so the edge's 408 comes first.
  const idleTimeout = Math.min(255, Math.ceil(deps.config.requestDeadlineMs / 1000) + 5);
  const serve = { maxRequestBodySize: 2 ** 40, development: false, reusePort: false, idleTimeout };
  const { trustedProxies, requestDeadlineMs, maxConnectionsPerAddress } = deps.config;
  // the socket's server once `listen` made one (the edge reads peers through it; see EdgeOptions.server)
  const listening: { server: PeerInfo | null } = { server: null };
  // the heavy dashboard reads' cap (activity/readCap.ts) counts every other answered request as contention
  const readCap = dashboardReadCap(deps.database, deps.config.dashboardReadsPerUser);
  // route plugins made of the deps and the guards alone, as one plain plugin each run (in this order)
  const guarded = (...routes: ((deps: ComposedDeps, guards: Guards) => AnyElysia)[]) => plainPlugin(routes.map((r) => r(deps, guards)));
  const app = new Elysia({ serve })
    .use(
      edge({
        log: deps.log,
        bodyLimit: deps.config.bodyLimit,
        accessLog: deps.config.accessLog,
        trustedProxies,
        requestDeadlineMs,
        maxConnectionsPerAddress,
        htmlError: htmlErrors((request, path) => viewerOf(sessions, request, path)),
        metrics: deps.config.metricsToken ? deps.metrics : null,
        storage: deps.database.storage,
        server: () => listening.server,
        answered: (request, route) => readCap.answered(request, route),
      }),
    )
    // on PostgreSQL the signing keys are read from the database once: no request is served before
    .onRequest(async () => {
      if (!deps.signer.loaded) await deps.signer.ready;
    })
    // a form's `?_method=DELETE` (PUT, PATCH) on a /web POST becomes that method before routing (http/methodOverride.ts)
    .use(methodOverride(backend.handle)) // hands the request back to the app once it took its method
    // before the routes: the fragment or redirect a /web route answers to htmx and to a form post (ui/views.ts)
    .use(webViews(deps.views))
    .use(healthRoutes(deps))
    .use(assetRoutes(embeddedAssets()))
    .use(openApiRoutes(deps.config.baseUrl, pkg.version, KEY_ROUTE_LIST, ROUTES))
    .use(identityRoutes(deps, guards))
    .use(pages(deps, guards))
    .use(ssoRoutes(deps, guards, sessions))
    .use(plainPlugin([accountWebRoutes(deps, guards), accountPages(deps, sessions)]))
    .use(guarded(searchRoutes, tenancyRoutes, codeHostingRoutes))
    .use(mailRoutes(deps, guards, sessions))
    .use(governance(deps, guards, sessions))
    .use(guarded(projectRoutes, expertiseRoutes, catalogApiRoutes, catalogWebRoutes, resolutionRoutes, skillRoutes))
    .use(guarded(selectionRoutes, relevanceRoutes, connectionRoutes, specializationRoutes, validatorConfigRoutes, activityRoutes))
    .use(oauthRoutes(deps))
    .use(mcpRoutes(deps, backend))
    .use(serverJsonRoutes(deps.config))
    .use(jwksRoutes(deps.signer))
    .use(opsRoutes(deps, guards));
  // Elysia sets app.server in listen(); read through the holder so the edge's hook never names it
  Object.defineProperty(listening, "server", { get: () => app.server as PeerInfo | null });
  return app;
}

export type App = ReturnType<typeof createApp>;

/**
 * The organization's governance and evidence routes (policy, audit log, findings reports) as one
 * plugin typed as a plain Elysia, for the same reason as `pages` below.
 */
function governance(deps: ComposedDeps, guards: Guards, sessions: PageSessions): Elysia {
  // an audit-log export is a heavy read under the dashboard's per-user cap (activity/readCap.ts)
  const cap = dashboardReadCap(deps.database, deps.config.dashboardReadsPerUser);
  return plainPlugin([
    policyRoutes(deps, guards),
    lockRoutes(deps, guards),
    auditRoutes(deps, guards, sessions, cap),
    findingsRoutes(deps, guards),
    evalsRoutes(deps, guards),
    hookRulesRoutes(deps, guards),
  ]);
}

/**
 * The server-rendered pages (sign-in, setup, reset, invitations, the dashboard) as one plugin
 * typed as a plain Elysia: nothing reads their route types (no typed client), and the app's
 * chain of plugin types stays under TypeScript's instantiation depth limit (TS2589).
 */
function pages(deps: ComposedDeps, guards: Guards): Elysia {
  return plainPlugin([
    setupRoutes(deps),
    loginPages(deps, signInClient(deps)),
    linkPages(deps),
    verifyEmailRoutes(deps, guards),
    passwordResetRoutes(deps),
    homePage(deps),
    projectPages(deps),
    catalogPages(deps),
    orgPages(deps),
    adminPages(deps),
    invitationPages(deps),
    importPages(deps),
    expertiseFormPages(deps),
    orgExpertisesPages(deps),
    orgInsightsPages(deps),
    policyPages(deps),
    orgRulesPage(deps),
  ]);
}

/** Sign-in through identity providers and organization SSO: the /api/auth legs, /web/orgs/current/sso, /org/sso (one plugin; its route types are not needed by callers). */
function ssoRoutes(deps: ComposedDeps, guards: Guards, sessions: PageSessions): Elysia {
  return plainPlugin([ssoAuthRoutes(deps), ssoWebRoutes(deps, guards), ssoPages(deps, sessions)]);
}

/**
 * One plugin of `plugins`, typed as a plain Elysia without a cast: `use` registers each on the
 * same instance, whose declared type stays `Elysia` (the typed chain is not kept).
 */
function plainPlugin(plugins: readonly AnyElysia[]): Elysia {
  const plugin = new Elysia();
  for (const p of plugins) plugin.use(p);
  return plugin;
}
