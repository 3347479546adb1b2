/**
 * Task preparation (docs/design.md "A resolution is frozen when it is prepared"): the agent designates talents; the service compiles
 * exactly those (public and private mixed, always the compact form) and freezes a resolution.
 * Nothing is guessed: no designation → 400 designation_required; an id that is not active in
 * the project → 400 unknown_talents. Dependencies not designated are listed, not served.
 */
import { iso } from "../lib/time";
import type { Catalog } from "../catalog/catalog";
import type { Talent } from "../catalog/format";
import { blobInserts, knownBlobs } from "../db/blobs";
import type { Database } from "../db/client";
import type { Statement } from "../db/writeJob";
import { newId } from "../lib/ids";
import { kept, keptByIdentity, keptEach } from "../lib/kept";
import type { KeptMap } from "../lib/keptMap";
import { unknownTalents } from "../selection/service";
import type { Signer } from "../signing/signer";
import { detach } from "../signing/jws";
import { manifestItemsJson, resolutionManifestJson } from "./attestation";
import { claimsJson, fieldDigest } from "../signing/claims";
import { obligationClaims, servedDefinitionOf } from "./obligations";
import {
  designatedConflicts,
  missingPrerequisites,
  type DesignatedConflict,
  readDesignation,
  type PrepareInput,
  type Prerequisite,
} from "./designation";
import { designationOf, itemsInsert, manifestOf } from "./designationItems";
import { answerJson, notServedOf, servedTalentsJson, servedWithin } from "./prepareAnswer";
import { afterPrepare, notDesignableHint, overBudgetNote, type Voice } from "./wording";
import { activeItems, type ServableItem } from "../selection/sources";

export interface Author {
  type: "key" | "user" | "token";
  id: string;
  via: "api" | "web" | "mcp";
}

/**
 * The talents (version objects) whose every blob — compact form, files, manifest — is known to
 * be committed in the database of `known`: a prepare-task that designates one again skips
 * checking its files one by one (for a lazy talent, reading `files` rebuilds it from the LRU).
 */
const storedTalents = keptByIdentity<Set<string>, WeakSet<Talent>>("Talents whose blobs are known committed");
function storedTalentsOf(known: Set<string>): WeakSet<Talent> {
  let set = storedTalents.get(known);
  if (!set) storedTalents.set(known, (set = new WeakSet()));
  return set;
}

/**
 * What a designation's answer and write owe to its items alone — the ~3 KB items statement, the
 * designation id (its digest), the prerequisites and conflicts — kept for the last
 * DESIGNATION_MEMOS designations served, by project and designated ids, with the map of active
 * items they were read from: while activeItems hands out the same map (the same frozen rows,
 * catalog and expertises), none is built or hashed again (~9% of the request thread's samples
 * under prepare-task at 64 connections, docs/performance.md); a new map (an install, a new version, a
 * catalog change) builds them afresh. At most ~4 KB each.
 */
interface DesignationMemo {
  active: ReadonlyMap<string, ServableItem>;
  sql: string;
  id: string;
  prerequisites: Prerequisite[];
  conflicts: DesignatedConflict[];
  /** The items of the signed manifest as JSON text (attestation.ts). */
  itemsJson: string;
  /**
   * The manifest's claims over the playbook's rules, detectors and details (obligations.ts), and the digests of the
   * prerequisites and conflicts: taken by the first signed answer (claimsOf), none while signing is off.
   */
  claims: { rules: string; detectors: string; details: string; digests: { prerequisites: string; conflicts: string } } | null;
  /** The digest of the answer's `notServed` (signing/claims.ts fieldDigest) by the number served, once over a budget. */
  notServedDigests: Map<number, string>;
}
const designationMemos = kept<string, DesignationMemo>(
  "Designation memo (items SQL, id, prerequisites, conflicts, tokens) by project and ids",
  {
    clock: "identity",
    limit: 512,
  },
);
const deepFrozen = <T extends object>(list: T[]): T[] =>
  Object.freeze(list.map((x) => (Object.values(x).forEach((v) => Array.isArray(v) && Object.freeze(v)), Object.freeze(x)))) as T[];
function designationFor(
  projectId: string,
  ids: string[],
  designated: ServableItem[],
  active: ReadonlyMap<string, ServableItem>,
  catalog: Catalog,
): DesignationMemo {
  const key = `${projectId}\n${ids.join("\n")}`;
  const memo = designationMemos.get(key);
  if (memo && memo.active === active) return memo;
  const sql = itemsInsert(designated);
  // shared by every answer of this designation: frozen, so a caller that changed one would throw, not alter the next
  const prerequisites = deepFrozen(missingPrerequisites(designated, catalog, active));
  const conflicts = deepFrozen(designatedConflicts(designated));
  const fresh: DesignationMemo = {
    active,
    sql,
    id: designationOf(projectId, sql),
    prerequisites,
    conflicts,
    itemsJson: manifestItemsJson(
      designated.map((d) => ({
        id: d.id,
        kind: d.kind,
        version: d.version,
        digest: d.talent.compactDigest,
        definitionDigest: d.talent.digest,
        filesDigest: manifestOf(d.talent).digest,
      })),
    ),
    claims: null,
    notServedDigests: new Map(),
  };
  designationMemos.delete(key);
  designationMemos.set(key, fresh);
  return fresh;
}

/** Designations known to be committed in each database (their items are never changed or deleted but with their project). */
const committedDesignations = keptEach<Database, string, true>("Designations known committed", {
  clock: "immutable",
  limit: 50_000,
  per: "database",
});
function knownDesignations(database: Database): KeptMap<string, true> {
  return committedDesignations.of(database);
}

/** The resolution's manifest signed (attestation.ts) with its claims, when the deps carry a signer. */
function signManifest(
  deps: { catalog: Catalog; signer?: Signer; iss?: string },
  resolutionId: string,
  projectId: string,
  now: number,
  itemsJson: string,
  claimsJson: string,
): string | null {
  if (!deps.signer) return null;
  const manifest = {
    iss: deps.iss ?? "",
    resolutionId,
    projectId,
    createdAt: now,
    catalogDigest: deps.catalog.digest,
    itemsJson,
    claimsJson,
  };
  return deps.signer.signJson(resolutionManifestJson(manifest));
}

/**
 * What a designation's signed answers share of their claims (taken once, kept with the memo): the claims over its
 * obligations, and the digests of its prerequisites, conflicts and, at this cut, its `notServed`.
 */
function claimsOf(memo: DesignationMemo, designated: ServableItem[], servedCount: number, over: { notServed?: unknown[] }) {
  memo.claims ??= {
    ...obligationClaims(designated.map(servedDefinitionOf)),
    digests: { prerequisites: fieldDigest(memo.prerequisites), conflicts: fieldDigest(memo.conflicts) },
  };
  if (!over.notServed) return memo.claims;
  let notServed = memo.notServedDigests.get(servedCount); // one per cut: at most MAX_DESIGNATED
  if (notServed === undefined) memo.notServedDigests.set(servedCount, (notServed = fieldDigest(over.notServed)));
  return { ...memo.claims, digests: { ...memo.claims.digests, notServed } };
}

/** What prepare-task answered: the 201 body as JSON text, and what the trace notes of it. */
export interface PreparedTask {
  resolutionId: string;
  /** The ids served (compact forms in the answer), in the order designated. */
  served: string[];
  /** The ids designated past the context budget (listed, not served). */
  notServed: string[];
  tokens: number;
  /** The signed manifest (a compact JWS), or null (signing off); in the body only for the key API (http/keyRoute.ts MACHINE_FIELDS). */
  attestation: string | null;
  /** The served talents' digests by id; in the body only for the key API (over MCP: http/keyRoute.ts DIGESTS_META). */
  digests: Record<string, string>;
  /** The 201 body (prepareAnswer.ts). */
  json: string;
}

/**
 * Prepares a task: validates, freezes the resolution of everything designated in one transaction,
 * returns the 201 body (its next steps worded for `voice`):
 * the compact forms within the project's context budget (`budget`, tokens), the rest under notServed.
 */
export async function prepareTask(
  deps: { database: Database; catalog: Catalog; signer?: Signer; iss?: string },
  project: { id: string; organizationId: string },
  author: Author,
  body: PrepareInput,
  voice: Voice,
  budget: number = Number.POSITIVE_INFINITY,
): Promise<PreparedTask> {
  const { ids, language, maxTokens } = readDesignation(body);
  const active = await activeItems(deps, project);
  const unknown = ids.filter((id) => !active.has(id));
  if (unknown.length > 0) throw unknownTalents(unknown, notDesignableHint(voice), active.keys());
  const designated = ids.map((id) => active.get(id)!);
  const memo = designationFor(project.id, ids, designated, active, deps.catalog);
  const { id: designationId, prerequisites, conflicts } = memo;
  // the agent's maxTokens cuts below the project's context budget, never above it
  const capped = maxTokens !== null && maxTokens < budget;
  const cut = capped ? maxTokens : budget;
  const { count: servedCount, tokens } = servedWithin(designated, cut);
  const resolutionId = newId("res");
  const now = Date.now();
  const served = designated.slice(0, servedCount);
  const rest = designated.slice(servedCount);
  const overBudget =
    rest.length > 0
      ? {
          contextBudget: { budget: cut, served: servedCount, notServed: rest.length, ...(capped ? { by: "maxTokens" } : {}) },
          notServed: notServedOf(rest),
          overBudget: overBudgetNote(voice, resolutionId, capped),
        }
      : {};
  const next = afterPrepare(
    voice,
    resolutionId,
    designated.some((d) => d.kind === "expertise"),
  );
  // the answer's fields besides the items, each claimed by its digest in the signed manifest (signing/claims.ts)
  const claims = deps.signer?.enabled
    ? claimsJson({ language, tokens, prerequisites, conflicts, ...overBudget, next }, claimsOf(memo, designated, servedCount, overBudget))
    : null;
  const attestation = claims === null ? null : signManifest(deps, resolutionId, project.id, now, memo.itemsJson, claims);
  const writes = resolutionWrites(deps, memo, designated, {
    resolutionId,
    project,
    language,
    tokens,
    author,
    now,
    attestation,
    claims: attestation ? claims : null,
  });
  await deps.database.writeJob({ statements: writes.statements });
  const known = knownBlobs(deps.database);
  for (const d of writes.blobs) known.add(d);
  knownDesignations(deps.database).set(designationId, true);
  const stored = storedTalentsOf(known);
  for (const d of designated) stored.add(d.talent); // each of its blobs was known or is now written

  // over MCP the attestation goes to the tool result's _meta (the route notes it), never to the model
  const tail = {
    prerequisites,
    conflicts,
    tokens,
    ...(attestation && voice.channel === "api" ? { attestation } : {}),
    ...overBudget,
    next,
  };
  return {
    resolutionId,
    served: served.map((d) => d.id),
    notServed: rest.map((d) => d.id),
    tokens,
    attestation,
    digests: Object.fromEntries(served.map((d) => [d.id, d.talent.compactDigest])),
    json: answerJson(
      { resolutionId, language, createdAt: iso(now) },
      servedTalentsJson(memo, designationId, served, voice.channel === "api"),
      tail,
    ),
  };
}

/**
 * The statements of one prepare-task: the designation's items the first time (before the
 * resolution, whose insert trigger counts it once per item in talent_days: migration 0012), the
 * resolution, and the blobs not yet known committed (compact forms, files, manifests).
 */
function resolutionWrites(
  deps: { database: Database; catalog: Catalog; iss?: string },
  memo: DesignationMemo,
  designated: ServableItem[],
  r: {
    resolutionId: string;
    project: { id: string };
    language: string | null;
    tokens: number;
    author: Author;
    now: number;
    attestation: string | null;
    claims: string | null;
  },
): { statements: Statement[]; blobs: string[] } {
  const known = knownBlobs(deps.database);
  const written = new Map<string, string>(); // digest → content of the blobs this job stores
  const putOnce = (content: () => string, digest: string) => {
    if (!known.has(digest) && !written.has(digest)) written.set(digest, content());
  };
  const stored = storedTalentsOf(known);
  for (const d of designated) {
    if (stored.has(d.talent)) continue;
    putOnce(() => d.talent.compact, d.talent.compactDigest);
    for (const f of d.talent.files.values()) putOnce(() => f.content, f.digest);
    const manifest = manifestOf(d.talent);
    putOnce(() => manifest.content, manifest.digest);
  }
  const statements: Statement[] = [];
  // the items in one statement (one per item cost the writer thread a statement execution each), the first time only
  if (!knownDesignations(deps.database).has(memo.id)) statements.push({ sql: memo.sql, args: [memo.id, r.project.id] });
  statements.push({
    sql:
      "INSERT INTO resolutions (id, project_id, language, tokens, catalog_digest, author_type, author_id, via, created_at, " +
      "designation_id, signature, issuer, claims) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    // the signature alone (~150 bytes where the whole JWS was ~2.5 KB): the manifest is written again from the row on read (pinned.ts)
    args: [
      r.resolutionId,
      r.project.id,
      r.language,
      r.tokens,
      deps.catalog.digest,
      r.author.type,
      r.author.id,
      r.author.via,
      r.now,
      memo.id,
      r.attestation ? detach(r.attestation) : null,
      r.attestation ? (deps.iss ?? "") : null,
      r.claims,
    ],
  });
  statements.push(
    ...blobInserts(
      [...written].map(([digest, content]) => ({ digest, content })),
      r.now,
    ),
  );
  return { statements, blobs: [...written.keys()] };
}
