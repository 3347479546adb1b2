/** @jsxImportSource hono/jsx */
/**
 * What the phone's cell labels cost a page (docs/performance.md "Table cell labels"), in process:
 * a table of 10, 50 and 200 Activity-like rows (five columns, links, a list in the last cell)
 * rendered by the kit's DataTable (rows rendered, then each cell given its column's `data-label`:
 * src/ui/table.tsx) against the same table without the labelling pass, interleaved round by round
 * so the machine's other load falls on both; and `labelCells` alone. Medians of BENCH_ROUNDS (15)
 * rounds of BENCH_RENDERS (200) renders each.
 */
import type { Child } from "hono/jsx";
import { DataTable, labelCells } from "../src/ui/table";
import { printTable } from "./lib";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const RENDERS = Number(process.env.BENCH_RENDERS ?? 200);
const COLUMNS = ["When (UTC)", "Who", "What", "Client", "Result"];

function rows(n: number): Child[] {
  return Array.from({ length: n }, (_, i) => (
    <tr class={i % 7 === 0 ? "failing" : undefined}>
      <td class="small">2026-12-02 03:{String(i % 60).padStart(2, "0")}:37</td>
      <td class="small">
        continuous integration of the payments service <span class="muted">(key)</span>
      </td>
      <td>
        prepared a task with <a href="/catalog/typescript-strict">typescript-strict</a>,{" "}
        <a href="/catalog/javascript-base">javascript-base</a>
      </td>
      <td class="small" title="a-rather-long-agent-name/12.3.4">
        a-rather-long-agent-name/12.3.4
      </td>
      <td>
        <span class={i % 7 === 0 ? "error" : undefined}>{i % 7 === 0 ? "unknown talent" : "ok"}</span>
        <ul class="outcome">
          <li>TS-001 pass</li>
          <li>TS-002 fail: src/a.ts:1</li>
        </ul>
      </td>
    </tr>
  ));
}

/** The same table without the labelling pass: the markup DataTable drew before. */
function Plain(props: { children: Child }) {
  return (
    <div class="scroll-x" role="region" aria-label="Latest actions" tabindex={0}>
      <table>
        <caption class="visually-hidden">Latest actions</caption>
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th scope="col">{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** Microseconds per call of `f`, over RENDERS calls. */
function perCall(f: () => unknown): number {
  const t = performance.now();
  for (let i = 0; i < RENDERS; i++) f();
  return ((performance.now() - t) * 1000) / RENDERS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchTableLabels(): Promise<void> {
  const table: (string | number)[][] = [];
  for (const n of [10, 50, 200]) {
    const r = rows(n);
    const html = String(<>{r}</>);
    const plain: number[] = [];
    const labelled: number[] = [];
    const pass: number[] = [];
    for (let k = 0; k < ROUNDS; k++) {
      plain.push(perCall(() => String(<Plain>{r}</Plain>)));
      labelled.push(
        perCall(() =>
          String(
            <DataTable caption="Latest actions" columns={COLUMNS}>
              {r}
            </DataTable>,
          ),
        ),
      );
      pass.push(perCall(() => labelCells(html, COLUMNS)));
    }
    const [p, l, s] = [median(plain), median(labelled), median(pass)];
    table.push([n, html.length, p.toFixed(0), l.toFixed(0), s.toFixed(0), `${(((l - p) / p) * 100).toFixed(0)}%`]);
  }
  printTable(
    `Table cell labels: µs per render, medians of ${ROUNDS} rounds of ${RENDERS}`,
    ["rows", "rows' HTML (chars)", "without labels", "DataTable (labelled)", "labelCells alone", "added"],
    table,
  );
}
