/**
 * Signing's cost: prepare-task (64 connections) and the report route (10 connections, a new
 * submissionId per request) on two servers of the built binary (`bun run build` first), catalog and machine, one with
 * SIGNING on and one off, measured in interleaved rounds (wrk -t1). Target: signing on within
 * 10% of off. BENCH_SECONDS (default 5) per run, BENCH_ROUNDS (default 3) pairs. Besides throughput: the
 * server's CPU per request (/proc stat), the bytes of one answer, and the bytes it wrote to disk per
 * request (/proc io write_bytes: the WAL and its checkpoints).
 */
import { generateKeyPairSync, sign } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesWritten, cpuSeconds, generateCatalog, printTable, runWrk, seedInstalled, startBinaryIn } from "./lib";

const INSTALLED = Array.from({ length: 50 }, (_, i) => `gen-talent-${1000 + i}`);
const DESIGNATED = INSTALLED.slice(10, 20);

/** The built binary with `signing` on or off; its base URL, key and a resolution to report on. */
async function server(dir: string, talents: string, signing: boolean) {
  const running = await startBinaryIn(join(dir, signing ? "on" : "off"), { TALENTS_DIR: talents, SIGNING: String(signing) });
  const base = running.base;
  const { api } = await seedInstalled(base, INSTALLED);
  const answer = await fetch(`${base}/api/prepare-task`, { method: "POST", headers: api, body: JSON.stringify({ talentIds: DESIGNATED }) });
  const prepared = (await answer.json()) as { resolutionId: string; attestation?: string };
  if (Boolean(prepared.attestation) !== signing) throw new Error(`signing ${signing}: attestation ${Boolean(prepared.attestation)}`);
  return { running, base, api, resolutionId: prepared.resolutionId, attestation: prepared.attestation ?? "" };
}

/** The bytes of one answer to `request` (a report with a fresh submissionId). */
async function answerBytes(base: string, request: { method: string; path: string; headers: Record<string, string>; body: string }) {
  const body = request.body.replace("%d", `size-${Math.random()}`);
  const answer = await fetch(`${base}${request.path}`, { method: request.method, headers: request.headers, body });
  return (await answer.arrayBuffer()).byteLength;
}

/**
 * The floor: one Ed25519 signature (node:crypto, as the service signs) over a signing input the
 * size of the manifest's, alone in this process (µs, median of 5 runs of 2,000).
 */
function signatureMicros(inputBytes: number): number {
  const { privateKey } = generateKeyPairSync("ed25519");
  const input = Buffer.alloc(inputBytes, 97);
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < 2000; i++) sign(null, input, privateKey);
    runs.push(((performance.now() - t0) / 2000) * 1000);
  }
  return runs.sort((a, b) => a - b)[2]!;
}

export async function benchSigning(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const dir = mkdtempSync(join(tmpdir(), "talentd-signing-"));
  const talents = join(dir, "talents");
  generateCatalog(talents, 5000);
  const servers = [await server(dir, talents, true), await server(dir, talents, false)];
  const attestation = servers[0]!.attestation;
  const rows: (string | number)[][] = [];
  const totals = new Map<string, number[]>();
  const cpus = new Map<string, number[]>();
  try {
    for (let round = 0; round < rounds; round++) {
      for (const route of ["prepare-task", "reports"] as const) {
        for (const [i, s] of (round % 2 ? [...servers].reverse() : servers).entries()) {
          const on = s === servers[0];
          const request =
            route === "prepare-task"
              ? { method: "POST", path: "/api/prepare-task", headers: s.api, body: JSON.stringify({ talentIds: DESIGNATED }) }
              : {
                  method: "POST",
                  path: "/api/validation/reports",
                  headers: s.api,
                  body: JSON.stringify({
                    submissionId: "b-%d",
                    resolutionId: s.resolutionId,
                    expertiseResults: [{ id: DESIGNATED[0], verdict: "pass" }],
                  }),
                };
          const connections = route === "prepare-task" ? 64 : 10;
          await runWrk(s.base, [request], { connections, seconds: 1, dir, name: `warm-${i}` });
          const [cpu0, disk0] = [cpuSeconds(s.running.pid), bytesWritten(s.running.pid)];
          const w = await runWrk(s.base, [request], { connections, seconds, dir, name: `${route}-${i}` });
          const cpuUs = ((cpuSeconds(s.running.pid) - cpu0) / w.requests) * 1e6;
          const diskB = (bytesWritten(s.running.pid) - disk0) / w.requests;
          const size = await answerBytes(s.base, request);
          const row = [Math.round(w.rps), w.p50.toFixed(2), w.p99.toFixed(2), Math.round(cpuUs), size, Math.round(diskB), w.non2xx];
          rows.push([round + 1, route, on ? "on" : "off", ...row]);
          const key = `${route} ${on ? "on" : "off"}`;
          totals.set(key, [...(totals.get(key) ?? []), w.rps]);
          cpus.set(key, [...(cpus.get(key) ?? []), cpuUs]);
        }
      }
    }
  } finally {
    for (const s of servers) await s.running.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    "Signing: on against off, interleaved (req/s, ms; server CPU µs per request; bytes of one answer; bytes written to disk per request)",
    ["round", "route", "signing", "req/s", "p50", "p99", "CPU µs/req", "answer B", "disk B/req", "non-2xx"],
    rows,
  );
  const mean = (m: Map<string, number[]>, k: string) => (m.get(k) ?? []).reduce((a, b) => a + b, 0) / (m.get(k)?.length || 1);
  printTable(
    "Signing on / off (mean req/s, mean CPU µs per request; target ≥ 0.90)",
    ["route", "on", "off", "ratio", "CPU on", "CPU off"],
    (["prepare-task", "reports"] as const).map((r) => [
      r,
      Math.round(mean(totals, `${r} on`)),
      Math.round(mean(totals, `${r} off`)),
      (mean(totals, `${r} on`) / mean(totals, `${r} off`)).toFixed(2),
      Math.round(mean(cpus, `${r} on`)),
      Math.round(mean(cpus, `${r} off`)),
    ]),
  );
  // what signing cannot go below: the signature alone, against the whole request's CPU unsigned
  const inputBytes = attestation.lastIndexOf(".");
  const sig = signatureMicros(inputBytes);
  const off = mean(cpus, "prepare-task off");
  printTable(
    "The floor of prepare-task: one Ed25519 signature over its signing input, alone (µs), and the ratio it leaves if signing cost nothing else",
    ["signing input B", "signature µs", "CPU off µs/req", "best ratio (off / (off + signature))"],
    [[inputBytes, sig.toFixed(1), Math.round(off), (off / (off + sig)).toFixed(2)]],
  );
}
