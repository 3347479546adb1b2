/**
 * `talentd calibrate`'s entry of the command table (commandTable.ts spreads it) and the flags it and
 * `hook install` add: data only, like the table.
 */

/** The flags of calibrate and of hook install's calibration. */
export const CALIBRATE_FLAGS = {
  history: { value: "N", help: "replay the last N first-parent commits (default 200)" },
  until: { value: "REV", help: "the last commit replayed (default HEAD)" },
  apply: { help: "make the proposals the project's hook rules (a key with the install scope)" },
  "no-calibrate": { help: "install without calibrating the project's hook rules on the repository's history first" },
};

/** The command `talentd calibrate`. */
export const CALIBRATE_SPEC = {
  name: "calibrate",
  summary: "replay the repository's history through talentd check and propose which rules only advise",
  description:
    "Replays the last --history N first-parent commits (default 200) ending at --until REV (default HEAD)\n" +
    "through check's designation and detectors, on this machine (only talent ids go to the server,\n" +
    "one prepare-task per distinct designation). Prints per rule with findings: findings, commits it\n" +
    "would have blocked, commits it ran on, and a proposal: keep blocking, or advise when the team does\n" +
    "not follow it (it would have blocked ≥ 3 commits and ≥ 5% of those it ran on). Security rules are\n" +
    "never relaxed. --apply makes the proposals the project's hook rules (merged with its choices;\n" +
    "scope install). Scopes prepare_task and validate. Exit codes: 0 done, 2 usage, configuration or\n" +
    "connection errors (one line).",
  args: [],
  flags: ["history", "until", "apply", "url", "key", "timeout", "json"],
  required: [],
  env: [],
};
