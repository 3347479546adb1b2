/**
 * What an organization's talent policy forbids a project's selection (docs/design.md
 * "Organization policy"): a required talent is never disabled nor uninstalled (409
 * required_by_policy), and with an allow-list a project installs only the allowed and the
 * required talents (409 not_allowed_by_policy). Both name the policy and who set it. Read inside
 * the write transaction that changes the selection, so a policy saved meanwhile is seen.
 */
import { eq } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { orgPolicies, projects, users } from "../db/schema";
import { AppError } from "../http/errors";
import { keptGet } from "../db/versionMemo";

/** An organization's policy as the rules read it. */
export interface PolicyRules {
  organizationId: string;
  required: readonly string[];
  /** null: no allow-list. */
  allowed: readonly string[] | null;
  /** The name (or e-mail) of who saved it last; null when that account is gone. */
  setBy: string | null;
  updatedAt: number;
}

/** Where a policy is read and changed, named in every refusal. */
export const POLICY_PAGE = "/org/policy";

type Handle = Tx | Database["db"];

/** The policy of a project's organization, or null when it has none. */
export async function policyOfProject(tx: Handle, projectId: string): Promise<PolicyRules | null> {
  const row = (
    await tx
      .select({
        organizationId: orgPolicies.organizationId,
        required: orgPolicies.requiredTalents,
        allowed: orgPolicies.allowedTalents,
        updatedAt: orgPolicies.updatedAt,
        name: users.name,
        email: users.email,
      })
      .from(projects)
      .innerJoin(orgPolicies, eq(orgPolicies.organizationId, projects.organizationId))
      .leftJoin(users, eq(users.id, orgPolicies.updatedBy))
      .where(eq(projects.id, projectId))
      .limit(1)
  )[0];
  if (!row) return null;
  return {
    organizationId: row.organizationId,
    required: row.required,
    allowed: row.allowed ?? null,
    setBy: row.name || row.email || null,
    updatedAt: row.updatedAt,
  };
}

const PROJECT_POLICY_SQL = `SELECT op.organization_id AS organizationId, op.required_talents AS required, op.allowed_talents AS allowed,
  op.updated_at AS updatedAt, u.name AS name, u.email AS email
FROM projects p JOIN org_policies op ON op.organization_id = p.organization_id LEFT JOIN users u ON u.id = op.updated_by
WHERE p.id = ?`;

/**
 * The policy of a project's organization for readers (doctor, the project page): the row kept
 * for the configuration epoch (a policy change bumps it), so a page view costs no query.
 */
export async function readProjectPolicy(database: Database, projectId: string): Promise<PolicyRules | null> {
  const row = await keptGet<{
    organizationId: string;
    required: string;
    allowed: string | null;
    updatedAt: number;
    name: string;
    email: string;
  }>(database, PROJECT_POLICY_SQL, [projectId]);
  if (!row) return null;
  return {
    organizationId: row.organizationId,
    required: JSON.parse(row.required) as string[],
    allowed: row.allowed === null ? null : (JSON.parse(row.allowed) as string[] | null),
    setBy: row.name || row.email || null,
    updatedAt: row.updatedAt,
  };
}

/** The policy's one-line name in refusals: "the organization's talent policy (set by Ada, /org/policy)". */
export function policyName(p: PolicyRules): string {
  return `the organization's talent policy (${p.setBy ? `set by ${p.setBy}, ` : ""}${POLICY_PAGE})`;
}

/** The details every policy refusal carries. */
function policyDetail(p: PolicyRules) {
  return { policy: { organizationId: p.organizationId, setBy: p.setBy, page: POLICY_PAGE } };
}

/** 409 required_by_policy when any of `ids` is required: disabling or uninstalling it is refused, nothing written. */
export async function refuseRequired(tx: Tx, projectId: string, ids: readonly string[], what: "disabled" | "uninstalled") {
  const policy = await policyOfProject(tx, projectId);
  if (!policy) return;
  const required = new Set(policy.required);
  const hit = [...new Set(ids)].filter((id) => required.has(id));
  if (hit.length === 0) return;
  throw new AppError(
    "required_by_policy",
    `${hit.join(", ")} ${hit.length > 1 ? "are" : "is"} required by ${policyName(policy)}: ` +
      `${hit.length > 1 ? "they" : "it"} cannot be ${what}. Nothing was changed.`,
    { ids: hit, ...policyDetail(policy) },
  );
}

/** 409 not_allowed_by_policy when an allow-list is set and `ids` (new to the project) hold one outside it and the required ones. */
export async function refuseNotAllowed(tx: Tx, projectId: string, ids: readonly string[]) {
  if (ids.length === 0) return;
  const policy = await policyOfProject(tx, projectId);
  if (!policy || policy.allowed === null) return;
  const allowed = new Set([...policy.allowed, ...policy.required]);
  const refused = [...new Set(ids)].filter((id) => !allowed.has(id));
  if (refused.length === 0) return;
  throw new AppError(
    "not_allowed_by_policy",
    `${refused.join(", ")} ${refused.length > 1 ? "are" : "is"} not allowed by ${policyName(policy)}. Nothing was installed.`,
    { ids: refused, ...policyDetail(policy) },
  );
}
