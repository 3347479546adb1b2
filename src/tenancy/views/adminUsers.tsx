/** @jsxImportSource hono/jsx */
/**
 * The platform administrators' table of users (`/admin/users`, and the fragment of
 * `PATCH|DELETE /web/admin/users/:id`): each account with its role and state, and buttons to
 * disable or enable it, promote or demote it, and remove it. Each but enable asks first
 * (`hx-confirm` with JavaScript, the confirmation page without). The last enabled platform
 * administrator and the last owner of an organization are not hidden from these buttons: the
 * server refuses (409) and the page says why.
 */
import type { AdminUserView } from "../adminUsers";
import { confirmations } from "../../ui/confirmations";
import { Notice } from "../../ui/parts";
import { DataTable } from "../../ui/layout";

/** One button of a row: a PATCH (or DELETE) form with its fields, asked first (the confirmation `ask`) unless none is named. */
function UserAction(props: {
  u: AdminUserView;
  method: "PATCH" | "DELETE";
  fields: Record<string, string>;
  label: string;
  ask?: "disableUser" | "promoteUser" | "demoteUser" | "removeUser";
  danger?: boolean;
}) {
  const target = `/web/admin/users/${props.u.id}`;
  const htmx = props.method === "PATCH" ? { "hx-patch": target } : { "hx-delete": target };
  return (
    <form
      class="inline"
      method="post"
      action={`${target}?_method=${props.method}`}
      {...htmx}
      hx-target="#admin-users"
      hx-swap="outerHTML"
      hx-confirm={props.ask ? confirmations[props.ask](props.u.email).question : undefined}
    >
      {Object.entries(props.fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={`${props.danger ? "danger" : "secondary"} small`}>
        {props.label}
        <span class="visually-hidden"> {props.u.email}</span>
      </button>
    </form>
  );
}

/** Every user with their role, state and the changes a platform administrator can make. */
export function AdminUsers(props: { users: AdminUserView[]; viewerId: string; notice?: string }) {
  return (
    <section id="admin-users" aria-labelledby="users-h">
      <h2 id="users-h">Users ({props.users.length})</h2>
      <Notice text={props.notice} />
      <DataTable caption="Users, newest first" columns={["E-mail", "Name", "Role", "State", "Created (UTC)", "Changes"]}>
        {props.users.map((u) => (
          <tr data-user={u.email}>
            <td>
              {u.email}
              {u.id === props.viewerId ? <span class="tag">you</span> : null}
            </td>
            <td>{u.name || "—"}</td>
            <td>{u.role === "admin" ? <strong>platform admin</strong> : "user"}</td>
            <td>{u.disabled ? <span class="state suspended">disabled</span> : <span class="state approved">enabled</span>}</td>
            <td class="small">{u.createdAt.slice(0, 19).replace("T", " ")}</td>
            <td>
              <div class="row-actions">
                {u.disabled ? (
                  <UserAction u={u} method="PATCH" fields={{ disabled: "false" }} label="Enable" />
                ) : (
                  <UserAction u={u} method="PATCH" fields={{ disabled: "true" }} label="Disable" ask="disableUser" />
                )}
                {u.role === "admin" ? (
                  <UserAction u={u} method="PATCH" fields={{ role: "user" }} label="Demote" ask="demoteUser" />
                ) : (
                  <UserAction u={u} method="PATCH" fields={{ role: "admin" }} label="Promote" ask="promoteUser" />
                )}
                <UserAction u={u} method="DELETE" fields={{}} label="Remove" ask="removeUser" danger />
              </div>
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
