/** Which errors say the database server cannot be reached (src/db/unavailable.ts), and what a request then answers. */
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { databaseUnreachable } from "../../src/db/unavailable";
import { databaseUnavailable, errorResponse } from "../../src/http/errors";
import { freePort } from "../proc";

describe("databaseUnreachable", () => {
  test("a refused connection of Bun's PostgreSQL client, as it really fails (nothing listens on the port)", async () => {
    const sql = new SQL({ url: `postgres://someone@127.0.0.1:${await freePort()}/none`, max: 1, connectionTimeout: 2 });
    const error = await sql.unsafe("SELECT 1").then(
      () => null,
      (e: unknown) => e,
    );
    await sql.close().catch(() => {});
    expect(databaseUnreachable(error)).toBe(true);
    expect(databaseUnreachable({ message: "wrapped by drizzle", cause: error })).toBe(true);
  });

  test("the client's lost-connection codes, PostgreSQL's shutdown and connection SQLSTATEs, socket codes: yes; anything else: no", () => {
    for (const code of [
      "ERR_POSTGRES_CONNECTION_CLOSED",
      "ERR_POSTGRES_CONNECTION_TIMEOUT",
      "ECONNREFUSED",
      "ECONNRESET",
      "08006",
      "57P01",
    ])
      expect(databaseUnreachable({ code })).toBe(true);
    for (const errno of ["57P01", "57P02", "57P03", "53300", "08001"])
      expect(databaseUnreachable({ code: "ERR_POSTGRES_SERVER_ERROR", errno })).toBe(true);
    for (const e of [
      { code: "ERR_POSTGRES_SERVER_ERROR", errno: "23505" }, // a unique violation
      { code: "ERR_POSTGRES_SERVER_ERROR", errno: "42883" }, // SQL PostgreSQL does not speak
      { code: "SQLITE_BUSY" },
      new Error("boom"),
      null,
      undefined,
      "text",
    ])
      expect(databaseUnreachable(e)).toBe(false);
  });

  test("answered 503 database_unavailable with Retry-After and retryAfter in the body", async () => {
    const r = errorResponse(databaseUnavailable(), "req-1");
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("5");
    expect(await r.json()).toEqual({
      error: "database_unavailable",
      message: "The database cannot be reached right now; retry later.",
      retryAfter: 5,
    });
  });
});
