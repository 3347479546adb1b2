import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "./config";
import { parseCommandLine } from "./cli/args";
import { tempDir } from "../test/helpers";

describe("config: flags > env > defaults", () => {
  test("defaults are documented values", () => {
    const c = loadConfig({});
    expect(c.port).toBe(8787);
    expect(c.baseUrl).toBe("http://localhost:8787");
    expect(c.databaseUrl).toBe(`file:${join(process.cwd(), "data", "talentd.db")}`);
    expect(c.autoApproveOrgs).toBe(false);
    expect(c.keysEnabled).toBe(true);
    expect(c.bodyLimit).toBe(1024 * 1024);
  });
  test("remote libSQL URLs are accepted", () => {
    expect(loadConfig({ DATABASE_URL: "libsql://db.example.internal" }).databaseUrl).toBe("libsql://db.example.internal");
  });
  const bad: [Record<string, string>, RegExp][] = [
    [{ PORT: "abc" }, /^PORT: "abc" is not a port/],
    [{ PORT: "70000" }, /^PORT: "70000" is not a port/],
    [{ DATABASE_URL: "postgres://x" }, /^DATABASE_URL: "postgres:\/\/x" is malformed/],
    [{ DATABASE_URL: "nonsense" }, /^DATABASE_URL: "nonsense" is malformed/],
    [{ DATABASE_URL: "libsql://" }, /^DATABASE_URL: .* is malformed/],
    [{ BASE_URL: "ftp://x" }, /^BASE_URL: "ftp:\/\/x" is not an http\(s\) URL/],
    [{ AUTO_APPROVE_ORGS: "maybe" }, /^AUTO_APPROVE_ORGS: "maybe" is not a boolean/],
    [{ LOG_LEVEL: "loud" }, /^LOG_LEVEL: "loud" is not one of/],
    [{ SMTP_URL: "mail.example.com" }, /^SMTP_URL: /],
  ];
  for (const [env, message] of bad) {
    test(`${JSON.stringify(env)} → ConfigError ${message}`, () => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    });
  }
  test("an unwritable DATA_DIR is refused at start", () => {
    const { dir, cleanup } = tempDir();
    try {
      // tests may run as root, who can write anywhere: a path under a regular file is unwritable for everyone
      writeFileSync(join(dir, "plain"), "x");
      expect(() => loadConfig({ DATA_DIR: join(dir, "plain", "sub") }, {}, { checkDataDir: true })).toThrow(/^DATA_DIR: ".*" is not a writable folder/);
    } finally {
      cleanup();
    }
  });
});
