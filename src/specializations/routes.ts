/**
 * `/web/specializations` (docs/api.md "Specializations"): the built-in specializations and the active organization's
 * own. Members read; owners and admins create, edit, duplicate and delete (built-ins are
 * read-only: 403, duplicate them instead). Applying one to a project is
 * `POST /web/projects/:id/apply-specialization` (projects/routes/selection.ts).
 */
import { userActor } from "../audit/record";
import { Elysia } from "elysia";
import type { CatalogDeps } from "../catalog/state";
import type { Guards } from "../auth/guards";
import {
  createSpecialization,
  deleteSpecialization,
  duplicateSpecialization,
  getSpecialization,
  listSpecializations,
  readSpecialization,
  updateSpecialization,
  type SpecializationInput,
} from "./service";
import { SPECIALIZATION_LIMITS } from "../catalog/specializations";
import { validationFailed } from "../http/errors";
import { routeGuard, routePattern } from "../http/route";
import { SPECIALIZATION } from "./describe";

export function specializationRoutes(deps: CatalogDeps, guards: Guards) {
  const catalog = () => deps.state.catalog!;
  return new Elysia()
    .use(guards)
    .get(
      routePattern(SPECIALIZATION.list),
      async ({ org }) => ({ specializations: await listSpecializations(deps.database, catalog(), org.id) }),
      routeGuard(SPECIALIZATION.list),
    )
    .post(
      routePattern(SPECIALIZATION.create),
      async ({ auth, org, body, set }) => {
        const input = readSpecialization(body, false) as SpecializationInput;
        set.status = 201;
        return { specialization: await createSpecialization(deps.database, catalog(), org.id, userActor(auth.user), input) };
      },
      routeGuard(SPECIALIZATION.create),
    )
    .get(
      routePattern(SPECIALIZATION.one),
      async ({ org, params }) => ({ specialization: await getSpecialization(deps.database, catalog(), org.id, params.id) }),
      routeGuard(SPECIALIZATION.one),
    )
    .patch(
      routePattern(SPECIALIZATION.update),
      async ({ auth, org, params, body }) => ({
        specialization: await updateSpecialization(
          deps.database,
          catalog(),
          org.id,
          params.id,
          readSpecialization(body, true),
          userActor(auth.user),
        ),
      }),
      routeGuard(SPECIALIZATION.update),
    )
    .delete(
      routePattern(SPECIALIZATION.remove),
      async ({ auth, org, params }) => {
        await deleteSpecialization(deps.database, catalog(), org.id, params.id, userActor(auth.user));
        return { deleted: params.id };
      },
      routeGuard(SPECIALIZATION.remove),
    )
    .post(
      routePattern(SPECIALIZATION.duplicate),
      async ({ auth, org, params, body, set }) => {
        const name = (body as Record<string, unknown> | null)?.name;
        if (name !== undefined && (typeof name !== "string" || name.trim() === "" || name.length > SPECIALIZATION_LIMITS.name)) {
          throw validationFailed([{ path: "name", message: `must be text of 1 to ${SPECIALIZATION_LIMITS.name} characters` }]);
        }
        set.status = 201;
        return {
          specialization: await duplicateSpecialization(deps.database, catalog(), org.id, params.id, userActor(auth.user), name?.trim()),
        };
      },
      routeGuard(SPECIALIZATION.duplicate),
    );
}
