import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { AUTH_LIMIT_SETTINGS, ConfigError } from "../src/configParsers";
import { parseCommandLine } from "../src/cli/args";
import { tempDir } from "./helpers";

describe("config: flags > env > defaults", () => {
  test("defaults are documented values", () => {
    const c = loadConfig({});
    expect(c.port).toBe(8787);
    expect(c.baseUrl).toBe("http://localhost:8787");
    expect(c.databaseUrl).toBe(`file:${join(process.cwd(), "data", "talentd.db")}`);
    expect(c.autoApproveOrgs).toBe(false);
    expect(c.keysEnabled).toBe(true);
    expect(c.bodyLimit).toBe(1024 * 1024);
    expect(c.logFormat).toBe("auto");
  });
  test("baseUrlFromDefault records whether BASE_URL was given (serve tells agents elsewhere to set it)", () => {
    expect(loadConfig({}).baseUrlFromDefault).toBe(true);
    expect(loadConfig({ BASE_URL: "" }).baseUrlFromDefault).toBe(true);
    expect(loadConfig({ BASE_URL: "http://talentd.lan:8787" }).baseUrlFromDefault).toBe(false);
    expect(loadConfig({}, { BASE_URL: "http://talentd.lan:8787" }).baseUrlFromDefault).toBe(false);
  });
  test("LOG_FORMAT is auto, json or text, in any case", () => {
    expect(loadConfig({ LOG_FORMAT: "JSON" }).logFormat).toBe("json");
    expect(loadConfig({ LOG_FORMAT: "text" }).logFormat).toBe("text");
  });
  test("DNS_SERVERS: none by default (the system's resolver); a list of addresses with optional ports; anything else is refused with the setting named", () => {
    expect(loadConfig({}).dnsServers).toEqual([]);
    expect(loadConfig({ DNS_SERVERS: "10.0.0.2, 127.0.0.1:5353,[::1]:53" }).dnsServers).toEqual(["10.0.0.2", "127.0.0.1:5353", "[::1]:53"]);
    expect(() => loadConfig({ DNS_SERVERS: "dns.example.com" })).toThrow(/DNS_SERVERS: "dns.example.com" is not an address/);
  });

  test("a flag overrides the environment", () => {
    const line = parseCommandLine(["serve", "--port", "9000", "--data-dir=/tmp/x"], "0.0.0");
    if (line.kind !== "run") throw new Error("expected a command to run");
    expect(line.config).toEqual({ PORT: "9000", DATA_DIR: "/tmp/x" });
    const c = loadConfig({ PORT: "8000", DATA_DIR: "/tmp/y" }, line.config);
    expect(c.port).toBe(9000);
    expect(c.dataDir).toBe("/tmp/x");
    expect(c.baseUrl).toBe("http://localhost:9000");
  });
  test("remote libSQL URLs are accepted", () => {
    expect(loadConfig({ DATABASE_URL: "libsql://db.example.internal" }).databaseUrl).toBe("libsql://db.example.internal");
  });
  test("PostgreSQL URLs (postgres:// and postgresql://) are accepted, credentials kept; without a host they are malformed", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://u:p@db.internal:5432/talentd" }).databaseUrl).toBe(
      "postgres://u:p@db.internal:5432/talentd",
    );
    expect(loadConfig({ DATABASE_URL: "postgresql://db.internal/talentd" }).databaseUrl).toBe("postgresql://db.internal/talentd");
    expect(() => loadConfig({ DATABASE_URL: "postgres://" })).toThrow(/^DATABASE_URL: "postgres:\/\/" is malformed/);
  });
  test("a refused DATABASE_URL never repeats its password (user:*** in the message)", () => {
    for (const url of [
      "postgres://talentd:s3cret-pw@/talentd",
      "mysql://talentd:s3cret-pw@db/x",
      "postgresql://talentd:s3cret-pw@:5432/db",
    ]) {
      let message = "";
      try {
        loadConfig({ DATABASE_URL: url });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/^DATABASE_URL: ".*talentd:\*\*\*@.*" is malformed/);
      expect(message).not.toContain("s3cret-pw");
    }
  });
  const bad: [Record<string, string>, RegExp][] = [
    [{ PORT: "abc" }, /^PORT: "abc" is not a port/],
    [{ PORT: "70000" }, /^PORT: "70000" is not a port/],
    [{ DATABASE_URL: "mysql://x" }, /^DATABASE_URL: "mysql:\/\/x" is malformed/],
    [{ DATABASE_URL: "nonsense" }, /^DATABASE_URL: "nonsense" is malformed/],
    [{ DATABASE_URL: "libsql://" }, /^DATABASE_URL: .* is malformed/],
    [{ BASE_URL: "ftp://x" }, /^BASE_URL: "ftp:\/\/x" is not an http\(s\) URL/],
    [{ AUTO_APPROVE_ORGS: "maybe" }, /^AUTO_APPROVE_ORGS: "maybe" is not a boolean/],
    [{ LOG_LEVEL: "loud" }, /^LOG_LEVEL: "loud" is not one of/],
    [{ LOG_FORMAT: "pretty" }, /^LOG_FORMAT: "pretty" is not one of auto, json, text$/],
    [{ SMTP_URL: "mail.example.com" }, /^SMTP_URL: /],
    [{ SMTP_URL: "http://mail.example.com" }, /^SMTP_URL: /],
    [{ MAIL_FROM: "not an address" }, /^MAIL_FROM: "not an address" is not an address/],
    [{ MAIL_MAX_ATTEMPTS: "0" }, /^MAIL_MAX_ATTEMPTS: "0" is not a number of attempts/],
    [{ MAIL_RETRY_BASE: "2h" }, /^MAIL_RETRY_BASE: "2h" must be between 1s and 1h/],
    [{ MAIL_RETRY_BASE: "soon" }, /^MAIL_RETRY_BASE: "soon" is not an interval/],
  ];
  test("SMTP_URL, MAIL_FROM and the retry settings: defaults and accepted values", () => {
    const d = loadConfig({ BASE_URL: "https://talentd.example.com" });
    expect(d.smtpUrl).toBeUndefined();
    expect(d.mailFrom).toBe("talentd@talentd.example.com");
    expect(d.mailMaxAttempts).toBe(8);
    expect(d.mailRetryBaseMs).toBe(30_000);
    const c = loadConfig({
      SMTP_URL: "smtps://u:p%40ss@mail.example.com:465",
      MAIL_FROM: "Talents <talents@example.com>",
      MAIL_MAX_ATTEMPTS: "3",
      MAIL_RETRY_BASE: "5s",
    });
    expect(c.smtpUrl).toBe("smtps://u:p%40ss@mail.example.com:465");
    expect(c.mailFrom).toBe("Talents <talents@example.com>");
    expect(c.mailMaxAttempts).toBe(3);
    expect(c.mailRetryBaseMs).toBe(5000);
  });
  test("a bad SMTP_URL's password is not echoed in the error", () => {
    expect(() => loadConfig({ SMTP_URL: "smtpx://user:hunter2@mail" })).toThrow(/\/\/\*\*\*@mail/);
    expect(() => loadConfig({ SMTP_URL: "smtpx://user:hunter2@mail" })).not.toThrow(/hunter2/);
  });
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
      expect(() => loadConfig({ DATA_DIR: join(dir, "plain", "sub") }, {}, { checkDataDir: true })).toThrow(
        /^DATA_DIR: ".*" is not a writable folder/,
      );
    } finally {
      cleanup();
    }
  });
});

describe('integer settings: unset → the default; the lowest and highest allowed; anything else → `NAME: "raw" is not <what>`', () => {
  const rows: [
    name: string,
    read: (c: ReturnType<typeof loadConfig>) => number,
    fallback: number,
    min: number,
    max: number,
    what: string,
  ][] = [
    ["PORT", (c) => c.port, 8787, 0, 65535, "a port (0–65535)"],
    ["BODY_LIMIT", (c) => c.bodyLimit, 1024 * 1024, 1024, 64 * 1024 * 1024, "a size in bytes (1024–67108864)"],
    ["MAIL_MAX_ATTEMPTS", (c) => c.mailMaxAttempts, 8, 1, 50, "a number of attempts (1–50)"],
    ["EVENT_RETENTION_DAYS", (c) => c.eventRetentionDays, 90, 0, 36500, "a number of days (0–36500; 0 keeps events forever)"],
    ["DASHBOARD_READS_PER_USER", (c) => c.dashboardReadsPerUser, 2, 1, 100, "a number of reads (1–100)"],
    ["BACKUP_KEEP", (c) => c.backupKeep, 7, 1, 10000, "a number of backups to keep (1–10000)"],
    ["OAUTH_MAX_CLIENTS", (c) => c.oauthMaxClients, 10_000, 1, 10_000_000, "a number of clients (1–10000000)"],
    ["OAUTH_UNUSED_CLIENT_DAYS", (c) => c.oauthUnusedClientDays, 1, 1, 30, "a number of days (1–30)"],
    ["MAX_CONNECTIONS_PER_ADDRESS", (c) => c.maxConnectionsPerAddress, 64, 1, 100_000, "a count (1–100000)"],
    ["SIGNIN_PAIR_FAILURE_LIMIT", (c) => c.authLimits.signInPair, 5, 1, 1_000_000, "a count (1–1000000)"],
    [
      AUTH_LIMIT_SETTINGS.oauthRegistrations.name,
      (c) => c.authLimits.oauthRegistrations,
      AUTH_LIMIT_SETTINGS.oauthRegistrations.default,
      1,
      1_000_000,
      "a count (1–1000000)",
    ],
  ];
  for (const [name, read, fallback, min, max, what] of rows) {
    test(`${name}: ${fallback} unset or empty, ${min} to ${max}, else "is not ${what}"`, () => {
      expect(read(loadConfig({}))).toBe(fallback);
      expect(read(loadConfig({ [name]: "" }))).toBe(fallback);
      expect(read(loadConfig({ [name]: String(min) }))).toBe(min);
      expect(read(loadConfig({ [name]: ` ${max} ` }))).toBe(max);
      const below = min > 0 ? [String(min - 1)] : [];
      for (const bad of [...below, String(max + 1), "-1", "1.5", "ten"])
        expect(() => loadConfig({ [name]: bad })).toThrow(new ConfigError(`${name}: "${bad}" is not ${what}`));
    });
  }
});
