/**
 * Tokens of one agent loop (docs/performance.md "Tokens of one agent loop"): the server run from
 * source (`bun src/main.ts serve`, the shipped catalog; no build needed), a project with a key
 * of every scope, and the loop of bench/tokenLoop.ts driven by SDK v2's client at 2026-07-28 over
 * Streamable HTTP, for six talents and for thirteen. Prints, per step, the characters the model is
 * shown and their tokens (characters / 4), and beside them what it is not shown
 * (`structuredContent`, `_meta`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { printTable, ROOT, seedProject, startBinaryIn } from "./lib";
import { measureLoop, shownTotal, SIX, THIRTEEN, tokensOf, type LoopStep } from "./tokenLoop";

async function connect(base: string, projectId: string, key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${projectId}`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: "bench-tokens", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(transport);
  return client;
}

function print(title: string, steps: LoopStep[]): void {
  const rows = steps.map((s) => [s.step, s.shown, tokensOf(s.shown), s.structured, s.meta]);
  const total = shownTotal(steps);
  const sum = (k: "structured" | "meta") => steps.reduce((n, s) => n + s[k], 0);
  rows.push(["total", total, tokensOf(total), sum("structured"), sum("meta")]);
  printTable(title, ["step", "characters", "tokens", "structuredContent (not counted)", "_meta (not counted)"], rows);
}

export async function benchTokens(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "talentd-tokens-"));
  const server = await startBinaryIn(dir, {}, [process.execPath, join(ROOT, "src", "main.ts")]);
  try {
    for (const talents of [SIX, THIRTEEN]) {
      // a fresh project each: the install step installs into an empty selection
      const s = await seedProject(server.base);
      const client = await connect(server.base, s.projectId, s.key);
      try {
        print(`Tokens of one agent loop, ${talents.length} talents (${talents.join(", ")})`, await measureLoop(client, talents));
      } finally {
        await client.close();
      }
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
