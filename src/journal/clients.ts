/**
 * The development tool behind a trace event, in words: the journal keeps the raw label (the MCP
 * `clientInfo` name and version, or the User-Agent), and every view names it through this one map.
 * The talentd client says which of its runs called (`talentd-client/<version> (hook|ci|check)`,
 * src/client/api.ts); anything unknown is shown as its first word, shortened.
 */

/** Known tools: a test on the lower-cased raw label, and the name shown. */
const KNOWN: { test: (raw: string) => boolean; name: string }[] = [
  { test: (r) => r.includes("claude"), name: "Claude Code" },
  { test: (r) => r.includes("cursor"), name: "Cursor" },
  { test: (r) => r.includes("visual studio code") || r.includes("vscode") || r.startsWith("vs code"), name: "VS Code" },
  { test: (r) => r.includes("windsurf"), name: "Windsurf" },
  { test: (r) => r.includes("codex"), name: "Codex" },
  { test: (r) => r.includes("inspector"), name: "MCP Inspector" },
  { test: (r) => r.startsWith("curl/"), name: "curl" },
  { test: (r) => r.startsWith("mozilla/"), name: "a browser" },
];

/** What each run of the talentd client is called, by the tag in its User-Agent. */
const TALENTD_RUNS: Record<string, string> = { hook: "talentd hook", ci: "talentd CI", check: "talentd check by hand" };

/** The longest unknown label shown (the raw one stays in the title). */
const SHORT_MAX = 32;

/** The tool's name for a raw client label: a known tool, a talentd run, or the label's first word shortened; null → "—". */
export function clientName(raw: string | null): string {
  if (!raw) return "—";
  const lower = raw.toLowerCase();
  const talentd = /^talentd-client\/\S+(?: \((\w+)\))?/.exec(lower);
  if (talentd) return TALENTD_RUNS[talentd[1] ?? ""] ?? "talentd CLI";
  const known = KNOWN.find((k) => k.test(lower));
  if (known) return known.name;
  const first = raw.split(/[\s/]/)[0] || raw;
  return first.length > SHORT_MAX ? `${first.slice(0, SHORT_MAX - 1)}…` : first;
}
