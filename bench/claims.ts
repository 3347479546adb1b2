/**
 * What the manifest's claims cost (docs/design.md "What a signature proves"), in process over the
 * shipped catalog: the signing input of a ten-talent resolution without and with claims (within
 * the context budget and over it), one Ed25519 signature over each, the claims a call writes
 * (its next steps digested, the designation's digests kept), and the designation's own claims
 * (rules and detectors from the parsed definitions, once per designation). Medians of 5 runs.
 */
import { buildCatalog } from "../src/catalog/catalog";
import { sourcesFromFlat } from "../src/catalog/load";
import { embeddedTalents } from "../src/embedded";
import { manifestItemsJson, resolutionManifestJson } from "../src/resolution/attestation";
import { obligationClaims, servedDefinitionOf } from "../src/resolution/obligations";
import { notServedOf } from "../src/resolution/prepareAnswer";
import { claimsJson, fieldDigest } from "../src/signing/claims";
import { b64url } from "../src/signing/jws";
import { generateKeyPairSync, sign } from "node:crypto";
import { printTable } from "./lib";

/** µs per call of `f`: the median of 5 runs of `n`. */
function micros(f: () => unknown, n: number): number {
  for (let i = 0; i < n; i++) f();
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) f();
    runs.push(((performance.now() - t0) / n) * 1000);
  }
  return runs.sort((a, b) => a - b)[2]!;
}

export async function benchClaims(): Promise<void> {
  const catalog = buildCatalog(sourcesFromFlat(embeddedTalents()), [], {}).catalog;
  const talents = [...catalog.talents.values()].filter((t) => t.rules.length > 0).slice(0, 10);
  const designated = talents.map((t) => ({ id: t.id, kind: "talent" as const, version: t.version, talent: t, expertiseId: null }));
  const itemsJson = manifestItemsJson(
    designated.map((d) => ({
      id: d.id,
      kind: d.kind,
      version: d.version,
      digest: d.talent.compactDigest,
      definitionDigest: d.talent.digest,
      filesDigest: `sha256:${"0".repeat(64)}`,
    })),
  );
  const resolutionId = "res_01M8T4669BQWF8CNPV8865KQ2Q";
  const next =
    "Do the task following these talents. Read deeper files only when a pointer applies (GET /api/talents/read?uri=<talent:// uri>" +
    `&resolutionId=${resolutionId}). When the work is done, fetch the audit playbook: GET /api/validation/playbook?resolutionId=${resolutionId}.`;
  const prerequisites = [{ id: "javascript-base", requiredBy: ["typescript-strict"], active: true }];
  const conflicts: { a: string; b: string }[] = [];
  const obligations = obligationClaims(designated.map(servedDefinitionOf));
  const known = { ...obligations, digests: { prerequisites: fieldDigest(prerequisites), conflicts: fieldDigest(conflicts) } };
  const within = { language: null, tokens: 5417, prerequisites, conflicts, next };
  const rest = notServedOf(designated.slice(1));
  const over = {
    ...within,
    contextBudget: { budget: 500, served: 1, notServed: rest.length },
    notServed: rest,
    overBudget: `Over the project's context budget … ${resolutionId} …`,
  };
  const overKnown = { ...known, digests: { ...known.digests, notServed: fieldDigest(rest) } };
  const manifest = (claims: string | null) =>
    resolutionManifestJson({
      iss: "http://127.0.0.1",
      resolutionId,
      projectId: "prj_x",
      createdAt: Date.now(),
      catalogDigest: catalog.digest,
      itemsJson,
      claimsJson: claims,
    });
  const input = (payload: string) => `${b64url(JSON.stringify({ alg: "EdDSA", kid: "k".repeat(43) }))}.${b64url(payload)}`;
  const { privateKey } = generateKeyPairSync("ed25519");
  const rows: (string | number)[][] = [];
  for (const [name, claims, perCall] of [
    ["no claims (before)", null, null],
    ["claims, within the budget", claimsJson(within, known), () => claimsJson(within, known)],
    ["claims, over the budget (9 not served)", claimsJson(over, overKnown), () => claimsJson(over, overKnown)],
  ] as const) {
    const signed = Buffer.from(input(manifest(claims)));
    rows.push([
      name,
      signed.length,
      claims?.length ?? 0,
      micros(() => sign(null, signed, privateKey), 2000).toFixed(1),
      perCall ? micros(perCall, 20_000).toFixed(2) : "—",
    ]);
  }
  printTable(
    "Manifest claims: signing input and cost per prepare-task (10 shipped talents with rules)",
    ["manifest", "signing input (bytes)", "claims JSON (bytes)", "signature (µs)", "claims per call (µs)"],
    rows,
  );
  const build = micros(() => obligationClaims(designated.map(servedDefinitionOf)), 200);
  printTable(
    "A designation's own claims (rules, detectors; definitions parsed once, kept by digest)",
    ["work", "µs"],
    [["rules + detectors claims of 10 talents", build.toFixed(1)]],
  );
}
