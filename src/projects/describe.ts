/**
 * The descriptors of the project routes (`/web/projects…`: routes/project.ts, selection.ts, relevance.ts,
 * connection.ts, validatorConfig.ts, hookRules.ts), docs/api.md "Projects and keys": each route's OpenAPI row,
 * answer and view (http/route.ts), collected by app.ts. The activity read of a project is activity/describe.ts.
 * The hook rules' key routes (docs/api.md "Hook rules"; read with `validate`, written with `install`) are
 * described here too (http/keyRoute.ts; src/keyRoutes.ts lists them with the others).
 */
import type { KeyRoute } from "../http/keyRoute";
import type { CatalogDeps } from "../catalog/state";
import type { ViewDeps } from "../deps";
import { Actor } from "../expertises/describe";
import type { RouteDescriptor } from "../http/route";
import { a, arr, B, I, ids, int, map, n, N, o, obj, open, S, SelectionChange, str, TalentFile } from "../http/schema";
import { projectViews } from "./views";
import { HookChoice } from "../policy/describe";

const projectNames = { id: S, organizationId: S, name: S, description: S, repository: n(S) };
const ProjectView = o({ ...projectNames, contextBudget: I, createdBy: n(S), createdAt: S, updatedAt: S });
const Project = o({ project: ProjectView });
const Key = o({
  id: S,
  projectId: S,
  name: S,
  tools: a(S),
  expiresAt: n(S),
  createdAt: S,
  lastUsedAt: n(S),
  revokedAt: n(S),
  status: S,
  createdBy: n(Actor),
  automation: B,
});
/** The environment `talentd check` and the CI read the server and the automation key from. */
const AutomationEnv = o({ TALENTD_URL: S, TALENTD_KEY: S });
const Relevance = o({ settings: o({ languages: a(S), roles: a(S), paths: a(S), exclude: a(S) }), source: S });

/** One rule with a detector of the project's enabled talents. */
const HookRuleRow = o({
  rule: S,
  talent: S,
  shipped: S,
  earned: B,
  security: B,
  effective: S,
  choice: n(S),
  lockedBy: n(S),
  lock: n(S),
});

/** The body of both PUTs (key and web). */
const HOOK_RULES_BODY = obj({ rules: map(HookChoice) }, ["rules"]);

export const HOOK_RULES_READ = {
  method: "GET",
  path: "/api/hook-rules",
  scope: "validate",
  kind: "hook_rules",
  summary: "The project's hook rules: per rule with a detector, its shipped severity, whether it earned blocking, the project's choice",
  answer: o({ rules: a(HookRuleRow) }),
} satisfies KeyRoute;

export const HOOK_RULES_WRITE = {
  method: "PUT",
  path: "/api/hook-rules",
  scope: "install",
  kind: "hook_rules_set",
  summary:
    "Replace the project's hook rules ({rules: {RULE-ID: block | advise | off}}); rules not named go back to their shipped behaviour",
  body: HOOK_RULES_BODY,
  errors: [400, 409],
  answer: o({ rules: a(HookRuleRow), changed: I }),
} satisfies KeyRoute;

/** Projects, their keys, installed talents, journal, relevance, connection kit and hook rules: members (a deletion: admins). */
export const PROJECT = {
  list: {
    method: "GET",
    path: "/web/projects",
    summary: "Projects of the active organization",
    access: "member",
    answer: o({ projects: a(ProjectView) }),
  },
  create: {
    method: "POST",
    path: "/web/projects",
    summary: "Create a project",
    access: "member",
    body: obj({ name: str({ maxLength: 100 }), description: str({ maxLength: 1000 }), repository: str() }, ["name"]),
    ok: 201,
    errors: [400],
    answer: Project,
    view: (deps) => projectViews(deps).created,
  },
  one: { method: "GET", path: "/web/projects/{id}", summary: "A project", access: "member", errors: [404], answer: Project },
  update: {
    method: "PATCH",
    path: "/web/projects/{id}",
    summary: "Rename, describe, set the repository or the context budget",
    access: "member",
    body: obj({ name: str(), description: str(), repository: str(), contextBudget: { type: ["integer", "null"] } }),
    errors: [400, 404],
    answer: Project,
    view: (deps) => projectViews(deps).settings,
  },
  remove: {
    method: "DELETE",
    path: "/web/projects/{id}",
    summary: "Delete a project with everything it holds",
    access: "admin",
    errors: [404],
    answer: o({ deleted: S, name: S }),
    view: (deps) => projectViews(deps).deleted,
  },
  keys: {
    method: "GET",
    path: "/web/projects/{id}/keys",
    summary: "The project's keys (never their values)",
    access: "member",
    errors: [404],
    answer: o({ keys: a(Key) }),
  },
  createKey: {
    method: "POST",
    path: "/web/projects/{id}/keys",
    summary: "Create a key (value shown once)",
    access: "member",
    body: obj({ name: str(), tools: arr(str()), expiresAt: str({ format: "date-time" }) }, ["name", "tools"]),
    ok: 201,
    errors: [400, 404],
    answer: o({ key: Key, value: S, notice: S }),
    view: (deps) => projectViews(deps).keyCreated,
  },
  revokeKey: {
    method: "DELETE",
    path: "/web/projects/{id}/keys/{keyId}",
    summary: "Revoke a key",
    access: "member",
    errors: [404],
    answer: o({ key: Key }),
    view: (deps) => projectViews(deps).keyRevoked,
  },
  installed: {
    method: "GET",
    path: "/web/projects/{id}/installed",
    summary: "Installed talents and their state",
    access: "member",
    errors: [404],
    answer: o({
      talents: a(
        o({
          id: S,
          kind: S,
          state: S,
          servable: B,
          title: S,
          summary: S,
          version: S,
          requires: a(S),
          missingDependencies: a(S),
          disabledDependencies: a(S),
          installedAt: S,
          requiredByPolicy: B,
        }),
      ),
      missing: a(S),
      counts: o({ installed: I, active: I, disabled: I, missing: I }),
      policy: n(o({ requiredTalents: a(S), setBy: n(S) })),
    }),
  },
  install: {
    method: "POST",
    path: "/web/projects/{id}/talents",
    summary: "Install talents (atomic group)",
    access: "member",
    body: obj({ talent: str(), talents: ids }),
    ok: 201,
    errors: [400, 404, 409],
    answer: SelectionChange,
    view: (deps) => projectViews(deps).install,
  },
  updateTalent: {
    method: "PATCH",
    path: "/web/projects/{id}/talents/{talentId}",
    summary: "Enable or disable an installed talent",
    access: "member",
    body: obj({ enabled: { type: "boolean" } }, ["enabled"]),
    errors: [400, 404, 409],
    route: "/web/projects/:id/talents/*",
    answer: o({ id: S, state: S, changed: B, dependents: a(S) }),
    view: (deps) => projectViews(deps).toggle,
  },
  uninstall: {
    method: "DELETE",
    path: "/web/projects/{id}/talents/{talentId}",
    summary: "Uninstall a talent",
    access: "member",
    errors: [404, 409],
    route: "/web/projects/:id/talents/*",
    answer: o({ uninstalled: S, dependents: a(S) }),
    view: (deps) => projectViews(deps).uninstall,
  },
  applySpecialization: {
    method: "POST",
    path: "/web/projects/{id}/apply-specialization",
    summary: "Install a specialization with its requires-closure (atomic)",
    access: "member",
    body: obj({ specializationId: str() }, ["specializationId"]),
    errors: [400, 404, 409],
    answer: o({
      specialization: o({ id: S, name: S }),
      talents: a(S),
      installed: a(S),
      alreadyInstalled: a(S),
    }),
    view: (deps) => projectViews(deps).apply,
  },
  traces: {
    method: "GET",
    path: "/web/projects/{id}/traces",
    summary: "The activity journal, newest first (keyset paging)",
    access: "member",
    query: [
      { name: "limit", schema: int(1, 200) },
      { name: "before", schema: str() },
    ],
    errors: [400, 404],
    answer: o({
      events: a(
        o({
          id: S,
          at: S,
          kind: S,
          via: S,
          author: o({ type: S, id: S, name: S }),
          client: n(S),
          runId: n(S),
          scope: n(S),
          talentsEntered: a(S),
          talentsLeft: a(S),
          resolutionId: n(S),
          status: I,
          durationMs: N,
          detail: n(open),
        }),
      ),
      nextBefore: n(S),
    }),
  },
  reports: {
    method: "GET",
    path: "/web/projects/{id}/resolutions/{resolutionId}/reports",
    summary: "Reports of a resolution with evidence links",
    access: "member",
    errors: [404],
    answer: o({
      resolutionId: S,
      reports: a(
        o({
          reportId: S,
          submissionId: S,
          recordedAt: S,
          author: o({ type: S, id: S }),
          results: a(
            o({
              talentId: S,
              kind: S,
              verdict: S,
              evidence: a(S),
              missing: a(S),
              note: n(S),
              evidenceLinks: a(o({ evidence: S, url: S })),
            }),
          ),
        }),
      ),
    }),
  },
  relevance: {
    method: "GET",
    path: "/web/projects/{id}/relevance",
    summary: "Relevance settings (stored or derived)",
    access: "member",
    errors: [404],
    answer: Relevance,
  },
  setRelevance: {
    method: "PUT",
    path: "/web/projects/{id}/relevance",
    summary: "Replace relevance settings",
    access: "member",
    body: obj({ languages: arr(str()), roles: arr(str()), paths: arr(str()), exclude: arr(str()) }),
    errors: [400, 404],
    answer: Relevance,
  },
  resetRelevance: {
    method: "DELETE",
    path: "/web/projects/{id}/relevance",
    summary: "Reset relevance to the derived settings",
    access: "member",
    errors: [404],
    answer: Relevance,
  },
  setup: {
    method: "GET",
    path: "/web/projects/{id}/setup",
    summary: "Connection kit: client configurations, AGENTS.md stub",
    access: "member",
    errors: [404],
    answer: o({
      mcpUrl: S,
      clients: a(o({ id: S, name: S, command: S, file: S, content: S, docs: S })),
      instructions: o({ file: S, content: S }),
      automation: o({ env: AutomationEnv, scopes: a(S), tokenRoute: S, hook: S }),
    }),
  },
  token: {
    method: "POST",
    path: "/web/projects/{id}/token",
    summary: "(Re)create the automation key (value once; previous revoked)",
    access: "member",
    ok: 201,
    errors: [404],
    answer: o({ key: Key, value: S, revoked: a(S), env: AutomationEnv, notice: S }),
    view: (deps) => projectViews(deps).token,
  },
  validatorConfig: {
    method: "GET",
    path: "/web/projects/{id}/validator-config",
    summary: "The CI file that runs talentd ci verify (github, gitlab or a script)",
    access: "member",
    query: [{ name: "target", schema: str({ enum: ["github", "gitlab", "script"] }) }],
    errors: [400, 404],
    answer: o({ target: S, file: S, content: S }),
  },
  readFile: {
    method: "POST",
    path: "/web/projects/{id}/file",
    summary: "Read one talent file with the key route's rules",
    access: "member",
    body: obj({ uri: str(), section: str(), resolutionId: str() }, ["uri"]),
    errors: [400, 404],
    answer: o({ file: TalentFile }),
  },
  hookRules: {
    method: "GET",
    path: "/web/projects/{id}/hook-rules",
    summary: "The project's hook rules (what blocks a commit in talentd check)",
    access: "member",
    errors: [404],
    answer: HOOK_RULES_READ.answer,
  },
  setHookRules: {
    method: "PUT",
    path: "/web/projects/{id}/hook-rules",
    summary: "Replace the project's hook rules (owner or admin)",
    access: "admin",
    body: HOOK_RULES_BODY,
    errors: [400, 404, 409],
    answer: HOOK_RULES_WRITE.answer,
    view: (deps) => projectViews(deps).hookRules,
  },
} satisfies Record<string, RouteDescriptor<ViewDeps & CatalogDeps>>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const PROJECT_ROUTES: RouteDescriptor<ViewDeps & CatalogDeps>[] = Object.values(PROJECT);
