/**
 * The sentences of resolution's answers that tell a key-API caller what to call next — next
 * steps, error hints, procedures — decided here for both channels (docs/api.md "Wording follows
 * the channel"): each step names one of resolution's key routes (keyRoutes.ts), spelled as a route
 * or a tool, or what to ask for when the caller's credentials lack its scope (http/wording.ts).
 */
import { call, lacking, type Voice } from "../http/wording";
import { RESOLUTION_KEY_ROUTES as R } from "./keyRoutes";

export type { Voice };

/** `next` of a prepared task: work, read deeper, audit, record verdicts. */
export function afterPrepare(voice: Voice, resolutionId: string, expertises: boolean): string {
  const read = call(voice, R.read, { uri: "<talent:// uri>", resolutionId });
  const audit = call(voice, R.playbook, { resolutionId });
  const record = call(voice, R.reports, { resolutionId });
  const auditStep = audit
    ? `When the work is done, fetch the audit playbook: ${audit}`
    : `When the work is done, the audit playbook of ${resolutionId} needs ${lacking(R.playbook)}`;
  const verdicts = !expertises
    ? "."
    : record
      ? `, then record one verdict per private expertise: ${record}.`
      : `; one verdict per private expertise must then be recorded (${lacking(R.reports)}).`;
  return ["Do the task following these talents.", read && `Read deeper files only when a pointer applies (${read}).`, auditStep + verdicts]
    .filter(Boolean)
    .join(" ");
}

/** Why an id cannot be designated, and where designable ids come from. */
export function notDesignableHint(voice: Voice): string {
  const ways =
    voice.channel === "api"
      ? [
          call(voice, R.designable) && `designate from ${call(voice, R.designable)}`,
          call(voice, R.install) && `install it with ${call(voice, R.install, { talent: "<id>" })}`,
        ]
      : [
          call(voice, R.install) && `install it with ${call(voice, R.install, { talent: "<id>" })}`,
          call(voice, R.doctor) && `check the selection with ${call(voice, R.doctor)}`,
          call(voice, R.discovery) && `find what fits with ${call(voice, R.discovery)}`,
          "pick one of the talents resources/list names",
        ];
  const offered = ways.filter(Boolean);
  return `not active in this project (install and enable it first${offered.length ? `, or ${offered.join(", or ")}` : ""})`;
}

/** `next` of the designable listing. */
export function designableNext(voice: Voice): string {
  const designate = call(voice, R.prepareTask, { talentIds: "[...]" });
  return `Designate the talents your task touches${designate ? `: ${designate}` : ""}. Designate nothing you do not need: only what is designated is served and reviewed.`;
}

/** The procedure of an audit playbook. */
export function auditProcedure(voice: Voice, resolutionId: string, hasExpertises: boolean): string[] {
  const detail = call(voice, R.playbook, { resolutionId, talent: "<id>" });
  const record = call(voice, R.reports, { resolutionId });
  const steps = [
    "Review your own diff against every obligation below; no diff is ever sent to the service.",
    `For each talent whose rules touch your change, fetch its detail (${detail}) and apply each rule's check to the diff; its conformance tests show a passing and a failing example.`,
    "List every violation with file:line. Blocking rules must not be violated when the work lands; advisory ones are reported.",
  ];
  if (hasExpertises) {
    steps.push(
      `Before fixing anything, record the first exhaustive report${record ? ` (${record})` : ` (it needs ${lacking(R.reports)})`} with a new submissionId and exactly one final verdict per private expertise (verdictRequired: true) — pass, fail (with evidence path:line or the missing elements) or not_applicable.`,
      "Fix the blocking violations, review the diff again from step 1, and record a second report with a NEW submissionId. Reuse a " +
        "submissionId only to retry the identical report.",
    );
  } else {
    steps.push(
      `Fix the blocking violations and review the diff again from step 1.${record ? ` Verdicts for public talents may be recorded too (${record}), but none is required.` : ""}`,
    );
  }
  return steps.map((s, i) => `${i + 1}. ${s}`);
}

/**
 * `next` of one talent's detail over MCP, which leaves the playbook's procedure out (the agent has
 * it from the playbook): apply the rules, then the next talent's detail or the verdicts.
 */
export function afterDetail(voice: Voice, resolutionId: string, hasExpertises: boolean): string {
  const other = call(voice, R.playbook, { resolutionId, talent: "<id>" });
  const record = call(voice, R.reports, { resolutionId });
  const then = [
    other && `fetch the next talent's detail (${other})`,
    hasExpertises && (record ? `record one verdict per private expertise (${record})` : `record verdicts (${lacking(R.reports)})`),
  ].filter(Boolean);
  return (
    "Apply each rule's check to your diff (the tests show a passing and a failing example), list violations with file:line and " +
    `fix the blocking ones${then.length ? `; then ${then.join(", or ")}` : ""}.`
  );
}

/** The procedure of the discovery playbook. */
export function discoveryProcedure(voice: Voice): string[] {
  const install = call(voice, R.install, { talents: "[...]" });
  const designable = voice.channel === "api" ? call(voice, R.designable) : null;
  const prepare = call(voice, R.prepareTask, { talentIds: "[...]" });
  const read = call(voice, R.read, { uri: "talent://<id>" });
  const designateWith = [designable, prepare].filter(Boolean).join(", ");
  const readFirst = read ? `; read a candidate's triggers and rules with ${read} before you propose it` : "";
  const consent = install ? `${install} or the dashboard` : "in the dashboard";
  return [
    "1. Survey the codebase without sending it anywhere: languages (file extensions), frameworks and tools (package.json, " +
      "pyproject.toml, go.mod, Cargo.toml, Dockerfile, CI files, migrations/), and the kind of work the team does.",
    `2. Match what you found against the index below (relevant first: languages, roles, one-line summary)${readFirst}.`,
    "3. Installing a talent brings its prerequisites (requires); never pick both sides of a conflict.",
    `4. Propose the list to the person you work for, with one line of why per talent. Install only with their consent: ${consent}.`,
    `5. Then, for each task, designate only the talents the task touches${designateWith ? ` (${designateWith})` : ""}.`,
  ];
}

/** Where a discovery index cut at its budget goes on: the next page, or a search of the catalog. */
export function discoveryMore(voice: Voice): string {
  const again = call(voice, R.discovery, { offset: "<catalog.next>" });
  const search = call(voice, R.search, { scope: "catalog", query: "<word>" });
  const ways = [again && `ask again with ${again}`, search && `search the catalog by a word with ${search}`].filter(Boolean);
  return `The index was cut at the budget${ways.length ? `: ${ways.join(", or ")}` : ""}.`;
}

/** Doctor's advice on missing prerequisites (`voice` absent: a person's page, no call named). */
export function installPrerequisites(voice: Voice | undefined, ids: string[]): string {
  const install = voice ? call(voice, R.install, { talents: `[${ids.join(", ")}]` }) : null;
  return `Install the missing prerequisites (${ids.join(", ")})${install ? ` (${install})` : ""} or remove what requires them.`;
}

/** What a prepared task says when the context budget cut it: the rest is designated and audited, read when reached. */
export function overBudgetNote(voice: Voice, resolutionId: string, capped = false): string {
  const read = call(voice, R.read, { resolutionId, uri: "<uri>" });
  const how = read ? `: ${read}` : ` (reading them needs ${lacking(R.read)})`;
  const over = capped ? "Over the maxTokens you gave" : "Over the project's context budget";
  const cut = `${over}: the talents under notServed are designated, frozen and audited like the rest`;
  return `${cut}, but not served here. Read each when the task reaches it${how}.`;
}
