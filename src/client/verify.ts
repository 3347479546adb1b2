/**
 * `talentd verify FILE`: checks offline (no server) that a saved answer of the service — a
 * prepare-task answer, a playbook, a report's receipt, or a bare compact JWS — carries a valid
 * signature of the instance's keys, and that what the answer says matches what was signed: the
 * resolution, each talent's version and digest, and the compact text served (its digest). The keys
 * come from --keys FILE (the JWK Set of /.well-known/jwks.json, or a lock file that recorded
 * them) or, by default, from the repository's lock file.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { digestOf } from "../lib/crypto";
import { type SigningJwks, verifyCompact } from "../signing/jws";

/** The key set of a file: a JWK Set, or a lock file's `signingKeys`; a problem line otherwise. */
export function keySetOf(text: string, shown: string): SigningJwks | { problem: string } {
  let v: any;
  try {
    v = JSON.parse(text);
  } catch {
    return { problem: `${shown} is not JSON` };
  }
  const set = Array.isArray(v?.keys) ? v : v?.signingKeys;
  if (!set || !Array.isArray(set.keys))
    return { problem: `${shown} holds no key set (a JWK Set, or a lock file written with signing keys)` };
  return set as SigningJwks;
}

interface SignedItem {
  id: string;
  version: string;
  digest: string;
}

/** Differences between an answer's talents (id, version, digest, compact text) and the signed items. */
function talentMismatches(talents: unknown, items: SignedItem[]): string[] {
  if (!Array.isArray(talents)) return [];
  const signed = new Map(items.map((i) => [i.id, i]));
  const out: string[] = [];
  for (const t of talents as { id?: string; version?: string; digest?: string; compact?: string }[]) {
    const s = signed.get(String(t.id));
    if (!s) out.push(`${t.id} is not in the signed resolution`);
    else if (t.version !== undefined && t.version !== s.version) out.push(`${t.id}: version ${t.version}, signed ${s.version}`);
    else if (t.digest !== undefined && t.digest !== s.digest) out.push(`${t.id}: digest ${t.digest}, signed ${s.digest}`);
    else if (typeof t.compact === "string" && digestOf(t.compact) !== s.digest)
      out.push(`${t.id}: the served text differs from what was signed`);
  }
  return out;
}

/** The one-line verdict on a saved answer's text: ok and what it proves, or why not. */
export function verifyAnswer(text: string, keys: SigningJwks): { ok: boolean; line: string } {
  let answer: Record<string, unknown> | null = null;
  let jws = text.trim();
  if (jws.startsWith("{")) {
    try {
      answer = JSON.parse(jws);
    } catch {
      return { ok: false, line: "the file is neither JSON nor a compact JWS" };
    }
    if (typeof answer?.attestation !== "string")
      return { ok: false, line: "the answer carries no attestation (signed by an instance with SIGNING on?)" };
    jws = answer.attestation;
  }
  const v = verifyCompact(jws, keys);
  if (!v.ok) return { ok: false, line: v.reason };
  const p = v.payload;
  const when = new Date(Number(p.iat) * 1000).toISOString();
  const problems: string[] = [];
  for (const field of ["resolutionId", "submissionId", "reportId"] as const)
    if (answer && answer[field] !== undefined && answer[field] !== p[field])
      problems.push(`${field} ${String(answer[field])}, signed ${String(p[field])}`);
  if (p.typ === "talentd.resolution") {
    const items = (p.items ?? []) as SignedItem[];
    problems.push(...talentMismatches(answer?.talents, items), ...talentMismatches(answer?.obligations, items));
    if (problems.length) return { ok: false, line: `does not match its signature: ${problems.join("; ")}` };
    return {
      ok: true,
      line: `resolution ${p.resolutionId} of project ${p.projectId}: ${items.length} talent(s), signed by ${v.kid} at ${when}`,
    };
  }
  if (p.typ === "talentd.receipt") {
    const verdicts = (p.verdicts ?? []) as unknown[];
    if (answer && typeof answer.verdicts === "number" && answer.verdicts !== verdicts.length)
      problems.push(`${answer.verdicts} verdicts, signed ${verdicts.length}`);
    if (problems.length) return { ok: false, line: `does not match its signature: ${problems.join("; ")}` };
    return {
      ok: true,
      line: `receipt of report ${p.submissionId} on ${p.resolutionId}: ${verdicts.length} verdict(s), signed by ${v.kid} at ${when}`,
    };
  }
  return { ok: false, line: `signed, but not a talentd resolution or receipt (typ ${String(p.typ)})` };
}

/** Reads FILE and the key set (given, or the lock file's); the verdict line and exit code (0 valid, 1 not, 2 usage). */
export function verifyFile(file: string, keysFile: string | null, lockPath: string, cwd: string): { code: number; line: string } {
  const path = resolve(cwd, file);
  if (!existsSync(path)) return { code: 2, line: `${file}: no such file` };
  const keysPath = keysFile ? resolve(cwd, keysFile) : lockPath;
  if (!existsSync(keysPath))
    return { code: 2, line: `no key set: give --keys FILE (the JWK Set of /.well-known/jwks.json) or run talentd lock` };
  const keys = keySetOf(readFileSync(keysPath, "utf8"), keysFile ?? lockPath);
  if ("problem" in keys) return { code: 2, line: keys.problem };
  const r = verifyAnswer(readFileSync(path, "utf8"), keys);
  return { code: r.ok ? 0 : 1, line: `${file}: ${r.ok ? "valid" : "NOT valid"}: ${r.line}` };
}
