/**
 * `POST /api/findings` (docs/api.md "Rule effectiveness"): a talentd check run's findings as counts
 * per talent and rule, for the key's project; traced like every key route (kind report_findings).
 */
import { Elysia } from "elysia";
import type { JournalDeps } from "../journal/journal";
import type { CatalogDeps } from "../catalog/state";
import type { Guards } from "../auth/guards";
import { clientOf, keyApiTracer, noteTrace } from "../journal/trace";
import { guardOf, traceKinds } from "../http/keyRoute";
import { FINDINGS_ROUTE as R } from "./describe";
import { blockingOf, readFindings, recordFindings } from "./findings";
import { blockingRules } from "../policy/hookRules";

export function findingsRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .onAfterResponse(keyApiTracer(deps.journal, traceKinds([R])))
    .post(
      R.path,
      async ({ principal, body, request, set }) => {
        const report = readFindings(body);
        if (report.resolutionId) noteTrace(request, { resolutionId: report.resolutionId });
        // the run's own prepare-task call is in the journal before its resolution is judged (not a task's)
        await deps.journal.settle();
        const r = await recordFindings(deps.database, principal.projectId, clientOf(request), report);
        // the findings of rules that block a commit in the project, per rule: the Activity tab shows them unexpanded
        const blocking = blockingOf(
          report,
          await blockingRules(deps.database, deps.state.catalog!, principal.organizationId, principal.projectId),
        );
        noteTrace(request, { detail: { rules: r.rules, findings: r.findings, ...(blocking.length > 0 ? { blocking } : {}) } });
        set.status = 201;
        return { ...r, resolutionId: report.resolutionId };
      },
      guardOf(R),
    );
}
