import { describe, expect, test } from "bun:test";
import { decodeCursor, encodeCursor } from "../../src/lib/cursor";

describe("one cursor codec for every paginated list (lib/cursor.ts)", () => {
  test("a cursor is <kind>:<position> in base64url, as the catalog, skills and people lists wrote them before: cursors held by clients stay valid", () => {
    expect(encodeCursor("after", "go-errors")).toBe(Buffer.from("after:go-errors").toString("base64url"));
    expect(encodeCursor("at", 40)).toBe(Buffer.from("at:40").toString("base64url"));
    expect(decodeCursor("after", Buffer.from("after:go-errors").toString("base64url"))).toBe("go-errors");
    expect(decodeCursor("at", encodeCursor("at", 40))).toBe("40");
  });

  test("a cursor of another kind, of another alphabet or of nothing is refused (null: the route answers 400 naming cursor)", () => {
    expect(decodeCursor("at", encodeCursor("after", "x"))).toBeNull();
    expect(decodeCursor("after", encodeCursor("at", 3))).toBeNull();
    expect(decodeCursor("after", "!!!")).toBeNull();
    expect(decodeCursor("after", `${encodeCursor("after", "x")}==`)).toBeNull();
    expect(decodeCursor("after", "")).toBeNull();
  });
});
