/** `bun run bench`: runs every benchmark and prints a table each. `bun run bench startup` runs one. */
import { benchActivity } from "./activity";
import { benchAgentLoop } from "./agentloop";
import { benchAgentWrk } from "./agentwrk";
import { benchAuditExport } from "./auditexport";
import { benchCalibrate } from "./calibrate";
import { benchAuditLoad } from "./auditload";
import { benchCeilings } from "./ceilings";
import { benchClaims } from "./claims";
import { benchClient } from "./client";
import { benchContentCheck } from "./contentcheck";
import { benchDiscovery } from "./discovery";
import { benchEdge } from "./edge";
import { benchEval } from "./eval";
import { benchFeedCpu } from "./feedcpu";
import { benchHardening } from "./hardening";
import { benchWebCatalog } from "./webcatalog";
import { benchIdentity } from "./identity";
import { benchMcp } from "./mcp";
import { benchMetrics } from "./metrics";
import { benchOrgPages } from "./orgpages";
import { benchPageCpu } from "./pagecpu";
import { benchRouteCpu } from "./routecpu";
import { benchPrecision } from "./precision/index";
import { benchReplicas } from "./replicas";
import { benchReset } from "./reset";
import { benchRules } from "./rules";
import { benchSigning } from "./signing";
import { benchStartup } from "./startup";
import { benchStarvation } from "./starvation";
import { benchTableLabels } from "./tablelabels";
import { benchTokens } from "./tokens";

const all: Record<string, () => Promise<void>> = {
  startup: benchStartup,
  identity: benchIdentity,
  agentloop: benchAgentLoop,
  agentwrk: benchAgentWrk,
  mcp: benchMcp,
  hardening: benchHardening,
  webcatalog: benchWebCatalog,
  feedcpu: benchFeedCpu,
  client: benchClient,
  metrics: benchMetrics,
  activity: benchActivity,
  pagecpu: benchPageCpu,
  routecpu: benchRouteCpu,
  ceilings: benchCeilings,
  orgpages: benchOrgPages,
  rules: benchRules,
  reset: benchReset,
  starvation: benchStarvation,
  discovery: benchDiscovery,
  edge: benchEdge,
  precision: benchPrecision,
  signing: benchSigning,
  claims: benchClaims,
  auditexport: benchAuditExport,
  contentcheck: benchContentCheck,
  tokens: benchTokens,
  calibrate: benchCalibrate,
  eval: benchEval,
  auditload: benchAuditLoad,
  tablelabels: benchTableLabels,
  replicas: benchReplicas,
};
const pick = Bun.argv.slice(2);
for (const [name, fn] of Object.entries(all)) {
  if (pick.length > 0 && !pick.includes(name)) continue;
  await fn();
}
