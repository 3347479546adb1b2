/** The success answers of the larger key routes of resolution, beside their descriptors (keyRoutes.ts). */
import { a, B, I, map, n, o, Pair, S, Triggers, Verdicts } from "../http/schema";

const Ids = o({ id: S, requiredBy: a(S) });

/** The answer of designable. */
export const DESIGNABLE = o({
  talents: a(
    o({
      id: S,
      kind: S,
      version: S,
      title: S,
      summary: S,
      triggers: Triggers,
      languages: a(S),
      requires: a(S),
      conflicts: a(S),
      tokens: I,
      relevant: B,
      why: a(S),
    }),
  ),
  next: S,
});

/** The answer of prepareTask. */
export const PREPARED = o({
  resolutionId: S,
  language: n(S),
  createdAt: S,
  talents: a(o({ id: S, kind: S, version: S, digest: S, uri: S, compact: S })),
  prerequisites: a(o({ id: S, requiredBy: a(S), active: B, note: S })),
  conflicts: a(o({ a: S, b: S, note: S })),
  tokens: I,
  contextBudget: o({ budget: I, served: I, notServed: I, by: S }),
  notServed: a(o({ id: S, kind: S, version: S, uri: S, summary: S, tokens: I })),
  overBudget: S,
  attestation: S,
  next: S,
});

/** The answer of playbook. */
export const PLAYBOOK = o({
  resolutionId: S,
  createdAt: S,
  procedure: a(S),
  verdictsRequired: a(S),
  requiredNotDesignated: a(S),
  attestation: S,
  detailDigests: a(S),
  hookRules: map(S),
  hookRulesLocked: a(S),
  obligations: a(
    o({
      id: S,
      kind: S,
      version: S,
      digest: S,
      title: S,
      verdictRequired: B,
      blocking: I,
      rules: a(o({ id: S, severity: S, title: S })),
    }),
  ),
});

/** The answer of reports. */
export const REPORT = o({
  reportId: S,
  submissionId: S,
  resolutionId: S,
  recordedAt: S,
  verdicts: I,
  expertiseVerdicts: I,
  summary: Verdicts,
  failing: a(S),
  replayed: B,
  attestation: S,
});

/** The answer of doctor. */
export const DOCTOR = o({
  healthy: B,
  projectId: S,
  advice: S,
  selection: o({ installed: I, active: I, disabled: I }),
  designable: a(S),
  missingPrerequisites: a(o({ id: S, requiredBy: a(S), inCatalog: B })),
  conflicts: a(Pair),
  disabledDependencies: a(Ids),
  unservable: a(o({ id: S, kind: S, reason: S })),
  requiredByPolicy: a(o({ id: S, problem: S })),
  talents: a(o({ id: S, kind: S, state: S, version: S, digest: S })),
  brokenCatalogEntries: a(o({ folder: S, problems: a(S) })),
  service: o({ status: S, reason: S, kind: S, message: S, since: S, refused: I, retryAfter: I }),
});

/** The answer of discovery. */
export const DISCOVERY = o({
  procedure: a(S),
  selection: o({ installed: I, active: I, talents: a(S), expertises: a(S), disabled: a(S) }),
  activatesNothing: B,
  catalog: o({
    digest: S,
    total: I,
    offset: I,
    left: I,
    next: n(I),
    talents: a(o({ id: S, kind: S, summary: S, languages: a(S), roles: a(S), relevant: B })),
  }),
  more: S,
});

/** The answer of install. */
export const INSTALLED = o({
  installed: a(S),
  prerequisites: a(S),
  alreadyInstalled: a(S),
  disabled: a(S),
  unchanged: a(S),
});
