/**
 * Every sentence that tells a key-API caller what to call next — next steps, error hints,
 * procedures — decided here for both channels (docs/api.md "Wording follows the channel"): a step
 * is "call operation X with these arguments", rendered as a route over the key API
 * (`GET /api/validation/playbook?resolutionId=…`) and as a tool over MCP (`svc_validate with
 * resolutionId=…`), from the key-route descriptors. A step whose scope the caller's credentials
 * lack is not offered as a call: the sentence says what to ask for instead.
 */
import { type Channel, channelOf, type KeyRoute } from "./keyRoute";
import { KEY_ROUTES, type KeyRouteName } from "./keyRoutes";

/** Who is being told: the channel of the request and the scopes of its credentials. */
export interface Voice {
  channel: Channel;
  scopes: readonly string[];
}

/** The voice of a request made with credentials carrying `scopes`. */
export function voiceOf(request: Request, scopes: readonly string[]): Voice {
  return { channel: channelOf(request), scopes };
}

/** Arguments of a step, each as the text to show (a value, or a placeholder such as `<id>`). */
type Args = Record<string, string | undefined>;

/** The MCP tool that reaches a route, if any. */
function toolNameOf(route: KeyRoute): string | undefined {
  return route.tool?.name ?? route.reachedBy;
}

/** One call as the channel spells it: `svc_validate with resolutionId=res_1`, or `GET /api/validation/playbook?resolutionId=res_1`. */
function spell(route: KeyRoute, args: Args, channel: Channel): string {
  const given = Object.entries(args).filter((e): e is [string, string] => e[1] !== undefined);
  if (channel === "mcp") {
    const name = toolNameOf(route)!;
    return given.length ? `${name} with ${given.map(([k, v]) => `${k}=${v}`).join(", ")}` : name;
  }
  const path = route.path.replace(/:id\b/, "current");
  if (!given.length) return `${route.method} ${path}`;
  if (route.method === "GET") return `${route.method} ${path}?${given.map(([k, v]) => `${k}=${v}`).join("&")}`;
  return `${route.method} ${path} {${given.map(([k, v]) => `${k}: ${v}`).join(", ")}}`;
}

/** Whether the voice may be told to call a route: its credentials carry the scope, and the channel offers the route. */
export function mayCall(voice: Voice, name: KeyRouteName): boolean {
  const route: KeyRoute = KEY_ROUTES[name];
  return voice.scopes.includes(route.scope) && (voice.channel === "api" || toolNameOf(route) !== undefined);
}

/** A call to offer the voice, or null when it may not make it. */
export function call(voice: Voice, name: KeyRouteName, args: Args = {}): string | null {
  return mayCall(voice, name) ? spell(KEY_ROUTES[name], args, voice.channel) : null;
}

/** What to ask for when a step's scope is missing. */
const lacking = (name: KeyRouteName) => `credentials with the ${KEY_ROUTES[name].scope} scope`;

/** `next` of a prepared task: work, read deeper, audit, record verdicts. */
export function afterPrepare(voice: Voice, resolutionId: string, expertises: boolean): string {
  const read = call(voice, "read", { uri: "<talent:// uri>", resolutionId });
  const audit = call(voice, "playbook", { resolutionId });
  const record = call(voice, "reports", { resolutionId });
  const auditStep = audit
    ? `When the work is done, fetch the audit playbook: ${audit}`
    : `When the work is done, the audit playbook of ${resolutionId} needs ${lacking("playbook")}`;
  const verdicts = !expertises
    ? "."
    : record
      ? `, then record one verdict per private expertise: ${record}.`
      : `; one verdict per private expertise must then be recorded (${lacking("reports")}).`;
  return ["Do the task following these talents.", read && `Read deeper files only when a pointer applies (${read}).`, auditStep + verdicts]
    .filter(Boolean)
    .join(" ");
}

/** Why an id cannot be designated, and where designable ids come from. */
export function notDesignableHint(voice: Voice): string {
  const ways =
    voice.channel === "api"
      ? [
          call(voice, "designable") && `designate from ${call(voice, "designable")}`,
          call(voice, "install") && `install it with ${call(voice, "install", { talent: "<id>" })}`,
        ]
      : [
          call(voice, "install") && `install it with ${call(voice, "install", { talent: "<id>" })}`,
          call(voice, "doctor") && `check the selection with ${call(voice, "doctor")}`,
          call(voice, "discovery") && `find what fits with ${call(voice, "discovery")}`,
          "pick one of the talents resources/list names",
        ];
  const offered = ways.filter(Boolean);
  return `not active in this project (install and enable it first${offered.length ? `, or ${offered.join(", or ")}` : ""})`;
}

/** `next` of the designable listing. */
export function designableNext(voice: Voice): string {
  const designate = call(voice, "prepareTask", { talentIds: "[...]" });
  return `Designate the talents your task touches${designate ? `: ${designate}` : ""}. Designate nothing you do not need: only what is designated is served and reviewed.`;
}

/** The procedure of an audit playbook. */
export function auditProcedure(voice: Voice, resolutionId: string, hasExpertises: boolean): string[] {
  const detail = call(voice, "playbook", { resolutionId, talent: "<id>" });
  const record = call(voice, "reports", { resolutionId });
  const steps = [
    "Review your own diff against every obligation below; no diff is ever sent to the service.",
    `For each talent whose rules touch your change, fetch its detail (${detail}) and apply each rule's check to the diff; its conformance tests show a passing and a failing example.`,
    "List every violation with file:line. Blocking rules must not be violated when the work lands; advisory ones are reported.",
  ];
  if (hasExpertises) {
    steps.push(
      `Before fixing anything, record the first exhaustive report${record ? ` (${record})` : ` (it needs ${lacking("reports")})`} with a new submissionId and exactly one final verdict per private expertise (verdictRequired: true) — pass, fail (with evidence path:line or the missing elements) or not_applicable.`,
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
  const other = call(voice, "playbook", { resolutionId, talent: "<id>" });
  const record = call(voice, "reports", { resolutionId });
  const then = [
    other && `fetch the next talent's detail (${other})`,
    hasExpertises && (record ? `record one verdict per private expertise (${record})` : `record verdicts (${lacking("reports")})`),
  ].filter(Boolean);
  return (
    "Apply each rule's check to your diff (the tests show a passing and a failing example), list violations with file:line and " +
    `fix the blocking ones${then.length ? `; then ${then.join(", or ")}` : ""}.`
  );
}

/** The procedure of the discovery playbook. */
export function discoveryProcedure(voice: Voice): string[] {
  const install = call(voice, "install", { talents: "[...]" });
  const designable = voice.channel === "api" ? call(voice, "designable") : null;
  const prepare = call(voice, "prepareTask", { talentIds: "[...]" });
  const read = call(voice, "read", { uri: "talent://<id>" });
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
  const again = call(voice, "discovery", { offset: "<catalog.next>" });
  const search = call(voice, "search", { scope: "catalog", query: "<word>" });
  const ways = [again && `ask again with ${again}`, search && `search the catalog by a word with ${search}`].filter(Boolean);
  return `The index was cut at the budget${ways.length ? `: ${ways.join(", or ")}` : ""}.`;
}

/** Doctor's advice on missing prerequisites (`voice` absent: a person's page, no call named). */
export function installPrerequisites(voice: Voice | undefined, ids: string[]): string {
  const install = voice ? call(voice, "install", { talents: `[${ids.join(", ")}]` }) : null;
  return `Install the missing prerequisites (${ids.join(", ")})${install ? ` (${install})` : ""} or remove what requires them.`;
}

/** What a prepared task says when the context budget cut it: the rest is designated and audited, read when reached. */
export function overBudgetNote(voice: Voice, resolutionId: string, capped = false): string {
  const read = call(voice, "read", { resolutionId, uri: "<uri>" });
  const how = read ? `: ${read}` : ` (reading them needs ${lacking("read")})`;
  const over = capped ? "Over the maxTokens you gave" : "Over the project's context budget";
  const cut = `${over}: the talents under notServed are designated, frozen and audited like the rest`;
  return `${cut}, but not served here. Read each when the task reaches it${how}.`;
}
