import { describe, expect, test } from "bun:test";
import { closestIds, editDistance, unknownIdSentence } from "../../src/lib/suggest";

const known = ["secrets-handling", "go-base", "javascript-base", "typescript-strict", "react-hooks", "node-services", "sql-migrations"];

describe("did you mean: the known ids closest to an unknown one", () => {
  test("a dropped letter, a swap and a substitution are one edit each", () => {
    expect(editDistance("secret-handling", "secrets-handling")).toBe(1);
    expect(editDistance("go-bsae", "go-base")).toBe(1);
    expect(editDistance("go-bose", "go-base")).toBe(1);
  });
  test("a typo suggests the closest id, first; nothing close suggests nothing", () => {
    expect(closestIds("secret-handling", known)).toEqual(["secrets-handling"]);
    expect(closestIds("typescript-strcit", known)[0]).toBe("typescript-strict");
    expect(closestIds("kubernetes", known)).toEqual([]);
  });
  test("a part of an id (a prefix typed alone) suggests it; at most three", () => {
    expect(closestIds("secrets", known)).toEqual(["secrets-handling"]);
    expect(closestIds("x-base", ["a-base", "b-base", "c-base", "d-base"]).length).toBe(3);
  });
  test("the sentence names the unknown id and each suggestion", () => {
    expect(unknownIdSentence("talent", "secret-handling", ["secrets-handling"])).toBe(
      'unknown talent "secret-handling" — did you mean "secrets-handling"?',
    );
    expect(unknownIdSentence("talent", "x", [])).toBe('unknown talent "x"');
    expect(unknownIdSentence("rule", "TS-05", ["TS-005", "TS-015"])).toBe('unknown rule "TS-05" — did you mean "TS-005" or "TS-015"?');
  });
});
