/** JSON-lines logger: one object per line on stdout (info) or stderr (warn, error). */
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A logger writing JSON lines at or above `level`; `sink` receives each line (tests capture it). */
export function createLogger(level: LogLevel = "info", sink?: (line: string, level: LogLevel) => void): Logger {
  const write =
    sink ??
    ((line: string, lvl: LogLevel) => {
      if (ORDER[lvl] >= ORDER.warn) process.stderr.write(line + "\n");
      else process.stdout.write(line + "\n");
    });
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[lvl] < ORDER[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }), lvl);
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
