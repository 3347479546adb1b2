import { describe, expect, test } from "bun:test";
import { globalHelp, parseCommandLine, UsageError, type CommandLine } from "../../src/cli/args";
import { COMMANDS, configFlagsOf } from "../../src/cli/commandTable";

const parse = (...argv: string[]): CommandLine => parseCommandLine(argv, "9.9.9");
const run = (...argv: string[]) => {
  const r = parse(...argv);
  if (r.kind !== "run") throw new Error(`expected a command to run, got help for ${argv.join(" ")}`);
  return r;
};
const usageError = (...argv: string[]): string => {
  try {
    parse(...argv);
  } catch (e) {
    if (e instanceof UsageError) return e.message;
    throw e;
  }
  throw new Error(`expected a usage error for ${argv.join(" ")}`);
};

describe("command line: each command declares its flags and arguments", () => {
  test("config flags are accepted only by commands that use them (the documented table)", () => {
    expect(configFlagsOf("serve")).toEqual(["port", "host", "base-url", "data-dir", "database-url", "talents-dir", "log-level"]);
    expect(configFlagsOf("admin create")).toEqual(["data-dir", "database-url", "log-level"]);
    expect(configFlagsOf("migrate")).toEqual(["data-dir", "database-url"]);
    expect(configFlagsOf("backup")).toEqual(["data-dir", "database-url"]);
    expect(configFlagsOf("restore")).toEqual(["data-dir", "database-url"]);
    expect(configFlagsOf("doctor")).toEqual(["data-dir", "database-url", "talents-dir"]);
    expect(configFlagsOf("talents lint")).toEqual([]);
    expect(configFlagsOf("talents export")).toEqual(["talents-dir", "data-dir", "database-url"]);
    expect(configFlagsOf("version")).toEqual([]);
  });

  test("no command is serve; flags may come before the command; `--flag value` and `--flag=value` both work", () => {
    expect(run().command.name).toBe("serve");
    expect(run("--port", "9000").config).toEqual({ PORT: "9000" });
    const m = run("--data-dir", "/d", "migrate", "--database-url=file:/x.db");
    expect(m.command.name).toBe("migrate");
    expect(m.config).toEqual({ DATA_DIR: "/d", DATABASE_URL: "file:/x.db" });
  });

  test("--help or -h after any command prints that command's usage and runs nothing; no command: every command", () => {
    for (const c of COMMANDS) {
      for (const h of ["--help", "-h"]) {
        const r = parse(...c.name.split(" "), h);
        expect(r.kind).toBe("help");
        if (r.kind === "help") expect(r.text).toStartWith(`Usage: talentd ${c.name}`);
      }
    }
    const all = parse("--help");
    expect(all.kind === "help" && all.text).toBe(globalHelp("9.9.9"));
    // help wins over whatever else is wrong on the line, as long as the command is known
    expect(parse("backup", "--prot", "--help").kind).toBe("help");
    expect(parse("serve", "--port", "--help").kind).toBe("help");
  });

  test("`talentd help <command>` is `talentd <command> --help`; `talentd help` is `talentd --help`", () => {
    expect(parse("help", "backup")).toEqual(parse("backup", "--help"));
    expect(parse("help", "admin", "create")).toEqual(parse("admin", "create", "--help"));
    expect(parse("help", "admin")).toEqual(parse("admin", "--help"));
    expect(parse("help")).toEqual(parse("--help"));
    expect(usageError("help", "frob")).toBe('talentd: unknown command "frob" (see talentd --help)');
  });

  test("after `--` a word that looks like a flag is an argument: `backup -- --help` writes a file named --help", () => {
    const r = run("backup", "--", "--help");
    expect(r.args).toEqual(["--help"]);
  });

  test("--version alone is the version command", () => {
    expect(run("--version").command.name).toBe("version");
    expect(usageError("serve", "--version")).toBe("talentd serve: unknown flag --version (see talentd serve --help)");
  });

  test("unknown flags and unknown commands: one line naming them", () => {
    expect(usageError("serve", "--prot", "9000")).toBe("talentd serve: unknown flag --prot (see talentd serve --help)");
    expect(usageError("--prot", "9000")).toBe("talentd: unknown flag --prot (see talentd --help)");
    expect(usageError("serve", "--prot=9000", "--hots", "x", "-p")).toBe(
      "talentd serve: unknown flags --prot, --hots, -p (see talentd serve --help)",
    );
    expect(usageError("migrate", "--port", "9000")).toBe("talentd migrate: unknown flag --port (see talentd migrate --help)");
    expect(usageError("version", "--data-dir", "x")).toBe("talentd version: unknown flag --data-dir (see talentd version --help)");
    expect(usageError("talents", "lint", "dir", "--talents-dir", "x")).toBe(
      "talentd talents lint: unknown flag --talents-dir (see talentd talents lint --help)",
    );
    expect(usageError("frobnicate")).toBe('talentd: unknown command "frobnicate" (see talentd --help)');
    expect(usageError("admin", "delete")).toBe('talentd: unknown command "admin delete" (see talentd --help)');
    expect(usageError("admin")).toBe("talentd admin: missing command (create) (see talentd admin --help)");
  });

  test("missing or extra arguments, a flag without its value, a value on a flag that takes none", () => {
    expect(usageError("backup")).toBe("talentd backup: missing FILE (see talentd backup --help)");
    expect(usageError("talents", "lint")).toBe("talentd talents lint: missing DIR (see talentd talents lint --help)");
    expect(usageError("backup", "a.db", "b.db")).toBe('talentd backup: unexpected argument "b.db" (see talentd backup --help)');
    expect(usageError("serve", "now")).toBe('talentd serve: unexpected argument "now" (see talentd serve --help)');
    expect(usageError("serve", "--port")).toBe("talentd serve: --port needs a value: --port N (see talentd serve --help)");
    expect(usageError("serve", "--port=")).toBe("talentd serve: --port needs a value: --port N (see talentd serve --help)");
    expect(usageError("serve", "--port", "--host", "x")).toBe("talentd serve: --port needs a value: --port N (see talentd serve --help)");
    expect(usageError("admin", "create", "--email", "a@b.c", "--password-stdin=yes")).toBe(
      "talentd admin create: --password-stdin takes no value (see talentd admin create --help)",
    );
  });

  test("admin create needs --email and --password-stdin", () => {
    expect(usageError("admin", "create", "--password-stdin")).toBe(
      "talentd admin create: missing --email E (see talentd admin create --help)",
    );
    expect(usageError("admin", "create", "--email", "a@b.c")).toBe(
      "talentd admin create: missing --password-stdin (see talentd admin create --help)",
    );
    const r = run("admin", "create", "--email=a@b.c", "--password-stdin", "--data-dir", "/d");
    expect(r.flags).toEqual({ email: "a@b.c", "password-stdin": true });
    expect(r.config).toEqual({ DATA_DIR: "/d" });
  });
});

describe("--help reads as a table", () => {
  /** The lines of the block under `title`, up to the next empty line. */
  const block = (text: string, title: string): string[] => {
    const rest = text.slice(text.indexOf(`${title}\n`) + title.length + 1);
    const end = rest.indexOf("\n\n");
    return (end < 0 ? rest : rest.slice(0, end)).split("\n");
  };
  /** Where a line's last column starts: after the first run of two or more spaces past the indent. */
  const helpColumn = (line: string): number => {
    const m = /^ {2}\S.*? {2,}(?=\S)/.exec(line);
    if (!m) throw new Error(`no column gap in ${JSON.stringify(line)}`);
    return m[0].length;
  };

  test("every column is as wide as its longest cell: a name never runs into its help (`EVENT_RETENTION_DAYStrace`)", () => {
    const text = globalHelp("9.9.9");
    const env = block(text, "Environment only:");
    expect(env.length).toBeGreaterThan(20);
    expect(new Set(env.map(helpColumn)).size).toBe(1);
    const commands = block(text, "Commands:");
    expect(commands.length).toBe(COMMANDS.length);
    expect(new Set(commands.map(helpColumn)).size).toBe(1);
    const serve = parse("serve", "--help");
    if (serve.kind !== "help") throw new Error("expected help");
    expect(new Set(block(serve.text, "Environment only:").map(helpColumn)).size).toBe(1);
  });

  test("every setting the server reads from the environment is in --help, with its current text", async () => {
    const config = await Bun.file(new URL("../../src/config.ts", import.meta.url)).text();
    const read = new Set([...config.matchAll(/"([A-Z][A-Z0-9_]{3,})"/g)].map((m) => m[1]!));
    expect(read.size).toBeGreaterThan(30);
    const text = globalHelp("9.9.9");
    for (const name of read) expect(text).toContain(name);
    expect(text).not.toContain("not used yet");
    expect(text).toMatch(/SMTP_URL +smtp:\/\//);
  });
});
