import { describe, expect, test } from "bun:test";
import { fileStamp, iso, utcDay, utcMinute, utcSecond } from "../../src/lib/time";

const AT = Date.UTC(2026, 10, 23, 0, 30, 5, 123);

describe("one date formatter (lib/time.ts): the shapes pages, mails and file names show, from ms or from iso()'s text alike", () => {
  test("day, minute, second and file stamp, UTC", () => {
    expect(utcDay(AT)).toBe("2026-11-23");
    expect(utcMinute(AT)).toBe("2026-11-23 00:30");
    expect(utcSecond(AT)).toBe("2026-11-23 00:30:05");
    expect(fileStamp(AT)).toBe("20261123T003005123Z");
  });

  test("a time given as ms and as its ISO text formats the same", () => {
    for (const f of [utcDay, utcMinute, utcSecond]) expect(f(iso(AT))).toBe(f(AT));
  });
});
