/**
 * The logger: one event per line, info and debug on stdout, warn and error on stderr. Two
 * forms of the same event: JSON lines for machines (the default when stdout is not a
 * terminal) and readable text for a person at a terminal (LOG_FORMAT, see src/config.ts).
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** The form of each line: `json` (one object per line) or `text` (`23:31:15 INFO  msg  k=v`). */
export type LogFormat = "json" | "text";

/** LOG_FORMAT as configured: `auto` picks text on a terminal and JSON elsewhere. */
export type LogFormatSetting = LogFormat | "auto";

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Resolves LOG_FORMAT: `auto` is text when stdout is a terminal (a person reads it) and JSON
 * otherwise (a file, a pipe, journald, a log shipper parse it).
 */
export function resolveLogFormat(setting: LogFormatSetting, stdoutIsTerminal: boolean): LogFormat {
  if (setting === "auto") return stdoutIsTerminal ? "text" : "json";
  return setting;
}

/** One event as a JSON line (no trailing newline): time, level, msg, then the fields. */
export function formatJson(time: Date, level: LogLevel, msg: string, fields?: Record<string, unknown>): string {
  return JSON.stringify({ time: time.toISOString(), level, msg, ...fields });
}

// C0 and C1 control characters and the Unicode line separators: a log line shown on a terminal
// must not carry escape sequences from a request (User-Agent, a path) or start a fake line.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const escapeControl = (s: string): string => s.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
// A value printed as it is: no spaces, quotes, `=` or control characters, so `k=v` stays unambiguous.
const BARE = /^[^\s"'=\\\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/;
// A link a person is meant to open (setupLink): printed alone on its own line, so it can be copied.
const LINK_KEY = /link$/i;
const LINK_VALUE = /^https?:\/\/[^\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/;

function textValue(value: unknown): string {
  if (typeof value === "string") return BARE.test(value) ? value : escapeControl(JSON.stringify(value));
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (typeof value === "bigint") return `${value}`;
  return escapeControl(JSON.stringify(value) ?? String(value));
}

const pad2 = (n: number): string => String(n).padStart(2, "0");

/**
 * One event as text for a person (no trailing newline): `HH:MM:SS LEVEL msg  key=value …` in
 * local time. A link field (`setupLink`) follows on a line of its own, indented by two spaces,
 * and a multi-line value (a mail body, a stack) as an indented block after `key:`, so
 * neither is lost in a long line. Control characters are escaped, never written raw.
 */
export function formatText(time: Date, level: LogLevel, msg: string, fields: Record<string, unknown> = {}): string {
  const inline: string[] = [];
  const after: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (typeof value === "string" && LINK_KEY.test(key) && LINK_VALUE.test(value)) {
      after.push(`  ${value}`);
    } else if (typeof value === "string" && /\r?\n/.test(value)) {
      after.push(`  ${key}:`, ...value.split(/\r?\n/).map((l) => `    ${escapeControl(l)}`));
    } else {
      inline.push(`${key}=${textValue(value)}`);
    }
  }
  const clock = `${pad2(time.getHours())}:${pad2(time.getMinutes())}:${pad2(time.getSeconds())}`;
  const head = `${clock} ${level.toUpperCase().padEnd(5)} ${escapeControl(msg)}${inline.length > 0 ? "  " + inline.join(" ") : ""}`;
  return [head, ...after].join("\n");
}

/**
 * A logger writing events at or above `level` in `format` (JSON lines unless told otherwise);
 * `sink` receives each formatted event (tests capture it), by default stdout for debug and
 * info, stderr for warn and error. `now` is the clock (tests fix it).
 */
export function createLogger(
  level: LogLevel = "info",
  sink?: (line: string, level: LogLevel) => void,
  format: LogFormat = "json",
  now: () => Date = () => new Date(),
): Logger {
  const write =
    sink ??
    ((line: string, lvl: LogLevel) => {
      if (ORDER[lvl] >= ORDER.warn) process.stderr.write(line + "\n");
      else process.stdout.write(line + "\n");
    });
  const render = format === "text" ? formatText : formatJson;
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[lvl] < ORDER[level]) return;
    write(render(now(), lvl, msg, fields), lvl);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

/** A logger that drops everything (tests that do not look at logs). */
export const silentLogger: Logger = createLogger("error", () => {});
