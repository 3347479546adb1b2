/**
 * JSON Schema builders of the OpenAPI document (http/openapi.ts) and the routes' descriptors
 * (http/keyRoute.ts, http/route.ts; each beside its domain's handlers): one spelling of "a string",
 * "an object of these fields", shared so each table stays a table.
 */
export type Schema = Record<string, unknown>;

/** A query parameter of an operation. */
export interface QueryParam {
  name: string;
  schema: Schema;
  description?: string;
  required?: boolean;
}

/**
 * Who may call a route: nobody in particular, a session, a member/admin of an approved active
 * organization, a platform admin, a key with a scope, or an admin's session or a key with a scope.
 */
export type Access = "public" | "session" | "member" | "admin" | "platform" | `key:${string}` | `admin+key:${string}`;

/** One row of the OpenAPI document's table (http/openapi.ts). */
export interface Operation {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI form: `/web/projects/{id}`. */
  path: string;
  summary: string;
  access: Access;
  body?: Schema;
  query?: QueryParam[];
  /** The success status (default 200). */
  ok?: number;
  /** Error statuses beyond the ones the access level implies. */
  errors?: number[];
}

/** A string schema, with extra keywords. */
export const str = (extra: Schema = {}): Schema => ({ type: "string", ...extra });
/** An integer between two bounds. */
export const int = (min: number, max: number): Schema => ({ type: "integer", minimum: min, maximum: max });
/** An object of declared fields, some required. */
export const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: "object",
  properties,
  ...(required.length ? { required } : {}),
});
/** An array of one item schema. */
export const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: "array", items, ...extra });
/** A non-empty list of ids. */
export const ids: Schema = arr(str(), { minItems: 1 });
/** The limit and cursor parameters of a paged listing. */
export const page = (max: number): QueryParam[] => [
  { name: "limit", schema: int(1, max) },
  { name: "cursor", schema: str(), description: "nextCursor of the previous page" },
];

// ---- answers (the routes' descriptors, key routes' and the domains'): short names, the tables are long
export const S: Schema = { type: "string" };
export const I: Schema = { type: "integer" };
export const N: Schema = { type: "number" };
export const B: Schema = { type: "boolean" };
/** An answer object of declared fields. */
export const o = (properties: Record<string, Schema>): Schema => ({ type: "object", properties });
/** An answer array. */
export const a = (items: Schema): Schema => ({ type: "array", items });
/** A nullable answer field. */
export const n = (s: Schema): Schema => ({ ...s, type: [s.type as string, "null"] });
/** An object whose keys are data (counts by role, files by path). */
export const map = (values: Schema): Schema => ({ type: "object", additionalProperties: values });
/** A free-form object (a security event's detail, a trace event's detail). */
export const open: Schema = { type: "object", additionalProperties: true };

// shapes shared by the key API's answers and the web's
export const Triggers = o({ files: a(S), keywords: a(S) });
export const Verdicts = o({ pass: I, fail: I, not_applicable: I });
export const SelectionChange = o({ installed: a(S), alreadyInstalled: a(S) });
export const Pair = o({ a: S, b: S });
export const TalentFile = o({ uri: S, digest: S, content: S, pinned: B, section: S, preview: B, cut: B });
export const CatalogItem = {
  id: S,
  kind: S,
  title: S,
  summary: S,
  version: S,
  roles: a(S),
  languages: a(S),
  tokens: I,
  requires: a(S),
  conflicts: a(S),
};
