/**
 * The audit playbook (`svc_validate`; docs/design.md "A resolution is frozen when it is prepared"): exactly what a resolution served, as
 * obligations per talent, with a procedure an agent can follow; with `talent`, the targeted
 * detail (full rules with their check, and the conformance tests). When the organization's
 * policy requires talents, `requiredNotDesignated` names those the resolution did not serve:
 * required talents are installed everywhere but served only when designated.
 */
import { iso } from "../lib/time";
import type { Database } from "../db/client";
import { notFound } from "../http/errors";
import { detailDigestOf, servedDetail, servedDetect } from "./obligations";
import { afterDetail, auditProcedure, type Voice } from "./wording";
import { DIGESTS_META } from "../http/keyRoute";
import { attestationOf, loadResolution, pinnedDefinition, pinnedTriggerFiles } from "./pinned";
import { readProjectPolicy } from "../selection/policyRules";
import { readHookChoices, readProjectHookLocks } from "../policy/hookRules";

/**
 * The playbook of a resolution of the project; 404 for another project's or an unknown talent.
 * `detectors`: every obligation's rules carry their `detect` patterns, pinned like the rest
 * (what `talentd check` runs locally). `voice`: who reads the procedure (wording.ts).
 * An agent over MCP (`voice.channel`) is not shown the digests: they are handed to `note`, for
 * the tool result's `_meta` (http/keyRoute.ts DIGESTS_META).
 */
export async function playbook(
  database: Database,
  projectId: string,
  resolutionId: string,
  talent: string | undefined,
  opts: { detectors?: boolean; voice: Voice; note?: (meta: Record<string, unknown>) => void },
) {
  const res = await loadResolution(database, projectId, resolutionId);
  const forModel = opts.voice.channel === "mcp";
  const obligations = [];
  let detail: Record<string, unknown> | undefined;
  const detailDigests: string[] = [];
  for (const item of res.items) {
    const def = await pinnedDefinition(database, item);
    // the detail's detectors are the key API's (the hook's view); an agent over MCP never gets them
    const wantsDetect = opts.detectors || (talent !== undefined && item.talentId === talent && !forModel);
    const triggerFiles = wantsDetect && def.rules.some((r) => r.detect) ? await pinnedTriggerFiles(database, item, def) : [];
    obligations.push({
      id: item.talentId,
      kind: item.kind,
      version: item.version,
      ...(forModel ? {} : { digest: item.digest }),
      title: def.title,
      verdictRequired: item.kind === "expertise",
      blocking: def.rules.filter((r) => r.severity === "blocking").length,
      rules: def.rules.map((r) => ({
        id: r.id,
        severity: r.severity,
        title: r.title,
        ...(opts.detectors ? servedDetect(r, triggerFiles) : {}),
      })),
    });
    if (talent !== undefined && item.talentId === talent) {
      const served = servedDetail(def, triggerFiles);
      // an agent over MCP gets no detectors (the hook's view, over the key API)
      const rules = forModel ? def.rules.map((r) => ({ id: r.id, severity: r.severity, title: r.title, check: r.check })) : served.rules;
      detail = { id: item.talentId, kind: item.kind, version: item.version, digest: item.digest, ...served, rules };
    }
    // a detail answers every item's detail digest, which the signed manifest claims (obligations.ts), when the manifest has that claim
    if (talent !== undefined && !forModel && res.claims?.includes('"details":')) {
      const files = def.rules.some((r) => r.detect)
        ? triggerFiles.length
          ? triggerFiles
          : await pinnedTriggerFiles(database, item, def)
        : [];
      detailDigests.push(detailDigestOf(item.definitionDigest, def, files));
    }
  }
  if (talent !== undefined && !detail) throw notFound(`${talent} was not served by resolution ${resolutionId}.`);
  const hasExpertises = res.items.some((i) => i.kind === "expertise");
  if (forModel) {
    const named = detail ? res.items.filter((i) => i.talentId === talent) : res.items;
    opts.note?.({ [DIGESTS_META]: Object.fromEntries(named.map((i) => [i.talentId, i.digest])) });
  }
  if (detail && forModel) return mcpDetail(resolutionId, detail, afterDetail(opts.voice, resolutionId, hasExpertises));
  const attestation = attestationOf(res);
  // the talents the organization's policy requires that this resolution did not serve (the task did not designate them)
  const required = (await readProjectPolicy(database, projectId))?.required ?? [];
  const served = new Set(res.items.map((i) => i.talentId));
  const requiredNotDesignated = required.filter((id) => !served.has(id));
  return {
    resolutionId,
    createdAt: iso(res.createdAt),
    procedure: auditProcedure(opts.voice, resolutionId, hasExpertises),
    obligations,
    verdictsRequired: res.items.filter((i) => i.kind === "expertise").map((i) => i.talentId),
    ...(required.length > 0 ? { requiredNotDesignated } : {}),
    ...(attestation ? { attestation } : {}),
    ...(detail ? { detail } : {}),
    ...(detail && detailDigests.length > 0 ? { detailDigests } : {}),
    ...(opts.detectors ? await hookRulesOf(database, projectId, obligations) : {}),
  };
}

/**
 * The project's hook rules for the served detectors (docs/design.md "What blocks a commit"): per rule, the
 * organization's lock, else the project's choice, read when the playbook is, beside the pinned detectors the
 * signature proves. `talentd check` applies them (client/hookRules.ts): block, advise, or off (the rule's detectors not run).
 */
async function hookRulesOf(database: Database, projectId: string, obligations: { rules: { id: string; detect?: unknown }[] }[]) {
  const [choices, locks] = await Promise.all([readHookChoices(database, projectId), readProjectHookLocks(database, projectId)]);
  if (choices.size === 0 && Object.keys(locks).length === 0) return {};
  const chosen = obligations.flatMap((o) =>
    o.rules.flatMap((r) => {
      const v = Object.hasOwn(locks, r.id) ? locks[r.id] : choices.get(r.id);
      return r.detect && v ? [[r.id, v] as const] : [];
    }),
  );
  const locked = chosen.filter(([id]) => Object.hasOwn(locks, id)).map(([id]) => id);
  return chosen.length > 0 ? { hookRules: Object.fromEntries(chosen), ...(locked.length > 0 ? { hookRulesLocked: locked } : {}) } : {};
}

/**
 * One talent's detail as an agent over MCP gets it: its rules with their checks and its tests, and
 * what to do next — not the playbook again (the agent read it just before), not the version the
 * playbook listed, no digest (in `_meta`), no detectors (the hook's), no attestation.
 */
function mcpDetail(resolutionId: string, detail: Record<string, unknown>, next: string) {
  const { id, kind, title, summary, rules, tests } = detail;
  return { resolutionId, detail: { id, kind, title, summary, rules, tests }, next };
}
