/**
 * `talentd eval`'s tasks file (docs/eval.md): YAML, `tasks: [{id, prompt, talents: [ids], check?}]`. Read and
 * checked here; any problem is one line (CliError, exit 2) naming the task and the field.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { CliError } from "../../cli/errors";

export interface EvalTask {
  id: string;
  prompt: string;
  talents: string[];
  /** A shell command run in the worktree after the agent: exit 0 is a pass. */
  check: string | null;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MAX_TASKS = 200;

/** The tasks of `file`; refuses an unreadable file, invalid YAML, or a task missing a field. */
export function readTasks(file: string): EvalTask[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new CliError(`eval: cannot read the tasks file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new CliError(`eval: the tasks file ${file} is not valid YAML: ${(e as Error).message.split("\n")[0]}`);
  }
  const bad = (what: string) => new CliError(`eval: the tasks file ${file}: ${what}`);
  const tasks = (doc as { tasks?: unknown } | null)?.tasks;
  if (!Array.isArray(tasks) || tasks.length === 0) throw bad("expected `tasks:` with a list of tasks ({id, prompt, talents, check?})");
  if (tasks.length > MAX_TASKS) throw bad(`${tasks.length} tasks: at most ${MAX_TASKS}`);
  const seen = new Set<string>();
  return tasks.map((raw, i) => {
    const t = raw as Record<string, unknown> | null;
    const where = `task ${i + 1}`;
    if (t === null || typeof t !== "object" || Array.isArray(t)) throw bad(`${where} is not a mapping ({id, prompt, talents, check?})`);
    const id = t.id;
    if (typeof id !== "string" || !ID.test(id)) throw bad(`${where}: id must be a name of letters, digits, . _ - (at most 64)`);
    if (seen.has(id)) throw bad(`task ${id} is listed twice`);
    seen.add(id);
    if (typeof t.prompt !== "string" || t.prompt.trim() === "") throw bad(`task ${id}: prompt must be a non-empty text`);
    const talents = t.talents;
    if (!Array.isArray(talents) || talents.length === 0 || !talents.every((x) => typeof x === "string" && x.trim() !== ""))
      throw bad(`task ${id}: talents must be a non-empty list of talent ids`);
    if (t.check !== undefined && t.check !== null && (typeof t.check !== "string" || t.check.trim() === ""))
      throw bad(`task ${id}: check must be a shell command (text), or left out`);
    const unknown = Object.keys(t).filter((k) => !["id", "prompt", "talents", "check"].includes(k));
    if (unknown.length > 0) throw bad(`task ${id}: unknown field ${unknown[0]} (fields: id, prompt, talents, check)`);
    return { id, prompt: t.prompt, talents: [...new Set(talents as string[])], check: (t.check as string | undefined) ?? null };
  });
}
