/**
 * The organization's single sign-on changed, as one audited write each: saved from a body (the JSON
 * route and the page's form without JavaScript alike) or removed, each with its security event and
 * audit entry in the caller's transaction. routes/ssoSettings.ts and pages/sso.tsx call them.
 */
import { clientMeta } from "../http/client";
import { notFound } from "../http/errors";
import { record, userActor } from "../audit/record";
import type { Tx } from "../db/client";
import { recordSecurityEvent } from "./security";
import { deleteSso, loadSso, readSsoSettings, saveSso } from "./sso";
import { keepsEnterpriseGrant, revokeEnterpriseTokens, setEnterpriseGrant } from "./ssoEnterprise";

type Who = { id: string; email: string };
type Meta = ReturnType<typeof clientMeta>;

/**
 * Saves the organization's SSO from a body (JSON or the page's form), with its security event and audit entry;
 * returns what is stored. Also the no-JavaScript post of `/org/sso` (pages/sso.tsx).
 */
export async function saveOrgSso(tx: Tx, organizationId: string, body: unknown, user: Who, meta: Meta) {
  const stored = await loadSso(tx, organizationId);
  const settings = readSsoSettings(body, stored);
  await saveSso(tx, organizationId, settings);
  if (stored?.enterpriseGrant && !keepsEnterpriseGrant(stored, settings)) await setEnterpriseGrant(tx, organizationId, false);
  await record(tx, {
    organizationId,
    actor: userActor(user),
    action: "sso.configured",
    object: { kind: "sso", id: organizationId },
    before: stored ? ssoFacts(stored) : null,
    after: ssoFacts(settings),
  });
  await recordSecurityEvent(tx, {
    kind: "sso.configured",
    userId: user.id,
    email: user.email,
    ...meta,
    detail: { organizationId, type: settings.type, domains: settings.domains, enforce: settings.enforce, created: stored === null },
  });
  return loadSso(tx, organizationId);
}

/** Removes the organization's SSO (404 without one), with its security event and audit entry. */
export async function deleteOrgSso(tx: Tx, organizationId: string, user: Who, meta: Meta): Promise<void> {
  const stored = await loadSso(tx, organizationId);
  if (!stored || !(await deleteSso(tx, organizationId))) throw notFound("This organization has no single sign-on.");
  await revokeEnterpriseTokens(tx, organizationId); // the grant goes with the SSO, and what it issued
  await record(tx, {
    organizationId,
    actor: userActor(user),
    action: "sso.deleted",
    object: { kind: "sso", id: organizationId },
    before: ssoFacts(stored),
  });
  await recordSecurityEvent(tx, { kind: "sso.deleted", userId: user.id, email: user.email, ...meta, detail: { organizationId } });
}

/** What the audit log tells of an SSO configuration: its type, domains and enforcement, never a secret. */
function ssoFacts(s: { type: string; domains: string[]; enforce: boolean }) {
  return { type: s.type, domains: s.domains, enforce: s.enforce };
}
