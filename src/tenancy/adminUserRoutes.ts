/**
 * `PATCH /web/admin/users/:id` (disable, enable, promote, demote) and `DELETE /web/admin/users/:id`
 * (remove): platform administrators managing accounts (adminUsers.ts holds the rules).
 */
import { Elysia, t } from "elysia";
import type { CoreDeps } from "../deps";
import type { Guards } from "../auth/guards";
import { clientMeta } from "../http/client";
import { requireConfirmation } from "../http/methodOverride";
import { validationFailed } from "../http/errors";
import { confirmations } from "../ui/confirmations";
import { changeUser, listAdminUsers, removeUser, type AdminActor, type UserChange } from "./adminUsers";
import { routeGuard, routePattern } from "../http/route";
import { TENANCY } from "./describe";

const actorOf = (auth: { user: { id: string; email: string } }, request: Request): AdminActor => ({
  id: auth.user.id,
  email: auth.user.email,
  ...clientMeta(request),
});

/** A form sends text: "true"/"false" for `disabled`; JSON sends booleans. */
function changeOf(body: { disabled?: boolean | string; role?: "user" | "admin" }): UserChange {
  const disabled = body.disabled === undefined ? undefined : body.disabled === true || body.disabled === "true";
  if (disabled === undefined && body.role === undefined) {
    throw validationFailed([{ path: "disabled", message: "send disabled (true or false) or role (user or admin)" }]);
  }
  return { disabled, role: body.role };
}

/** The question asked before a change (a form without JavaScript), by the user's e-mail. */
async function confirmationOf(deps: CoreDeps, id: string, change: UserChange | null) {
  const email = (await listAdminUsers(deps.database)).find((u) => u.id === id)?.email ?? "this user";
  if (change === null) return confirmations.removeUser(email);
  if (change.disabled === true) return confirmations.disableUser(email);
  return change.role === "admin" ? confirmations.promoteUser(email) : confirmations.demoteUser(email);
}

/** The routes (platform administrators only; anyone else 403). */
export function adminUserRoutes(deps: CoreDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .patch(
      routePattern(TENANCY.adminUpdateUser),
      async ({ auth, params, body, request }) => {
        const change = changeOf(body);
        // enabling gives back nothing dangerous: only the other changes are asked
        if (change.disabled !== false || change.role !== undefined) {
          await requireConfirmation(request, body, () => confirmationOf(deps, params.id, change));
        }
        const user = await deps.database.write((tx) => changeUser(tx, params.id, change, actorOf(auth, request)));
        return { user };
      },
      {
        ...routeGuard(TENANCY.adminUpdateUser),
        body: t.Object({
          disabled: t.Optional(t.Union([t.Boolean(), t.Literal("true"), t.Literal("false")], { error: "disabled must be true or false" })),
          role: t.Optional(t.Union([t.Literal("user"), t.Literal("admin")], { error: "role must be user or admin" })),
          confirm: t.Optional(t.String({ maxLength: 10 })),
          return: t.Optional(t.String({ maxLength: 500 })),
        }),
      },
    )
    .delete(
      routePattern(TENANCY.adminDeleteUser),
      async ({ auth, params, body, request }) => {
        await requireConfirmation(request, body, () => confirmationOf(deps, params.id, null));
        return deps.database.write((tx) => removeUser(tx, params.id, actorOf(auth, request)));
      },
      routeGuard(TENANCY.adminDeleteUser),
    );
}
