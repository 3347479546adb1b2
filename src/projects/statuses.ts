/**
 * What each change of a project says in the layout's status line (ui/status.ts), in words:
 * "Installed typescript-strict and javascript-base (a prerequisite)", "Uninstalled
 * api-pagination", "Key ci created — copy it now", "Applied Go service: 7 talents installed, 2
 * were already there". Read by projectViews (projects/views.tsx) from each route's answer.
 */
import type { ViewContext } from "../ui/views";

/** A name as the status line quotes it: “checkout-web”. */
export const quoted = (name: string): string => `“${name}”`;

/**
 * What a saved Settings tab says, naming the project (the JSON route's htmx answer, and the form's post without
 * JavaScript, which also knows the name it had): "Project “checkout-web” renamed", "Project “checkout-web” saved".
 */
export function settingsSaved(name: string, before?: string): string {
  return before !== undefined && before !== name ? `Project ${quoted(before)} renamed to ${quoted(name)}` : `Project ${quoted(name)} saved`;
}

/** What a deleted project says, naming it (the JSON route's answer, and the deletion card without JavaScript). */
export const projectDeleted = (name: string): string => `The project ${quoted(name)} was deleted`;

/** What a new automation key says: that the previous one stopped working only when there was one. */
export function automationKeyStatus(data: unknown): string {
  const replaced = ((data as { revoked?: unknown[] }).revoked ?? []).length > 0;
  return `Automation key created — copy it now${replaced ? "; the previous one no longer works" : ""}`;
}

/** What a new key says, naming it (the JSON route's htmx answer, and the Keys tab's form without JavaScript). */
export const keyCreated = (name: string): string => `Key ${quoted(name)} created — copy it now`;

/** What saved hook rules say (the JSON route's htmx answer, and the Settings tab's card without JavaScript). */
export const HOOK_RULES_SAVED = "Hook rules saved";

/** What a new project says (the JSON route's answer, and the new-project form without JavaScript). */
export const projectCreated = (name: string): string => `Project ${quoted(name)} created`;

/** A list in words: "a", "a and b", "a, b and c". */
export function inWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** The talents a form or a JSON body asked for in its own right: `talent` or `talents`, less the form's `prerequisites`. */
function asked(body: unknown): Set<string> {
  const b = (body ?? {}) as Record<string, unknown>;
  const strings = (...v: unknown[]) => v.flat().filter((x): x is string => typeof x === "string");
  const prerequisites = new Set(strings(b.prerequisites));
  return new Set(strings(b.talent, b.talents).filter((id) => !prerequisites.has(id)));
}

/** An install: what entered (each prerequisite that came along named so), and what was already there. */
export function installStatus(data: unknown, ctx: ViewContext): string {
  const d = data as { installed: string[]; alreadyInstalled: string[] };
  const wanted = asked(ctx.body);
  const entered = [
    ...d.installed.filter((id) => wanted.has(id)),
    ...d.installed.filter((id) => !wanted.has(id)).map((id) => `${id} (a prerequisite)`),
  ];
  const already = d.alreadyInstalled.length
    ? `${inWords(d.alreadyInstalled)} ${d.alreadyInstalled.length === 1 ? "was" : "were"} already installed`
    : "";
  if (entered.length === 0) return `Nothing new to install: ${already || "nothing was asked"}`;
  return `Installed ${inWords(entered)}${already ? `; ${already}` : ""}`;
}

/** A specialization applied: how many of its talents entered, how many were already there. */
export function applyStatus(data: unknown): string {
  const d = data as { specialization: { name: string }; installed: string[]; alreadyInstalled: string[] };
  const there = d.alreadyInstalled.length;
  if (d.installed.length === 0) return `Applied ${d.specialization.name}: ${count(there, "talent was", "talents were")} already there`;
  const rest = there ? `, ${there} ${there === 1 ? "was" : "were"} already there` : "";
  return `Applied ${d.specialization.name}: ${count(d.installed.length, "talent", "talents")} installed${rest}`;
}

/** A talent enabled or disabled (or already so). */
export function toggleStatus(data: unknown): string {
  const d = data as { id: string; state: string; changed: boolean; dependents?: string[] };
  const word = d.state === "active" ? "enabled" : "disabled";
  if (!d.changed) return `${d.id} was already ${word}`;
  return `${word === "enabled" ? "Enabled" : "Disabled"} ${d.id}${leftWithout(d.dependents)}`;
}

/** What a confirmed disable or uninstall left without a prerequisite: "; typescript-strict and react-hooks now miss it". */
function leftWithout(dependents: readonly string[] | undefined): string {
  return dependents && dependents.length > 0 ? `; ${inWords(dependents)} now miss${dependents.length === 1 ? "es" : ""} it` : "";
}

/** An uninstall, naming what it left without a prerequisite. */
export function uninstallStatus(data: unknown): string {
  const d = data as { uninstalled: string; dependents?: string[] };
  return `Uninstalled ${d.uninstalled}${leftWithout(d.dependents)}`;
}

/** What each project change says in the status line, by the view that says it (projectViews, views.tsx). */
export const PROJECT_STATUSES = {
  install: installStatus,
  apply: (data) => applyStatus(data),
  toggle: (data) => toggleStatus(data),
  uninstall: uninstallStatus,
  keyCreated: (data) => keyCreated((data as { key: { name: string } }).key.name),
  keyRevoked: (data) => `Key ${quoted((data as { key: { name: string } }).key.name)} revoked`,
  token: automationKeyStatus,
  created: (data) => projectCreated((data as { project: { name: string } }).project.name),
  settings: (data) => settingsSaved((data as { project: { name: string } }).project.name),
  hookRules: () => HOOK_RULES_SAVED,
  deleted: (data) => projectDeleted((data as { name: string }).name),
} satisfies Record<string, (data: unknown, ctx: ViewContext) => string>;
