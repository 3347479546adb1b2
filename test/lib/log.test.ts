import { describe, expect, test } from "bun:test";
import { createLogger, formatJson, formatText, resolveLogFormat } from "../../src/lib/log";

// 23:31:15 local time, whatever the machine's zone
const at = new Date(2026, 10, 22, 23, 31, 15, 250);

describe("log: text lines for a person, JSON lines for machines", () => {
  test("text: `HH:MM:SS LEVEL msg  key=value …`, level padded to five, local time", () => {
    expect(formatText(at, "info", "talentd listening", { url: "http://localhost:8787", baseUrl: "http://localhost:8787", ms: 12 })).toBe(
      "23:31:15 INFO  talentd listening  url=http://localhost:8787 baseUrl=http://localhost:8787 ms=12",
    );
    expect(formatText(at, "error", "stopped")).toBe("23:31:15 ERROR stopped");
    expect(formatText(at, "warn", "x", { a: 1 })).toStartWith("23:31:15 WARN  x  a=1");
    expect(formatText(new Date(2026, 0, 2, 3, 4, 5), "debug", "early")).toBe("03:04:05 DEBUG early");
  });

  test("text: a value with spaces, quotes or `=` is JSON-quoted; arrays and objects are compact JSON; undefined is left out", () => {
    expect(
      formatText(at, "info", "m", {
        s: "two words",
        q: 'say "hi"',
        e: "a=b",
        n: null,
        t: true,
        l: ["a", "b"],
        o: { k: 1 },
        u: undefined,
        empty: "",
      }),
    ).toBe('23:31:15 INFO  m  s="two words" q="say \\"hi\\"" e="a=b" n=null t=true l=["a","b"] o={"k":1} empty=""');
  });

  test("text: the setup link goes on a line of its own, alone, so it can be copied", () => {
    const text = formatText(at, "warn", "no platform administrator yet: open this one-time link", {
      setupLink: "http://localhost:8787/setup?token=abc123",
    });
    expect(text.split("\n")).toEqual([
      "23:31:15 WARN  no platform administrator yet: open this one-time link",
      "  http://localhost:8787/setup?token=abc123",
    ]);
  });

  test("text: a multi-line value (a mail body, a stack) is an indented block after `key:`", () => {
    const text = formatText(at, "info", "mail queued", { to: "a@example.com", body: "Hello,\nopen http://x/y\n" });
    expect(text.split("\n")).toEqual([
      "23:31:15 INFO  mail queued  to=a@example.com",
      "  body:",
      "    Hello,",
      "    open http://x/y",
      "    ",
    ]);
  });

  test("text: control characters from a request never reach the terminal raw (no escape sequences, no fake lines)", () => {
    const text = formatText(at, "info", "request", { ua: "evil\u001b[31mred\u009b2J", path: "/a\rb", note: "x\u2028y" });
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(text).toContain('ua="evil\\u001b[31mred\\u009b2J"');
    expect(text).toContain('path="/a\\rb"');
    expect(text).toContain('note="x\\u2028y"');
    // a link field that is not a plain http(s) URL is an ordinary (quoted) field
    const link = formatText(at, "warn", "m", { setupLink: "http://x/\u001b[2J" });
    expect(link.split("\n")).toHaveLength(1);
    expect(link).toContain('setupLink="http://x/\\u001b[2J"');
    // and a multi-line block escapes them too
    expect(formatText(at, "error", "m", { error: "a\nb\u001b[0m" })).not.toMatch(/\u001b/);
  });

  test("json: one object per line, time in ISO 8601 UTC, then level, msg and the fields (as before)", () => {
    const line = formatJson(at, "info", "request", { status: 200, link: "http://x" });
    expect(line).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({ time: at.toISOString(), level: "info", msg: "request", status: 200, link: "http://x" });
  });

  test("LOG_FORMAT=auto is text on a terminal and JSON elsewhere; json and text are forced", () => {
    expect(resolveLogFormat("auto", true)).toBe("text");
    expect(resolveLogFormat("auto", false)).toBe("json");
    expect(resolveLogFormat("json", true)).toBe("json");
    expect(resolveLogFormat("text", false)).toBe("text");
  });

  test("createLogger writes the chosen format to its sink, JSON unless told otherwise, and drops events under its level", () => {
    const lines: string[] = [];
    const text = createLogger(
      "info",
      (l) => lines.push(l),
      "text",
      () => at,
    );
    text.debug("hidden");
    text.info("shown", { a: 1 });
    expect(lines).toEqual(["23:31:15 INFO  shown  a=1"]);
    const json: string[] = [];
    createLogger("info", (l) => json.push(l)).info("shown");
    expect(JSON.parse(json[0]!).msg).toBe("shown");
  });
});
