/**
 * The OpenAPI 3.1 document of the key API (`/api/*`) and the web endpoints (`/web/*`), served
 * at `/openapi.json`. Built once at start-up from the routes' descriptors (one per route: what it does,
 * who may call it, its body, query and answer) because most routes read their input by hand
 * (http/query.ts) rather than through schemas a generator could see: the key routes' (http/keyRoute.ts)
 * and the others' (http/route.ts), each domain's beside its handlers, handed in by app.ts (the key
 * routes' listed in src/keyRoutes.ts).
 * A test keeps the descriptors and the registered routes equal in both directions
 * (test/http/route-descriptors.test.ts), so a new route cannot go undocumented. docs/api.md is the prose beside it.
 */
import { Elysia } from "elysia";
import { OAUTH_SCOPES } from "../db/schema";
import { sessionCookieName } from "./cookies";
import { type KeyRoute, routeKey } from "./keyRoute";
import type { OtherAnswer, RouteDescriptor } from "./route";
import { arr, obj, str, type Access, type Operation, type Schema } from "./schema";

export type { Access, Operation };

/** The descriptors a document is built from: the key routes' and the others'. */
type Keys = readonly KeyRoute[];
type Routes = readonly RouteDescriptor<never>[];

/** A key route's row, from its descriptor (`:id` → `{id}`). */
const keyOperation = (r: KeyRoute): Operation => ({
  method: r.method,
  path: r.path.replace(/:([A-Za-z]+)/g, "{$1}"),
  summary: r.summary,
  access: `key:${r.scope}`,
  ...(r.body ? { body: r.body } : {}),
  ...(r.query ? { query: r.query } : {}),
  ...(r.ok ? { ok: r.ok } : {}),
  ...(r.errors ? { errors: r.errors } : {}),
});

/** Every documented route: the key routes', then the others' in the order the app lists them. */
export function openApiOperations(keyRoutes: Keys, routes: Routes): Operation[] {
  return [...keyRoutes.map(keyOperation), ...routes];
}

/** The declared answers by `METHOD /path`: the key routes' and the others' from their descriptors. */
function answersOf(keyRoutes: Keys, routes: Routes): Map<string, Schema | OtherAnswer> {
  const answers = new Map<string, Schema | OtherAnswer>();
  for (const r of keyRoutes) answers.set(routeKey(r).replace(/:([A-Za-z]+)/g, "{$1}"), r.answer);
  for (const r of routes) if (r.answer) answers.set(`${r.method} ${r.path}`, r.answer);
  return answers;
}

const ERROR_TEXT: Record<number, string> = {
  400: "validation_failed (issues), unknown_talents, designation_required",
  401: "unauthenticated / invalid_token / invalid_credentials",
  403: "organization_not_approved, forbidden, insufficient_scope, not_a_member, csrf_rejected",
  404: "not_found (another organization's ids look the same)",
  409:
    "conflict, selection_conflict, invalid_transition, expertise_revision_conflict, content_unacknowledged, submission_conflict, " +
    "last_owner, required_by_policy, not_allowed_by_policy",
  410: "invitation_expired",
  413: "payload_too_large (the request body over BODY_LIMIT)",
  429: "rate_limited (Retry-After)",
};

function implied(access: Access): number[] {
  if (access === "public") return [];
  if (access.startsWith("key:") || access.startsWith("admin+key:")) return [401, 403, 404];
  if (access === "session") return [401];
  return [401, 403];
}

/**
 * A route's success content, from its declared answer: the JSON schema, another media type, or none
 * for a redirect. A route without a declared answer gets none (the shapes test fails on it).
 */
function success(op: Operation, answers: Map<string, Schema | OtherAnswer>): Record<string, unknown> {
  if ((op.ok ?? 200) >= 300) return {};
  const answer = answers.get(`${op.method} ${op.path}`);
  if (!answer) return {};
  if (typeof answer.media === "string") return { content: { [answer.media]: {} } };
  return { content: { "application/json": { schema: answer } } };
}

/** The OpenAPI 3.1 document for a base URL, of the key routes `keyRoutes` and the routes described by `routes`. */
export function openApiDocument(baseUrl: string, version: string, keyRoutes: Keys, routes: Routes): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const answers = answersOf(keyRoutes, routes);
  for (const op of openApiOperations(keyRoutes, routes)) {
    const pathParams = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: str() }));
    const security =
      op.access === "public"
        ? []
        : op.access.startsWith("key:")
          ? [{ projectKey: [] }, { oauth: [op.access.slice(4)] }]
          : op.access.startsWith("admin+key:")
            ? [{ session: [] }, { projectKey: [] }] // a project key with that scope (not an OAuth scope)
            : [{ session: [] }];
    const statuses = [...new Set([...implied(op.access), ...(op.errors ?? [])])].sort();
    (paths[op.path] ??= {})[op.method.toLowerCase()] = {
      summary: op.summary,
      tags: [op.path.split("/")[1] === "api" ? "key API" : "web"],
      "x-access": op.access,
      security,
      parameters: [
        ...pathParams,
        ...(op.query ?? []).map((q) => ({
          name: q.name,
          in: "query",
          required: q.required ?? false,
          schema: q.schema,
          ...(q.description ? { description: q.description } : {}),
        })),
      ],
      ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: op.body } } } } : {}),
      responses: {
        [String(op.ok ?? 200)]: { description: "OK", ...success(op, answers) },
        ...Object.fromEntries(
          statuses.map((s) => [
            String(s),
            { description: ERROR_TEXT[s] ?? "error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
          ]),
        ),
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "talentd",
      version,
      description: "Talents for coding agents: the project-key API and the web endpoints. Prose: docs/api.md.",
    },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        projectKey: { type: "http", scheme: "bearer", description: "A project API key (svc_pk_…)" },
        oauth: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl: `${baseUrl}/oauth/authorize`,
              tokenUrl: `${baseUrl}/oauth/token`,
              scopes: Object.fromEntries(OAUTH_SCOPES.map((s) => [s, s])),
            },
          },
        },
        session: {
          type: "apiKey",
          in: "cookie",
          name: sessionCookieName({ baseUrl }),
          description: "A web session; non-GET requests must come from this site (Origin)",
        },
      },
      schemas: {
        Error: obj({ error: str(), message: str(), issues: arr(obj({ path: str(), message: str() })) }, ["error", "message"]),
      },
    },
    paths,
  };
}

/** `GET /openapi.json`: the document is written once, when the app is built. */
export function openApiRoutes(baseUrl: string, version: string, keyRoutes: Keys, routes: Routes) {
  const text = JSON.stringify(openApiDocument(baseUrl, version, keyRoutes, routes));
  return new Elysia({ name: "openapi" }).get(
    "/openapi.json",
    () => new Response(text, { headers: { "content-type": "application/json; charset=utf-8", "access-control-allow-origin": "*" } }),
  );
}
