/**
 * What one set of credentials is offered (docs/api-oauth-mcp.md "Tools fit the caller"): the tools, prompts and
 * instructions its scopes allow, so an agent is never shown a tool it cannot call. A call of a tool outside them still
 * reaches its backend route, whose refusal (403 insufficient_scope) becomes a tool error in words.
 */
import type { KeyScope } from "../db/schema";
import type { PromptSpec } from "./prompts";
import { LOOP, type ToolSpec } from "./tools";

/** The caller of one request: its scopes, and whether the request calls a tool (then every tool is registered). */
export interface CallerView {
  scopes: readonly KeyScope[];
  calling: boolean;
}

/** Whether the caller's scopes allow the tool. */
export const allows = (view: CallerView, tool: Pick<ToolSpec, "scope">): boolean => view.scopes.includes(tool.scope);

/** The prompts the caller may follow: each needs the scope of the tool it starts with. */
export const promptsFor = (view: CallerView, prompts: readonly PromptSpec[]): PromptSpec[] =>
  prompts.filter((p) => view.scopes.includes(p.scope));

/**
 * The server's instructions for these scopes: the loop's steps whose tools the caller may call, and which tools it is
 * offered when that is not all of them.
 */
export function instructionsFor(view: CallerView, tools: readonly ToolSpec[]): string {
  const offered = tools.filter((t) => allows(view, t));
  const hidden = new Set(tools.filter((t) => !allows(view, t)).map((t) => t.name));
  const steps = LOOP.split("\n").filter((line) => ![...line.matchAll(/svc_\w+/g)].some((m) => hidden.has(m[0])));
  const lines = ["talentd serves the conventions (talents) of this project and checks your work against them."];
  if (steps.length > 0) lines.push("The loop:", ...steps);
  if (hidden.size > 0) lines.push(`These credentials are offered ${offered.map((t) => t.name).join(", ") || "no tool"}.`);
  lines.push("The project is the one of your credentials: tools never take a project id.");
  return lines.join("\n");
}
