/**
 * What the service signs about the agent loop (src/signing/): a resolution's manifest (what was
 * frozen and served: per item its id, version and digests) and a report's receipt (the verdicts
 * recorded). Each is a JWT-like payload (`iss`, `iat`) any JOSE library reads; `talentd verify`
 * checks them offline against the published key set.
 */

/** One item of a resolution manifest: what was designated and frozen, with the digests of what it serves. */
export interface ManifestItem {
  id: string;
  kind: string;
  version: string;
  /** The digest of the compact form served. */
  digest: string;
  /** The digest of the talent's definition. */
  definitionDigest: string;
  /** The digest of the map of its pinned files (path → digest). */
  filesDigest: string;
}

/** The items part of a manifest as JSON text (the same for every resolution of a designation: kept with it). */
export function manifestItemsJson(items: readonly ManifestItem[]): string {
  return JSON.stringify(
    items.map((i) => ({
      id: i.id,
      kind: i.kind,
      version: i.version,
      digest: i.digest,
      definitionDigest: i.definitionDigest,
      filesDigest: i.filesDigest,
    })),
  );
}

/**
 * A resolution's manifest as JSON text, ready to sign (`itemsJson` from manifestItemsJson). `claimsJson`
 * (signing/claims.ts claimsJson) covers the answer's other fields and the playbook's rules; a resolution
 * signed before claims existed has none (null), and its manifest is written again without them.
 */
export function resolutionManifestJson(m: {
  iss: string;
  resolutionId: string;
  projectId: string;
  createdAt: number;
  catalogDigest: string;
  itemsJson: string;
  claimsJson: string | null;
}): string {
  const head = JSON.stringify({
    typ: "talentd.resolution",
    iss: m.iss,
    iat: Math.floor(m.createdAt / 1000),
    resolutionId: m.resolutionId,
    projectId: m.projectId,
    createdAt: new Date(m.createdAt).toISOString(),
    catalogDigest: m.catalogDigest,
  });
  return `${head.slice(0, -1)},"items":${m.itemsJson}${m.claimsJson === null ? "" : `,"claims":${m.claimsJson}`}}`;
}

/** A report's receipt: the submission, the resolution, each verdict, when. */
export function receiptPayload(r: {
  iss: string;
  reportId: string;
  submissionId: string;
  resolutionId: string;
  projectId: string;
  recordedAt: number;
  resultsDigest: string;
  verdicts: readonly { id: string; verdict: string }[];
}): Record<string, unknown> {
  return {
    typ: "talentd.receipt",
    iss: r.iss,
    reportId: r.reportId,
    submissionId: r.submissionId,
    resolutionId: r.resolutionId,
    projectId: r.projectId,
    recordedAt: new Date(r.recordedAt).toISOString(),
    resultsDigest: r.resultsDigest,
    verdicts: r.verdicts.map((v) => ({ id: v.id, verdict: v.verdict })),
  };
}

/** A receipt as the JSON text signed (its `iat` from `recordedAt`): written the same when signing and when a replay rebuilds it. */
export function receiptJson(r: Parameters<typeof receiptPayload>[0]): string {
  return JSON.stringify({ ...receiptPayload(r), iat: Math.floor(r.recordedAt / 1000) });
}
