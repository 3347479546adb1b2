/**
 * What a model is shown during one agent loop over MCP, step by step (bench/tokens.ts prints it;
 * test/mcp/token-budget.test.ts holds the six-talent loop to a budget). Driven by SDK v2's client,
 * as an agent's host drives it: initialize (the server's instructions), tools/list, discovery,
 * install, prepare, the playbook, then one detail per designated talent.
 *
 * The measure: characters / 4. What is counted is what a host hands its model: the instructions,
 * the tools as listed (name, title, description, input schema), and of each tool result its text
 * content. `structuredContent` repeats that text as an object (hosts pass one or the other, not
 * both) and `_meta` is for the host's code, never the model: both are measured beside it, not
 * counted.
 */
import type { Client } from "@modelcontextprotocol/client";

/** Six talents a TypeScript web service designates for "add a rate-limit middleware". */
export const SIX = ["typescript-strict", "javascript-base", "node-http-services", "error-handling", "input-validation", "unit-testing"];

/** The six, and seven more a larger web-service task designates (their prerequisites included). */
export const THIRTEEN = [
  ...SIX,
  "rest-api-design",
  "http-caching",
  "structured-logging",
  "observability-metrics",
  "concurrency-async-js",
  "security-headers-csrf",
  "secrets-handling",
];

/** One step of the loop: what the model reads (`shown`), and beside it what it is not shown. */
export interface LoopStep {
  step: string;
  /** Characters the model is shown. */
  shown: number;
  /** Characters of `structuredContent` (not counted: the same answer as the text). */
  structured: number;
  /** Characters of the result's `_meta` (not counted: for the host's code). */
  meta: number;
}

/** Tokens, as the loop's figures count them: characters / 4, rounded. */
export const tokensOf = (chars: number): number => Math.round(chars / 4);

type Result = Awaited<ReturnType<Client["callTool"]>>;

const textOf = (r: Result): string =>
  (r.content as { type: string; text?: string }[])
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("");

const sizeOf = (v: unknown): number => (v === undefined ? 0 : JSON.stringify(v).length);

/** The loop of `talents` through a connected client; throws on a tool error (a broken loop measures nothing). */
export async function measureLoop(client: Client, talents: readonly string[]): Promise<LoopStep[]> {
  const steps: LoopStep[] = [];
  const call = async (step: string, name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args });
    const text = textOf(r);
    if (r.isError) throw new Error(`${name}: ${text}`);
    steps.push({ step, shown: text.length, structured: sizeOf(r.structuredContent), meta: sizeOf(r._meta) });
    return r;
  };
  steps.push({ step: "instructions", shown: (client.getInstructions() ?? "").length, structured: 0, meta: 0 });
  const { tools } = await client.listTools();
  const shownTools = tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema }));
  steps.push({ step: "tools/list", shown: JSON.stringify(shownTools).length, structured: 0, meta: 0 });
  await call("discovery", "svc_discover_codebase", { languages: ["typescript"] });
  await call("install", "svc_install_talents", { talents: [...talents] });
  const prepared = await call("prepare", "svc_prepare_task", { talentIds: [...talents], language: "typescript" });
  const resolutionId = (JSON.parse(textOf(prepared)) as { resolutionId: string }).resolutionId;
  await call("playbook", "svc_validate", { resolutionId });
  for (const talent of talents) await call(`detail ${talent}`, "svc_validate", { resolutionId, talent });
  return steps;
}

/** The total characters shown by a loop. */
export const shownTotal = (steps: LoopStep[]): number => steps.reduce((s, x) => s + x.shown, 0);
