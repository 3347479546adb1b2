/**
 * The descriptors of the specialization routes (`/web/specializations…`: routes.ts), docs/api.md
 * "Specializations": each route's OpenAPI row and answer (http/route.ts), collected by app.ts.
 */
import type { RouteDescriptor } from "../http/route";
import { a, B, ids, n, o, obj, S, str } from "../http/schema";

const Specialization = o({ id: S, name: S, description: S, talents: a(S), builtIn: B, createdBy: n(S), createdAt: S, updatedAt: S });
/** The answer about one specialization. */
const One = o({ specialization: Specialization });

/** Built-in and custom specializations: members read, owners and admins write. */
export const SPECIALIZATION = {
  list: {
    method: "GET",
    path: "/web/specializations",
    summary: "Built-in and custom specializations",
    access: "member",
    answer: o({ specializations: a(Specialization) }),
  },
  create: {
    method: "POST",
    path: "/web/specializations",
    summary: "Create a custom specialization",
    access: "admin",
    body: obj({ name: str({ maxLength: 100 }), description: str({ maxLength: 500 }), talents: ids }, ["name", "talents"]),
    ok: 201,
    errors: [400],
    answer: One,
  },
  one: {
    method: "GET",
    path: "/web/specializations/{id}",
    summary: "A specialization",
    access: "member",
    errors: [404],
    answer: One,
  },
  update: {
    method: "PATCH",
    path: "/web/specializations/{id}",
    summary: "Edit a custom specialization (built-ins are read-only)",
    access: "admin",
    body: obj({ name: str(), description: str(), talents: ids }),
    errors: [400, 403, 404],
    answer: One,
  },
  remove: {
    method: "DELETE",
    path: "/web/specializations/{id}",
    summary: "Delete a custom specialization",
    access: "admin",
    errors: [403, 404],
    answer: o({ deleted: S }),
  },
  duplicate: {
    method: "POST",
    path: "/web/specializations/{id}/duplicate",
    summary: "Copy any specialization into a custom one",
    access: "admin",
    body: obj({ name: str() }),
    ok: 201,
    errors: [400, 404],
    answer: One,
  },
} satisfies Record<string, RouteDescriptor>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const SPECIALIZATION_ROUTES: RouteDescriptor[] = Object.values(SPECIALIZATION);
