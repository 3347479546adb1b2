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
import { detectorFiles } from "../catalog/detect";
import { detectorSeverity } from "../catalog/measured";
import type { TalentRule } from "../catalog/format";
import { afterDetail, auditProcedure, type Voice } from "../http/wording";
import { DIGESTS_META } from "../http/keyRoute";
import { attestationOf, loadResolution, pinnedDefinition, pinnedTriggerFiles } from "./pinned";
import { readProjectPolicy } from "../selection/policyRules";
import { effectiveChoice, readHookChoices, servedSeverity, type HookChoice } from "../policy/hookRules";

/**
 * A rule's detectors as served: each with the globs it applies to (its own, else the talent's
 * served triggers.files) and the severity of its findings: the project's hook rule for it when it
 * chose one (policy/hookRules.ts; "off": the detectors are not served), else blocking only where earned.
 * The choice is read when the playbook is, not pinned with the resolution.
 */
function servedDetect(r: TalentRule, triggerFiles: string[], choices: ReadonlyMap<string, HookChoice>) {
  const severity = servedSeverity(effectiveChoice(detectorSeverity(r) === "blocking", choices.get(r.id) ?? null));
  return r.detect && severity !== null
    ? {
        detect: r.detect.map((d) => ({
          severity,
          files: detectorFiles(d, triggerFiles),
          pattern: d.pattern,
          ...(d.flags ? { flags: d.flags } : {}),
          ...(d.scan ? { scan: d.scan } : {}),
          ...(d.unless ? { unless: d.unless } : {}),
        })),
      }
    : {};
}

/**
 * The playbook of a resolution of the project; 404 for another project's or an unknown talent.
 * `detectors`: every obligation's rules carry their `detect` patterns, pinned like the rest
 * (what `talentd check` runs locally). `voice`: who reads the procedure (http/wording.ts).
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
  // the project's hook rules decide what each detector's findings do; a detail for the model carries no detectors
  const choices =
    opts.detectors || (talent !== undefined && !forModel) ? await readHookChoices(database, projectId) : new Map<string, HookChoice>();
  const obligations = [];
  let detail: Record<string, unknown> | undefined;
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
        ...(opts.detectors ? servedDetect(r, triggerFiles, choices) : {}),
      })),
    });
    if (talent !== undefined && item.talentId === talent) {
      detail = {
        id: item.talentId,
        kind: item.kind,
        version: item.version,
        digest: item.digest,
        title: def.title,
        summary: def.summary,
        rules: def.rules.map((r) => ({
          id: r.id,
          severity: r.severity,
          title: r.title,
          check: r.check,
          ...(forModel ? {} : servedDetect(r, triggerFiles, choices)),
        })),
        tests: def.tests,
      };
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
  };
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
