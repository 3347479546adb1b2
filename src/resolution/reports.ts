/**
 * Validation reports (`svc_record_validation`; docs/api.md "The agent loop"): exactly one final
 * verdict per private expertise of the resolution, with path:line evidence or the missing
 * elements for a fail. Replays of the identical report return the first answer; the same
 * submissionId with other content is a 409. Recorded in one transaction.
 */
import { touchResolution } from "../journal/dayMemo";
import { iso } from "../lib/time";
import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { reportResults, reports } from "../db/schema";
import { AppError, validationFailed, type Issue } from "../http/errors";
import { resultsDigestOf } from "../signing/claims";
import type { Signer } from "../signing/signer";
import { attach, detach } from "../signing/jws";
import { receiptJson } from "./attestation";
import { newId } from "../lib/ids";
import type { Author } from "./prepare";
import { loadResolution } from "./pinned";

import { VERDICTS, type Verdict } from "./verdicts";

export { VERDICTS, type Verdict };
/** `<file>:<line>` or `<file>:<line>-<line>`. */
export const EVIDENCE_PATTERN = /^[^\s]+:\d+(-\d+)?$/;
export const MAX_RESULTS = 200;

export interface ResultInput {
  id: string;
  verdict: Verdict;
  evidence: string[];
  missing: string[];
  note: string | null;
}

/** Structural checks of the body; returns normalized results. */
export function readReport(body: Record<string, unknown>): { submissionId: string; resolutionId: string; results: ResultInput[] } {
  const issues: Issue[] = [];
  const submissionId = body.submissionId;
  const resolutionId = body.resolutionId;
  if (typeof submissionId !== "string" || submissionId.trim() === "" || submissionId.length > 200)
    issues.push({ path: "submissionId", message: "must be a stable non-empty string of at most 200 characters" });
  if (typeof resolutionId !== "string" || resolutionId === "") issues.push({ path: "resolutionId", message: "is required" });
  const raw = body.expertiseResults;
  if (!Array.isArray(raw))
    issues.push({ path: "expertiseResults", message: "is required: an array with one result per private expertise" });
  else if (raw.length > MAX_RESULTS) issues.push({ path: "expertiseResults", message: `at most ${MAX_RESULTS} results` });
  const results: ResultInput[] = [];
  if (Array.isArray(raw) && raw.length <= MAX_RESULTS) {
    raw.forEach((r: unknown, i) => {
      const at = `expertiseResults[${i}]`;
      if (r === null || typeof r !== "object" || Array.isArray(r))
        return void issues.push({ path: at, message: "must be an object {id, verdict, evidence?, missing?, note?}" });
      const x = r as Record<string, unknown>;
      if (typeof x.id !== "string" || x.id === "") issues.push({ path: `${at}.id`, message: "is required" });
      if (!VERDICTS.includes(x.verdict as Verdict)) issues.push({ path: `${at}.verdict`, message: "must be pass, fail or not_applicable" });
      // a list that is refused is said once, as what it is: never also as an empty one ("a fail needs evidence")
      let listRefused = false;
      const list = (name: "evidence" | "missing"): string[] => {
        const v = x[name];
        if (v === undefined || v === null) return [];
        const problem = !Array.isArray(v)
          ? "must be an array of non-empty strings (at most 100)"
          : v.length > 100
            ? `at most 100 items (got ${v.length})`
            : v.some((s) => typeof s !== "string" || s.length === 0 || s.length > 500)
              ? "must be an array of non-empty strings of at most 500 characters"
              : null;
        if (problem) {
          listRefused = true;
          issues.push({ path: `${at}.${name}`, message: problem });
          return [];
        }
        return v as string[];
      };
      const evidence = list("evidence");
      const missing = list("missing");
      for (const e of evidence)
        if (!EVIDENCE_PATTERN.test(e)) issues.push({ path: `${at}.evidence`, message: `"${e}" is not <file>:<line>` });
      if (x.verdict === "fail" && evidence.length === 0 && missing.length === 0 && !listRefused)
        issues.push({ path: `${at}`, message: "a fail needs evidence (file:line) or the missing elements" });
      if (x.note !== undefined && x.note !== null && (typeof x.note !== "string" || x.note.length > 2000))
        issues.push({ path: `${at}.note`, message: "must be a string of at most 2000 characters" });
      results.push({ id: String(x.id), verdict: x.verdict as Verdict, evidence, missing, note: (x.note as string | undefined) ?? null });
    });
  }
  if (issues.length > 0) throw validationFailed(issues);
  return { submissionId: (submissionId as string).trim(), resolutionId: resolutionId as string, results };
}

/** One result of a report, with its place in the report (a replay answers them in that order). */
const INSERT_RESULT =
  "INSERT INTO report_results (report_id, talent_id, kind, verdict, evidence, missing, note, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

/** Records a report; returns the HTTP status (201 new, 200 replay) and body. */
export async function recordReport(
  database: Database,
  projectId: string,
  author: Author,
  body: Record<string, unknown>,
  /** Signs the receipt (attestation.ts) when given and on. */
  signing: { signer: Signer; iss: string } | null = null,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { submissionId, resolutionId, results } = readReport(body);
  // what tells a replay (same) from a conflict (different), and what the receipt binds (signing/claims.ts)
  const digest = resultsDigestOf(resolutionId, results);
  const findPrior = {
    sql:
      "SELECT id, payload_digest AS digest, response, created_at AS createdAt, signature, issuer FROM reports " +
      "WHERE project_id = ? AND submission_id = ?",
    args: [projectId, submissionId],
  };
  /** The answer to a submissionId already recorded: a replay (same content) or 409 (other content). */
  const answerPrior = async (prior: PriorReport | undefined) => {
    if (!prior) return null;
    if (prior.digest !== digest) {
      throw new AppError(
        "submission_conflict",
        `submissionId "${submissionId}" was already used for a different report; use a new submissionId for a new report.`,
        { submissionId },
      );
    }
    const body = JSON.parse(prior.response) as Record<string, unknown>;
    const attestation = await storedReceipt(database, projectId, resolutionId, prior);
    return { status: 200, body: { ...body, ...(attestation ? { attestation } : {}), replayed: true } };
  };
  const early = await answerPrior(await database.get<PriorReport>(findPrior.sql, findPrior.args));
  if (early) return early;

  const res = await loadResolution(database, projectId, resolutionId);
  const kinds = new Map(res.items.map((i) => [i.talentId, i.kind]));
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
  const unknown = [...counts.keys()].filter((id) => !kinds.has(id));
  if (unknown.length > 0)
    throw new AppError("unknown_talents", `Not served by resolution ${resolutionId}: ${unknown.join(", ")}.`, { ids: unknown });
  const duplicates = [...counts.entries()].filter(([, n]) => n > 1).map(([id]) => id);
  const expertises = res.items.filter((i) => i.kind === "expertise").map((i) => i.talentId);
  const missing = expertises.filter((id) => !counts.has(id));
  if (duplicates.length > 0 || missing.length > 0) {
    const issues: Issue[] = [
      ...missing.map((id) => ({ path: "expertiseResults", message: `one final verdict is required for private expertise ${id}` })),
      ...duplicates.map((id) => ({ path: "expertiseResults", message: `exactly one verdict per talent: ${id} appears more than once` })),
    ];
    throw new AppError(
      "validation_failed",
      `The report needs exactly one final verdict per private expertise of the resolution${missing.length ? ` (missing: ${missing.join(", ")})` : ""}${duplicates.length ? ` (repeated: ${duplicates.join(", ")})` : ""}.`,
      { issues, missing, duplicates },
    );
  }

  const reportId = newId("rep");
  const now = Date.now();
  const summary = { pass: 0, fail: 0, not_applicable: 0 };
  for (const r of results) summary[r.verdict]++;
  const response = {
    reportId,
    submissionId,
    resolutionId,
    recordedAt: iso(now),
    verdicts: results.length,
    expertiseVerdicts: expertises.length,
    summary,
    failing: results.filter((r) => r.verdict === "fail").map((r) => r.id),
    replayed: false,
  };
  const receipt = signing
    ? signing.signer.signJson(
        receiptJson({
          iss: signing.iss,
          reportId,
          submissionId,
          resolutionId,
          projectId,
          recordedAt: now,
          resultsDigest: digest,
          verdicts: results,
        }),
      )
    : null;
  // its signature stored with the answer (not the whole receipt: rebuilt from the row on replay, storedReceipt)
  const signed = receipt ? [detach(receipt), signing!.iss] : [null, null];
  // a concurrent submission with the same submissionId may have landed while we validated:
  // the writer decides again inside the transaction (insert unless it is there)
  const prior = await database.writeJob<PriorReport>({
    unless: findPrior,
    statements: [
      {
        sql:
          "INSERT INTO reports (id, project_id, resolution_id, submission_id, payload_digest, response, author_type, author_id, " +
          "created_at, signature, issuer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        args: [reportId, projectId, resolutionId, submissionId, digest, JSON.stringify(response), author.type, author.id, now, ...signed],
      },
      ...results.map((r, position) => ({
        sql: INSERT_RESULT,
        args: [reportId, r.id, kinds.get(r.id)!, r.verdict, JSON.stringify(r.evidence), JSON.stringify(r.missing), r.note, position],
      })),
    ],
  });
  touchResolution(resolutionId); // its day's memoized verdicts (insights, adoption) are stale
  return (await answerPrior(prior)) ?? { status: 201, body: receipt ? { ...response, attestation: receipt } : response };
}

/** A recorded report as a replay reads it. */
interface PriorReport {
  id: string;
  digest: string;
  response: string;
  createdAt: number;
  signature: string | null;
  issuer: string | null;
}

/**
 * The receipt of a recorded report, or null when it was not signed: whole in `response` before
 * migration sigstore (the replay answers it as it is), since then its signature alone, the payload
 * written again from the row and its results in the order they were recorded.
 */
async function storedReceipt(database: Database, projectId: string, resolutionId: string, prior: PriorReport): Promise<string | null> {
  if (!prior.signature) return null;
  const verdicts = await database.all<{ id: string; verdict: string }>(
    "SELECT talent_id AS id, verdict FROM report_results WHERE report_id = ? ORDER BY position",
    [prior.id],
  );
  const body = JSON.parse(prior.response) as { submissionId: string };
  const receipt = {
    iss: prior.issuer ?? "",
    reportId: prior.id,
    submissionId: body.submissionId,
    resolutionId,
    projectId,
    recordedAt: prior.createdAt,
    resultsDigest: prior.digest,
    verdicts,
  };
  return attach(prior.signature, receiptJson(receipt));
}

/** Reports recorded for a resolution, oldest first, with their verdicts (dashboard). */
export async function listReports(database: Database, projectId: string, resolutionId: string) {
  const rows = await database.db
    .select()
    .from(reports)
    .where(and(eq(reports.projectId, projectId), eq(reports.resolutionId, resolutionId)))
    .orderBy(reports.createdAt);
  const out = [];
  for (const r of rows) {
    const results = await database.db.select().from(reportResults).where(eq(reportResults.reportId, r.id)).orderBy(reportResults.position);
    out.push({
      reportId: r.id,
      submissionId: r.submissionId,
      recordedAt: iso(r.createdAt),
      author: { type: r.authorType, id: r.authorId },
      results: results.map((x) => ({
        talentId: x.talentId,
        kind: x.kind,
        verdict: x.verdict,
        evidence: x.evidence,
        missing: x.missing,
        note: x.note,
      })),
    });
  }
  return out;
}
