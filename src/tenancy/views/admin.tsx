/** @jsxImportSource hono/jsx */
/**
 * The platform administrators' table of organizations (`/admin`, and the fragment of
 * `POST /web/admin/organizations/:id/:operation`): each organization with its status and the
 * decisions the approval state machine allows from it (service.ts APPROVAL_MOVES).
 */
import type { OrgStatus } from "../../db/schema";
import { APPROVAL_MOVES, APPROVAL_OPERATIONS, type ApprovalOperation } from "../service";
import { Notice, when } from "../../ui/parts";
import { DataTable } from "../../ui/layout";

export interface AdminOrgView {
  id: string;
  slug: string;
  name: string;
  status: OrgStatus;
  members: number;
  createdAt: number;
  statusChangedAt: number | null;
  /** Who asked for it (its creator), null once their account is gone. */
  requestedBy?: { id: string; email: string; name: string } | null;
}

/** Who asked for an organization, and when: "Dana Lead (dana@acme.test)", the e-mail alone without a name. */
function AskedBy(props: { o: AdminOrgView }) {
  const by = props.o.requestedBy;
  return (
    <>
      {by ? (
        <span title={by.id}>{by.name ? `${by.name} (${by.email})` : by.email}</span>
      ) : (
        <span class="muted">an account since removed</span>
      )}
      <div class="muted small">on {when(props.o.createdAt)} UTC</div>
    </>
  );
}

const OPERATION_LABEL: Record<ApprovalOperation, string> = {
  approve: "Approve",
  reject: "Reject",
  suspend: "Suspend",
  reactivate: "Reactivate",
};
/** Operations that stop an organization: they ask for its slug typed first. */
const STOPPING: readonly ApprovalOperation[] = ["reject", "suspend"];

/** The decisions a platform administrator may take on an organization in `status`. */
export const allowedOperations = (status: OrgStatus): ApprovalOperation[] => APPROVAL_OPERATIONS.filter((op) => APPROVAL_MOVES[op][status]);

/** A reject or suspend posted without JavaScript whose typed slug was not the organization's: what was typed, and why. */
export interface RefusedStop {
  orgId: string;
  operation: ApprovalOperation;
  typed: string;
  error: string;
}

/**
 * Every organization with its status and the decisions it allows. Approve and reactivate are
 * one click; reject and suspend stop an organization's projects, so they open a form that
 * asks for its slug typed (the browser enforces it with `pattern`, JavaScript or not).
 */
export function AdminOrganizations(props: {
  organizations: AdminOrgView[];
  status: OrgStatus | null;
  notice?: string;
  refused?: RefusedStop;
}) {
  const shown = props.status ? props.organizations.filter((o) => o.status === props.status) : props.organizations;
  const pending = props.organizations.filter((o) => o.status === "pending").length;
  return (
    <section id="admin-orgs" aria-labelledby="admin-orgs-h">
      <h2 id="admin-orgs-h">Organizations</h2>
      <Notice text={props.notice} />
      <nav class="filters-row" aria-label="Filter by status">
        <a href="/admin" aria-current={props.status === null ? "page" : undefined}>
          All ({props.organizations.length})
        </a>
        {(["pending", "approved", "rejected", "suspended"] as const).map((s) => (
          <a href={`/admin?status=${s}`} aria-current={props.status === s ? "page" : undefined}>
            {s} ({props.organizations.filter((o) => o.status === s).length})
          </a>
        ))}
      </nav>
      {pending > 0 ? <p>{pending === 1 ? "One organization waits" : `${pending} organizations wait`} for a decision.</p> : null}
      {shown.length === 0 ? (
        <p class="muted">No organization{props.status ? ` is ${props.status}` : " yet"}.</p>
      ) : (
        <DataTable caption="Organizations and their status" columns={["Organization", "Status", "Members", "Asked for by", "Decisions"]}>
          {shown.map((o) => (
            <tr data-org={o.slug}>
              <td>
                {o.name}
                <div class="muted small">
                  <code>{o.slug}</code>
                </div>
              </td>
              <td>
                <span class={`state ${o.status}`}>{o.status}</span>
                {o.statusChangedAt ? <div class="muted small">since {when(o.statusChangedAt)}</div> : null}
              </td>
              <td>{o.members}</td>
              <td class="small break">
                <AskedBy o={o} />
              </td>
              <td>
                <div class="row-actions">
                  {allowedOperations(o.status).map((op) => {
                    const action = `/web/admin/organizations/${o.id}/${op}`;
                    if (!STOPPING.includes(op)) {
                      return (
                        <form method="post" action={action} hx-post={action} hx-target="#admin-orgs" hx-swap="outerHTML">
                          <button type="submit" class="small">
                            {OPERATION_LABEL[op]}
                            <span class="visually-hidden"> {o.name}</span>
                          </button>
                        </form>
                      );
                    }
                    const refused = props.refused?.orgId === o.id && props.refused.operation === op ? props.refused : undefined;
                    return <StopForm o={o} op={op} refused={refused} />;
                  })}
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/** What a reject or a suspend does, above its typed slug. */
const STOP_WORDS: Partial<Record<ApprovalOperation, string>> = {
  reject: "Its members never get to use it.",
  suspend: "Its projects, keys and agents are refused until it is reactivated.",
};

/**
 * The typed-slug form of a reject or suspend: with htmx it sends the `/web` route; without JavaScript it posts to
 * `POST /admin/organizations/:id/:operation` (pages/admin.tsx), which checks the slug and answers a mistyped one
 * with this form open again, what was typed kept and the problem under it.
 */
function StopForm(props: { o: AdminOrgView; op: ApprovalOperation; refused?: RefusedStop }) {
  const { o, op, refused } = props;
  const id = `confirm-${op}-${o.id}`;
  return (
    <details class="confirm" open={refused ? true : undefined}>
      <summary>
        {OPERATION_LABEL[op]}…<span class="visually-hidden"> {o.name}</span>
      </summary>
      <form
        method="post"
        action={`/admin/organizations/${o.id}/${op}`}
        hx-post={`/web/admin/organizations/${o.id}/${op}`}
        hx-target="#admin-orgs"
        hx-swap="outerHTML"
        data-confirm-name={o.slug}
      >
        <label for={id}>
          {STOP_WORDS[op]} Type <strong>{o.slug}</strong> to {op} it
        </label>
        <input
          id={id}
          name="confirm"
          autocomplete="off"
          required
          pattern={o.slug}
          title={`the slug ${o.slug}`}
          value={refused?.typed}
          aria-invalid={refused ? "true" : undefined}
          aria-describedby={refused ? `${id}-error` : undefined}
        />
        {refused ? (
          <p class="field-error" id={`${id}-error`}>
            {refused.error}
          </p>
        ) : null}
        <button type="submit" class="danger small">
          {OPERATION_LABEL[op]} {o.name}
        </button>
      </form>
    </details>
  );
}

const STATUSES: readonly OrgStatus[] = ["pending", "approved", "rejected", "suspended"];

/** The status filter of /admin (`?status=`), null for all. */
export function statusFilter(value: unknown): OrgStatus | null {
  return typeof value === "string" && (STATUSES as readonly string[]).includes(value) ? (value as OrgStatus) : null;
}

/** The status filter a change was made under (the page's query, from the Referer). */
export function refererStatus(request: Request): OrgStatus | null {
  try {
    return statusFilter(new URL(request.headers.get("referer") ?? "").searchParams.get("status"));
  } catch {
    return null;
  }
}
