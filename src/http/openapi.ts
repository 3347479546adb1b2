/**
 * The OpenAPI 3.1 document of the key API (`/api/*`) and the web endpoints (`/web/*`), served
 * at `/openapi.json`. Written as a table (one row per route: what it does, who may call it,
 * its body and query) because most routes read their input by hand (http/query.ts) rather
 * than through schemas a generator could see; the key routes' rows and answers are read from
 * their descriptors (http/keyRoutes.ts). A test keeps the table and the registered
 * routes equal in both directions (test/http/openapi.test.ts), so a new route cannot go
 * undocumented. docs/api.md is the prose beside it.
 */
import { Elysia } from "elysia";
import { OAUTH_SCOPES } from "../db/schema";
import { ANSWERS, type OtherAnswer } from "./openapiAnswers";
import { sessionCookieName } from "./cookies";
import { routeKey } from "./keyRoute";
import { KEY_ROUTE_LIST } from "./keyRoutes";
import { HOOK_RULES_WEB_ANSWERS } from "./keyRouteHookRules";
import { EVALS_WEB_ANSWERS } from "./keyRouteEvals";
import { AUTH_OPERATIONS, ORG_OPERATIONS } from "./openapiOperations";
import { PROJECT_OPERATIONS } from "./openapiProjectOps";
import { ACCOUNT_OPERATIONS } from "./openapiAccount";
import { arr, obj, str, type Access, type Operation, type Schema } from "./schema";

export type { Access, Operation };

/** The key routes' rows, from their descriptors (`:id` → `{id}`). */
const KEY_OPERATIONS: Operation[] = KEY_ROUTE_LIST.map((r) => ({
  method: r.method,
  path: r.path.replace(/:([A-Za-z]+)/g, "{$1}"),
  summary: r.summary,
  access: `key:${r.scope}`,
  ...(r.body ? { body: r.body } : {}),
  ...(r.query ? { query: r.query } : {}),
  ...(r.ok ? { ok: r.ok } : {}),
  ...(r.errors ? { errors: r.errors } : {}),
}));

/** Every documented route. */
export const OPERATIONS: Operation[] = [
  ...AUTH_OPERATIONS,
  ...KEY_OPERATIONS,
  ...ORG_OPERATIONS,
  ...PROJECT_OPERATIONS,
  ...ACCOUNT_OPERATIONS,
];

/** The declared answers: the key routes' from their descriptors, the others' from openapiAnswers.ts. */
const ALL_ANSWERS: Record<string, Schema | OtherAnswer> = {
  ...ANSWERS,
  ...HOOK_RULES_WEB_ANSWERS,
  ...EVALS_WEB_ANSWERS,
  ...Object.fromEntries(KEY_ROUTE_LIST.map((r) => [routeKey(r).replace(/:([A-Za-z]+)/g, "{$1}"), r.answer])),
};

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
 * A route's success content, from its declared answer (openapiAnswers.ts): the JSON schema, another
 * media type, or none for a redirect. A route without a declared answer gets none (the shapes test fails on it).
 */
function success(op: Operation): Record<string, unknown> {
  if ((op.ok ?? 200) >= 300) return {};
  const answer = ALL_ANSWERS[`${op.method} ${op.path}`];
  if (!answer) return {};
  if (typeof answer.media === "string") return { content: { [answer.media]: {} } };
  return { content: { "application/json": { schema: answer } } };
}

/** The OpenAPI 3.1 document for a base URL. */
export function openApiDocument(baseUrl: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
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
        [String(op.ok ?? 200)]: { description: "OK", ...success(op) },
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

/** `GET /openapi.json`. */
export function openApiRoutes(baseUrl: string, version: string) {
  const text = JSON.stringify(openApiDocument(baseUrl, version));
  return new Elysia({ name: "openapi" }).get(
    "/openapi.json",
    () => new Response(text, { headers: { "content-type": "application/json; charset=utf-8", "access-control-allow-origin": "*" } }),
  );
}
