/**
 * The client commands over the lock file (docs/design.md "The binary and its client"): `talentd lock` writes it, `talentd ci
 * verify` compares it (the selection and the signing keys) with the server, `talentd verify` checks a saved answer against the
 * keys it recorded (or --keys FILE, or the server's set).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import type { CommandLine } from "../cli/args";
import type { SigningJwks } from "../signing/jws";
import { call, DEFAULT_TIMEOUT_S, serverOptions } from "./api";
import { repoRoot } from "./git";
import { compareKeys, compareLock, LOCK_PATH, lockOf, parseLock, renderLock, type LockEntry } from "./lock";
import { note, print, printJson } from "./output";
import { verifyFile } from "./verify";

type Run = Extract<CommandLine, { kind: "run" }>;

/** `talentd verify FILE`: the key source on one line, then the verdict (stdout when valid, stderr when not). */
export async function verifyCommand(cli: Run, cwd: string): Promise<number> {
  const lock = await lockFile(cli, cwd);
  const url = typeof cli.flags.url === "string" ? cli.flags.url : process.env.TALENTD_URL;
  const seconds = Number(typeof cli.flags.timeout === "string" ? cli.flags.timeout : (process.env.TALENTD_TIMEOUT ?? DEFAULT_TIMEOUT_S));
  const r = await verifyFile(
    cli.args[0]!,
    {
      keysFile: typeof cli.flags.keys === "string" ? cli.flags.keys : null,
      lockPath: lock.file,
      lockShown: lock.shown,
      server: url?.trim() ? url.trim() : null,
      timeoutMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_TIMEOUT_S * 1000,
    },
    cwd,
    typeof cli.flags.resolution === "string" ? cli.flags.resolution : null,
  );
  if (r.keys) note(`talentd verify: ${r.keys}`);
  (r.code === 0 ? print : note)(`talentd verify: ${r.line}`);
  return r.code;
}

interface DoctorSelection {
  healthy: boolean;
  projectId: string;
  talents: LockEntry[];
  missingPrerequisites: { id: string; requiredBy: string[]; inCatalog: boolean }[];
  conflicts: { a: string; b: string }[];
  disabledDependencies: { id: string; requiredBy: string[] }[];
  unservable: { id: string; kind: string; reason: string }[];
  /** Absent from an older server. */
  requiredByPolicy?: { id: string; problem: string }[];
}

async function lockFile(cli: Run, cwd: string): Promise<{ file: string; shown: string }> {
  if (typeof cli.flags.lock === "string") return { file: resolve(cwd, cli.flags.lock), shown: cli.flags.lock };
  const root = (await repoRoot(cwd)) ?? cwd;
  const file = resolve(root, LOCK_PATH);
  return { file, shown: relative(cwd, file) || LOCK_PATH };
}

/** What both commands read: the lock file's place, the server's selection and its signing keys (null from an older server). */
async function lockInputs(cli: Run, cwd: string) {
  const server = serverOptions(cli.flags, process.env);
  const place = await lockFile(cli, cwd);
  const [doctor, keys] = await Promise.all([
    call<DoctorSelection>(server, "GET", "/api/doctor?include=selection"),
    call<SigningJwks | null>(server, "GET", "/.well-known/jwks.json").catch(() => null),
  ]);
  return { ...place, doctor, keys };
}

export async function lockCommand(cli: Run, cwd: string): Promise<number> {
  const { file, shown, doctor, keys } = await lockInputs(cli, cwd);
  const text = renderLock(lockOf(doctor, keys ?? undefined));
  const before = existsSync(file) ? readFileSync(file, "utf8") : null;
  if (before !== text) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  const active = doctor.talents.filter((t) => t.state === "active").length;
  if (cli.flags.json)
    printJson({ file: shown, changed: before !== text, project: doctor.projectId, talents: doctor.talents.length, active });
  else
    print(
      `${before === text ? "unchanged" : "wrote"} ${shown}: ${doctor.talents.length} talent(s) (${active} active) of project ` +
        `${doctor.projectId}; commit it`,
    );
  if (!doctor.healthy) note("talentd lock: the selection has problems that talentd ci verify will report (run it to see them)");
  return 0;
}

export async function ciVerify(cli: Run, cwd: string): Promise<number> {
  const { file, shown, doctor, keys } = await lockInputs(cli, cwd);
  const problems: string[] = [];
  for (const m of doctor.missingPrerequisites)
    problems.push(`missing prerequisite: ${m.id} (required by ${m.requiredBy.join(", ")}${m.inCatalog ? "" : "; not in the catalog"})`);
  for (const d of doctor.disabledDependencies) problems.push(`disabled prerequisite: ${d.id} (required by ${d.requiredBy.join(", ")})`);
  for (const c of doctor.conflicts) problems.push(`conflict: ${c.a} × ${c.b} are both active`);
  for (const u of doctor.unservable) problems.push(`unservable: ${u.id} (${u.reason})`);
  for (const r of doctor.requiredByPolicy ?? [])
    problems.push(`required by the organization's policy: ${r.id} is ${r.problem === "missing" ? "not installed" : r.problem}`);
  const server_ = lockOf(doctor);
  let lockProblems: string[];
  if (!existsSync(file)) lockProblems = [`no lock file at ${shown}: run talentd lock and commit it`];
  else {
    const parsed = parseLock(readFileSync(file, "utf8"));
    lockProblems =
      "problem" in parsed
        ? [`${shown} ${parsed.problem}`]
        : [...compareLock(parsed, server_), ...compareKeys(parsed.signingKeys, keys)].map((d) => `lock: ${d}`);
  }
  const all = [...problems, ...lockProblems];
  if (cli.flags.json) {
    printJson({
      ok: all.length === 0,
      project: doctor.projectId,
      doctor: { healthy: doctor.healthy, problems },
      lock: { file: shown, differences: lockProblems },
    });
  } else {
    for (const p of all) print(p);
    if (all.length === 0)
      print(`talentd ci verify: ok: ${doctor.talents.length} talent(s) match ${shown}; no missing prerequisite, no conflict`);
    else
      note(
        `talentd ci verify: ${all.length} problem(s)` +
          (lockProblems.length > 0 && problems.length === 0
            ? ": if the change to the selection is intended, run talentd lock and commit the lock file"
            : ""),
      );
  }
  return all.length === 0 ? 0 : 1;
}
