/**
 * The content check's cost per KiB (docs/performance.md "Content check"), in process: the shipped
 * catalog's texts (what a real talent costs), then worst cases — the repeated `curl http://a -o x`
 * line an outside test found, and long lines of each pattern's prefix — at sizes doubling from
 * 1 KiB to 128 KiB (the import's limit per file): one line up to 16 KiB (the check's line cap),
 * lines of 16 KiB above. A case stops growing once one run took longer than
 * BENCH_STOP_MS (2,000), so the quadratic and worse checks of an older tree can be measured too:
 * `BENCH_BASE=<checkout>` runs that checkout's src/catalog/contentCheck.ts instead of this one's.
 * BENCH_MAX_KIB (128) caps the sizes; BENCH_PROGRESS=1 prints each row as it is measured.
 */
import { join } from "node:path";
import { embeddedTalents } from "../src/embedded";
import { printTable, ROOT } from "./lib";

type Check = (text: string, opts?: { samples?: ReadonlySet<number> }) => unknown[];

const STOP_MS = Number(process.env.BENCH_STOP_MS ?? 2000);
const MAX_KIB = Number(process.env.BENCH_MAX_KIB ?? 128);

/** The longest line the check reads (src/catalog/contentCheck.ts LINE_CAP): worst cases fill lines up to it. */
const LINE = 16_384;

/** A text of about `kib` KiB: `head`, then `unit` repeated on lines of at most LINE characters. */
function repeated(unit: string, kib: number, head = "# R\n\n"): string {
  const count = Math.max(1, Math.floor((kib * 1024 - head.length) / unit.length));
  const perLine = Math.floor(LINE / unit.length);
  const lines = Array.from({ length: Math.ceil(count / perLine) }, (_, i) => unit.repeat(Math.min(perLine, count - i * perLine)));
  return head + lines.join("\n");
}

/** Each line of a text ended by a URL (every start before it then has to look that far for one). */
const withUrlAtEnds = (text: string) =>
  text
    .split("\n")
    .map((l) => (l.length > 20 ? `${l.slice(0, -12)} https://x.sh` : l))
    .join("\n");

/** The worst cases: lines of each pattern's prefix, one line up to 16 KiB, then lines of 16 KiB. */
const CASES: [string, (kib: number) => string][] = [
  ["curl http://a -o x ", (k) => repeated("curl http://a -o x ", k)],
  ["curl https:// ", (k) => repeated("curl https:// ", k)],
  ["sh $(curl http:// ", (k) => repeated("sh $(curl http:// ", k)],
  ["sh <(curl ", (k) => repeated("sh <(curl ", k)],
  ["sh $(curl ) …, a URL ending each line", (k) => withUrlAtEnds(repeated("sh $(curl ) ", k))],
  ["curl |…, a URL ending each line", (k) => withUrlAtEnds(repeated("curl |", k))],
  ["iex iwr ", (k) => repeated("iex iwr ", k)],
  ["exfiltrate to a", (k) => repeated("exfiltrate to a", k)],
  ["cat .env ", (k) => repeated("cat .env ", k)],
  ["ignore all the ", (k) => repeated("ignore all the ", k)],
  ["64 backticks then text", (k) => repeated(`${"`".repeat(64)}${"a ".repeat(96)}`, k)],
  ["Z x 159 + !", (k) => repeated(`${"Z".repeat(159)}!`, k)],
  ["http:// + .,", (k) => repeated(`see http://${".,".repeat(1000)}a `, k)],
  ["prose", (k) => repeated("Write small functions and name them after the domain. ", k)],
  ["prose with look-alikes", (k) => repeated("Wrіte small functіons — name them after the domaіn. ", k)],
  ["one line (past the cap)", (k) => `# R\n\n${"curl http://a -o x ".repeat(Math.floor((k * 1024) / 19))}`],
];

async function checkerOf(base: string | undefined): Promise<Check> {
  const path = join(base ?? ROOT, "src", "catalog", "contentCheck.ts");
  return ((await import(path)) as { checkContent: Check }).checkContent;
}

/** Milliseconds of one run (the best of `runs`). */
function timed(check: Check, text: string, runs: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    check(text);
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

export async function benchContentCheck(): Promise<void> {
  const base = process.env.BENCH_BASE || undefined;
  const check = await checkerOf(base);
  const texts = Object.values(embeddedTalents());
  const kib = texts.reduce((n, t) => n + t.length, 0) / 1024;
  const t0 = performance.now();
  for (let r = 0; r < 5; r++) for (const t of texts) check(t);
  const catalogMs = (performance.now() - t0) / 5;
  const rows: (string | number)[][] = [["shipped catalog", kib.toFixed(0), catalogMs.toFixed(1), (catalogMs / kib).toFixed(3)]];
  for (const [name, make] of CASES) {
    for (let size = 1; size <= MAX_KIB; size *= 2) {
      const text = make(size);
      const ms = timed(check, text, size <= 16 ? 3 : 1);
      rows.push([name, (text.length / 1024).toFixed(0), ms.toFixed(1), (ms / (text.length / 1024)).toFixed(3)]);
      if (process.env.BENCH_PROGRESS) console.log(rows.at(-1)!.join("  "));
      if (ms > STOP_MS) {
        rows.push([name, `${size * 2}+`, "stopped", `one run > ${STOP_MS} ms`]);
        break;
      }
    }
  }
  printTable(
    `Content check (${base ? `BENCH_BASE=${base}` : "this tree"}): ms per text, best of 3 (1 above 16 KiB)`,
    ["text", "KiB", "ms", "ms/KiB"],
    rows,
  );
}
