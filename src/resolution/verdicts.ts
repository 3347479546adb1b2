/** The verdicts an agent records per obligation: the report's vocabulary, read by the activity summaries too. */
export const VERDICTS = ["pass", "fail", "not_applicable"] as const;
/** One of VERDICTS. */
export type Verdict = (typeof VERDICTS)[number];
