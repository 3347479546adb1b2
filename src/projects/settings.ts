/**
 * A project's settings as a change (name, description, repository, context budget): the rules both the JSON route
 * (`PATCH /web/projects/:id`, routes/project.ts) and the Settings tab's form without JavaScript
 * (`POST /projects/:id?tab=settings`, pages/settings.tsx) apply, in the same words.
 */
import { type Issue, validationFailed } from "../http/errors";
import { CONTEXT_BUDGET_LIMITS } from "./service";

/** A repository's path under the organization's code hosting URL: `payments-api`, `group/sub/repo` (no `.` or `..` segment). */
export const REPOSITORY_PATTERN = "^(?!.*(^|/)\\.\\.?(/|$))[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$";
export const REPOSITORY_ISSUE = "repository must be a path such as payments-api or group/repo";

/** The context budget's issue, when it is not whole tokens within CONTEXT_BUDGET_LIMITS. */
function budgetIssue(): Issue {
  const { min, max } = CONTEXT_BUDGET_LIMITS;
  return { path: "contextBudget", message: `must be a whole number of tokens from ${min} to ${max}, or null for the default` };
}

/**
 * The body's `contextBudget`: whole tokens within CONTEXT_BUDGET_LIMITS (a form sends digits as text), null or "" for the
 * default, absent for unchanged; 400 validation_failed otherwise.
 */
export function readContextBudget(v: unknown): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v === "") return null;
  const n = typeof v === "string" && /^\d{1,9}$/.test(v.trim()) ? Number(v.trim()) : v;
  const { min, max } = CONTEXT_BUDGET_LIMITS;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) throw validationFailed([budgetIssue()]);
  return n;
}

/** What the Settings tab's form sends, as text (kept to show again when it is refused). */
export interface SettingsForm {
  name: string;
  description: string;
  repository: string;
  contextBudget: string;
}

/** The form's fields from a posted body (absent ones empty). */
export function settingsForm(body: unknown): SettingsForm {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const text = (k: string) => (typeof b[k] === "string" ? (b[k] as string).slice(0, 5000) : "");
  return { name: text("name"), description: text("description"), repository: text("repository"), contextBudget: text("contextBudget") };
}

/** The change the form asks for; 400 validation_failed naming every bad field at once. */
export function readSettingsForm(f: SettingsForm) {
  const issues: Issue[] = [];
  const name = f.name.trim();
  if (name === "" || name.length > 100) issues.push({ path: "name", message: "name is required (at most 100 characters)" });
  const description = f.description.trim();
  if (description.length > 1000) issues.push({ path: "description", message: "description must be at most 1000 characters" });
  const repository = f.repository.trim();
  if (repository !== "" && (repository.length > 200 || !new RegExp(REPOSITORY_PATTERN).test(repository)))
    issues.push({ path: "repository", message: REPOSITORY_ISSUE });
  let contextBudget: number | null | undefined;
  try {
    contextBudget = readContextBudget(f.contextBudget);
  } catch {
    issues.push(budgetIssue());
  }
  if (issues.length > 0) throw validationFailed(issues);
  return { name, description, repository: repository === "" ? null : repository, contextBudget };
}
