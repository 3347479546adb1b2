/**
 * The audit playbook (`svc_validate`; docs/architecture.md "The agent loop"): exactly what a resolution served, as
 * obligations per talent, with a procedure an agent can follow; with `talent`, the targeted
 * detail (full rules with their check, and the conformance tests). When the organization's
 * policy requires talents, `requiredNotDesignated` names those the resolution did not serve:
 * required talents are installed everywhere but served only when designated.
 */
import { iso } from "../lib/time";
import type { Database } from "../db/client";
import { notFound } from "../http/errors";
import { detailDigestOf, servedDetail, servedDetect } from "./obligations";
import { auditProcedure, type Voice } from "../http/wording";
import { attestationOf, loadResolution, pinnedDefinition, pinnedTriggerFiles } from "./pinned";
import { readProjectPolicy } from "../selection/policyRules";

/**
 * The playbook of a resolution of the project; 404 for another project's or an unknown talent.
 * `detectors`: every obligation's rules carry their `detect` patterns, pinned like the rest
 * (what `talentd check` runs locally). `voice`: who reads the procedure (http/wording.ts).
 */
export async function playbook(
  database: Database,
  projectId: string,
  resolutionId: string,
  talent: string | undefined,
  opts: { detectors?: boolean; voice: Voice },
) {
  const res = await loadResolution(database, projectId, resolutionId);
  const obligations = [];
  let detail: Record<string, unknown> | undefined;
  const detailDigests: string[] = [];
  for (const item of res.items) {
    const def = await pinnedDefinition(database, item);
    const wantsDetect = opts.detectors || (talent !== undefined && item.talentId === talent);
    const triggerFiles = wantsDetect && def.rules.some((r) => r.detect) ? await pinnedTriggerFiles(database, item, def) : [];
    obligations.push({
      id: item.talentId,
      kind: item.kind,
      version: item.version,
      digest: item.digest,
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
    if (talent !== undefined && item.talentId === talent)
      detail = { id: item.talentId, kind: item.kind, version: item.version, digest: item.digest, ...servedDetail(def, triggerFiles) };
    // a detail answers every item's detail digest, which the signed manifest claims (obligations.ts), when the manifest has that claim
    if (talent !== undefined && res.claims?.includes('"details":')) {
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
  };
}
