/**
 * The eval routes (docs/api.md "Evals"): `talentd eval --upload` sends its summary (counts only, never a
 * file, line or code) and reads which resolutions its key prepared during a run (whether the agent invoked
 * talentd). Their descriptors sit beside the others' (http/keyRoutes.ts lists them); the handlers are
 * src/activity/evalsRoutes.ts.
 */
import type { KeyRoute } from "./keyRoute";
import { a, B, I, int, map, n, N, o, S } from "./schema";

const ArmEffect = o({ runs: I, findingsPerRun: N, findingsSpread: o({ min: I, max: I }), checkPassRate: n(N) });
const Effect = o({ talent: S, with: ArmEffect, without: ArmEffect, neverInvoked: I });
const EvalRunRow = o({ task: S, arm: S, run: I, findings: map(I), check: n(S), durationMs: I, invoked: B, timedOut: B });
/** One stored eval as listed. */
export const EvalRow = o({
  evalId: S,
  createdAt: S,
  uploadedBy: S,
  runsPerArm: I,
  tasks: a(o({ id: S, talents: a(S) })),
  runs: a(EvalRunRow),
  effects: a(Effect),
});

export const EVALS_UPLOAD = {
  method: "POST",
  path: "/api/evals",
  scope: "validate",
  kind: "eval_upload",
  summary: "Store the summary of a talentd eval run (counts per rule, check results, durations, effects per talent; no code)",
  ok: 201,
  errors: [400],
  answer: o({ evalId: S, createdAt: S, runs: I, talents: I }),
} satisfies KeyRoute;

export const RESOLUTIONS_LIST = {
  method: "GET",
  path: "/api/resolutions",
  scope: "validate",
  kind: "resolutions",
  summary: "The newest resolutions prepared with the calling key (or token): id, time, channel and talents",
  query: [{ name: "limit", schema: int(1, 100) }],
  errors: [400],
  answer: o({ resolutions: a(o({ resolutionId: S, createdAt: S, via: S, talents: a(S) })) }),
} satisfies KeyRoute;
