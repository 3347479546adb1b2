/** What the client commands write: every line goes through these, so text from a server reaches the terminal inert. */
import type { CommandLine } from "../cli/args";
import { printable, printableJson } from "../lib/controls";

type Flags = Extract<CommandLine, { kind: "run" }>["flags"];

/** A flag given once or repeated, as a list. */
export const list = (v: Flags[string] | undefined): string[] => (Array.isArray(v) ? v : typeof v === "string" ? [v] : []);
// every line the client writes goes through these three: text from the server (titles, ids,
// messages) reaches the terminal inert, its control characters shown as \u001b (lib/controls.ts)
/** Set while stdout holds what a pipe has not taken yet (its write returned false), until its `drain`. */
let draining: Promise<void> | null = null;
function out(text: string): void {
  if (process.stdout.write(text) || draining) return;
  draining = new Promise((resolve) =>
    process.stdout.once("drain", () => {
      draining = null;
      resolve();
    }),
  );
}
/**
 * Resolves once stdout has handed everything to the OS: `process.exit` drops what a pipe has not taken (a 450 KB
 * `check --json` read by a slow reader arrived as its first 64 KiB).
 */
export const stdoutDrained = (): Promise<void> => draining ?? Promise.resolve();
/** Lines to stdout, made inert. */
export const print = (...lines: string[]): void => out(printable(lines.join("\n")) + "\n");
/** A value as indented JSON to stdout, made inert. */
export const printJson = (value: unknown): void => out(printableJson(JSON.stringify(value, null, 2)) + "\n");
/** A line to stderr, made inert. */
export const note = (text: string): void => void process.stderr.write(printable(text) + "\n");
