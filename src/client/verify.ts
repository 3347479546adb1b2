/**
 * `talentd verify FILE`: checks that a saved answer of the service — a prepare-task answer, a
 * playbook, a report's answer with its receipt, or a bare compact JWS — carries a valid signature
 * of the instance's keys, and that every field the answer's reader acts on is what was signed
 * (verifyAnswer.ts; docs/api.md "What verify refuses"). The keys come from --keys FILE (a JWK Set
 * of /.well-known/jwks.json, or a lock file that recorded them), else the repository's lock file,
 * else the server's published set (TALENTD_URL); the source used is printed.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ManifestClaims } from "../signing/claims";
import { type SigningJwks, verifyCompact } from "../signing/jws";
import { bindingProblems, playbookProblems, prepareProblems, receiptProblems } from "./verifyAnswer";

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

/** One line naming where the keys came from, how many and which: `keys: .talentd/lock.json (2 keys, kid abc…, def…)`. */
export function keysLine(source: string, keys: SigningJwks): string {
  const kids = keys.keys.map((k) => `${String(k.kid).slice(0, 12)}…`).join(", ");
  return `keys: ${source} (${keys.keys.length} key${keys.keys.length === 1 ? "" : "s"}${kids ? `, kid ${kids}` : ""})`;
}

const fail = (line: string) => ({ ok: false, line });

/** The one-line verdict on a saved answer's text: ok and what it proves, or why not. */
export function verifyAnswer(
  text: string,
  keys: SigningJwks,
  /** The verified manifest of the resolution a receipt should belong to (--resolution FILE). */
  resolution?: Record<string, unknown>,
): { ok: boolean; line: string; payload?: Record<string, unknown> } {
  let answer: Record<string, unknown> | null = null;
  let jws = text.trim();
  if (jws.startsWith("{")) {
    try {
      answer = JSON.parse(jws);
    } catch {
      return fail("the file is neither JSON nor a compact JWS");
    }
    if (typeof answer?.attestation !== "string") return fail("the answer carries no attestation (signed by an instance with SIGNING on?)");
    jws = answer.attestation;
  }
  const v = verifyCompact(jws, keys);
  if (!v.ok) return fail(v.reason);
  const p = v.payload;
  const when = new Date(Number(p.iat) * 1000).toISOString();
  const refused = (problems: string[]) => fail(`does not match its signature: ${problems.join("; ")}`);
  if (p.typ === "talentd.resolution") {
    const items = (Array.isArray(p.items) ? p.items : []) as { id: string; kind: string; version: string; digest: string }[];
    const claims = p.claims as ManifestClaims | undefined;
    const what = `resolution ${p.resolutionId} of project ${p.projectId}: ${items.length} talent(s)`;
    const by = `signed by ${v.kid} at ${when}`;
    if (resolution) return fail("--resolution applies to a report's answer, not to a resolution's");
    if (!answer) return { ok: true, line: `${what}, ${by} (a bare JWS: only its payload is proven)`, payload: p };
    const problems: string[] = [];
    for (const f of ["resolutionId", "createdAt"] as const)
      if (answer[f] !== p[f]) problems.push(`${f} ${String(answer[f] ?? "is missing")}, signed ${String(p[f])}`);
    if ("reportId" in answer) problems.push("a resolution's signature is attached to a report's answer");
    else if ("obligations" in answer) problems.push(...playbookProblems(answer, items, claims));
    else problems.push(...prepareProblems(answer, items, claims));
    if (problems.length) return refused(problems);
    const kind = "obligations" in answer ? "playbook" : "prepare-task answer";
    const covered = claims ? "" : " (signed before claims: only the talents are proven, not prerequisites, conflicts, next or rules)";
    return { ok: true, line: `${what} (${kind}), ${by}${covered}`, payload: p };
  }
  if (p.typ === "talentd.receipt") {
    const verdicts = (Array.isArray(p.verdicts) ? p.verdicts : []) as unknown[];
    const what = `receipt of report ${p.submissionId} on ${p.resolutionId}: ${verdicts.length} verdict(s), signed by ${v.kid} at ${when}`;
    const problems = [...(answer ? receiptProblems(answer, p) : []), ...(resolution ? bindingProblems(answer, p, resolution) : [])];
    if (problems.length) return refused(problems);
    const bound = resolution ? ` (of the resolution given)` : "";
    return { ok: true, line: answer ? `${what}${bound}` : `${what}${bound} (a bare JWS: only its payload is proven)` };
  }
  return fail(`signed, but not a talentd resolution or receipt (typ ${String(p.typ)})`);
}

/** Where the keys come from: --keys FILE, else the lock file (when it records keys), else the server's key set. */
export interface KeySources {
  keysFile: string | null;
  lockPath: string;
  lockShown: string;
  /** The server's base URL (TALENTD_URL or --url), or null. */
  server: string | null;
  timeoutMs: number;
}

/** The key set and the line naming its source, or a problem line (exit 2). */
export async function keysFrom(s: KeySources, cwd: string): Promise<{ keys: SigningJwks; line: string } | { problem: string }> {
  if (s.keysFile) {
    const path = resolve(cwd, s.keysFile);
    if (!existsSync(path)) return { problem: `--keys ${s.keysFile}: no such file` };
    const keys = keySetOf(readFileSync(path, "utf8"), s.keysFile);
    return "problem" in keys ? keys : { keys, line: keysLine(s.keysFile, keys) };
  }
  if (existsSync(s.lockPath)) {
    const keys = keySetOf(readFileSync(s.lockPath, "utf8"), s.lockShown);
    if (!("problem" in keys)) return { keys, line: keysLine(s.lockShown, keys) };
    if (!s.server) return keys;
  }
  if (!s.server)
    return { problem: "no key set: give --keys FILE (the JWK Set of /.well-known/jwks.json), run talentd lock, or set TALENTD_URL" };
  const url = `${s.server.replace(/\/+$/, "")}/.well-known/jwks.json`;
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(s.timeoutMs), headers: { accept: "application/jwk-set+json" } });
    if (!r.ok) return { problem: `${url}: ${r.status}` };
    const keys = keySetOf(await r.text(), url);
    return "problem" in keys ? keys : { keys, line: keysLine(url, keys) };
  } catch (e) {
    return { problem: `${url}: ${(e as Error).message}` };
  }
}

/**
 * Reads FILE and the key set; the key source's line, the verdict line and the exit code (0 valid, 1 not, 2 usage).
 * `resolutionFile`: a report's answer must belong to that resolution (itself verified first).
 */
export async function verifyFile(
  file: string,
  sources: KeySources,
  cwd: string,
  resolutionFile: string | null = null,
): Promise<{ code: number; keys: string | null; line: string }> {
  const path = resolve(cwd, file);
  if (!existsSync(path)) return { code: 2, keys: null, line: `${file}: no such file` };
  const other = resolutionFile ? resolve(cwd, resolutionFile) : null;
  if (other && !existsSync(other)) return { code: 2, keys: null, line: `--resolution ${resolutionFile}: no such file` };
  const k = await keysFrom(sources, cwd);
  if ("problem" in k) return { code: 2, keys: null, line: k.problem };
  let resolution: Record<string, unknown> | undefined;
  if (other) {
    const r = verifyAnswer(readFileSync(other, "utf8"), k.keys);
    if (!r.ok || r.payload?.typ !== "talentd.resolution")
      return { code: 1, keys: k.line, line: `${resolutionFile}: NOT valid: ${r.ok ? "not a resolution's answer" : r.line}` };
    resolution = r.payload;
  }
  const r = verifyAnswer(readFileSync(path, "utf8"), k.keys, resolution);
  return { code: r.ok ? 0 : 1, keys: k.line, line: `${file}: ${r.ok ? "valid" : "NOT valid"}: ${r.line}` };
}
