/**
 * `talentd eval`'s entry of the command table (commandTable.ts spreads it) and the flags it adds: data only,
 * like the table.
 */

/** The flags of eval (`--timeout`, `--json`, `--url`, `--key` are the client's own). */
export const EVAL_FLAGS = {
  agent: { value: "CMD", help: "eval: the agent command, run through the shell in a fresh worktree (TALENTD_EVAL_* set)" },
  tasks: { value: "FILE", help: "eval: the tasks file (YAML: tasks: [{id, prompt, talents: [ids], check?}])" },
  runs: { value: "N", help: "eval: runs of each task in each arm (default 1, at most 50)" },
  upload: { help: "eval: send the summary (counts, no code, no diff) to the server (POST /api/evals, scope validate)" },
};

/** The command `talentd eval`. */
export const EVAL_SPEC = {
  name: "eval",
  summary: "measure whether the talents change what your agent writes: each task with and without talentd",
  description:
    "Runs --agent CMD for each task of --tasks FILE, --runs N times (default 1) in each of two arms, each run in a\n" +
    "fresh worktree of HEAD (git worktree add --detach in a temp folder, removed after; your working tree is never\n" +
    "touched): `with` (the task's talents active; the agent gets TALENTD_URL, TALENTD_KEY and TALENTD_MCP_CONFIG)\n" +
    "and `without` (no talentd in its environment). Every run gets TALENTD_EVAL_ARM, TALENTD_EVAL_TASK and\n" +
    "TALENTD_EVAL_PROMPT_FILE. --timeout S bounds each run of the agent (default 600; its process group is killed).\n" +
    "Each run's change (tracked and new files, against HEAD) is scored here: the detectors of the task's talents,\n" +
    "blocking or not, and the task's `check` command (exit 0 = pass). Whether the `with` run prepared a task is read\n" +
    "from the project's resolutions made with the key during the run. Prints the runs and, per talent, findings per\n" +
    "run and the check's pass rate with and without (min–max over runs when --runs > 1); --json one document.\n" +
    "--upload sends the summary (counts only). Scopes prepare_task, validate and doctor. Exit codes: 0 done,\n" +
    "2 usage, configuration or connection errors, or a refused upload (after the results) (one line).",
  args: [],
  flags: ["agent", "tasks", "runs", "upload", "url", "key", "timeout", "json"],
  required: [],
  env: [],
  flagHelp: { timeout: "seconds each run of the agent may take (default 600); its process group is killed then" },
};
