/**
 * Scenario tables for HTTP tests: rows of `{ name?, method, path, as?, body?, status, code? }`,
 * each its own test() against the app of a shared setup, so a failing row is named in the
 * report and the others still run. `path` and the strings of `body` may hold `{id}` placeholders
 * filled from the setup's `ids`; `as` names one of the setup's clients (none: an anonymous browser). `every` adds the
 * checks every row shares (nothing of another organization in the body, …); `after` runs once
 * the rows are done (nothing changed).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { type TestEnv, WebClient } from "./helpers";

/** One request and the answer it must get. */
export interface ScenarioRow {
  /** The test's name; default `METHOD path → status code`. */
  name?: string;
  method: string;
  /** Relative to the base URL; `{key}` is replaced by the setup's `ids[key]` (in the body's strings too). */
  path: string;
  /** The setup's client that sends it; absent: an anonymous browser (no session). */
  as?: string;
  body?: unknown;
  status: number;
  /** The body's `error` code, when the answer is a failure. */
  code?: string;
}

/** What a table's setup makes once for all its rows. */
export interface ScenarioSetup {
  env: TestEnv;
  clients?: Record<string, WebClient>;
  ids?: Record<string, string>;
}

/** An answer as WebClient.json gives it. */
export type ScenarioAnswer = Awaited<ReturnType<WebClient["json"]>>;

/** `path` with its `{key}` placeholders filled. */
export function fillPath(path: string, ids: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, key: string) => {
    const id = ids[key];
    if (id === undefined) throw new Error(`the scenario path ${path} names {${key}}, which the setup's ids do not hold`);
    return id;
  });
}

/** `body` with the `{key}` placeholders of its strings filled, at any depth. */
export function fillBody(body: unknown, ids: Record<string, string> = {}): unknown {
  if (typeof body === "string") return fillPath(body, ids);
  if (Array.isArray(body)) return body.map((v) => fillBody(v, ids));
  if (body && typeof body === "object") return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, fillBody(v, ids)]));
  return body;
}

/** The default name of a row. */
export const rowName = (row: ScenarioRow): string =>
  row.name ?? `${row.method} ${row.path} → ${row.status}${row.code ? ` ${row.code}` : ""}`;

/** Registers a describe() of one test() per row; call it at the top level of a test file (or inside a describe). */
export function scenarioTable<S extends ScenarioSetup>(
  title: string,
  setup: () => Promise<S>,
  rows: readonly ScenarioRow[],
  opts: { every?: (answer: ScenarioAnswer, s: S, row: ScenarioRow) => void; after?: [name: string, check: (s: S) => Promise<void>] } = {},
): void {
  describe(title, () => {
    let s: S;
    beforeAll(async () => {
      s = await setup();
    });
    for (const row of rows) {
      test(rowName(row), async () => {
        const client = row.as === undefined ? new WebClient(s.env) : s.clients?.[row.as];
        if (!client) throw new Error(`the scenario ${rowName(row)} is sent as ${row.as}, a client the setup did not make`);
        const path = fillPath(row.path, s.ids);
        const answer = await client.json(row.method, path, fillBody(row.body, s.ids));
        const said = `${row.method} ${path} → ${answer.status}${row.code === undefined ? "" : ` ${answer.body?.error}`}`;
        expect(said).toBe(`${row.method} ${path} → ${row.status}${row.code === undefined ? "" : ` ${row.code}`}`);
        opts.every?.(answer, s, row);
      });
    }
    if (opts.after) {
      const [name, check] = opts.after;
      test(name, () => check(s));
    }
  });
}
