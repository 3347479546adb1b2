/**
 * Reading a page route's parsed body (src/http/form.ts): a field as one string, a group of check boxes
 * as a list — and nothing from a body that is not an object, so a page never fails on one.
 */
import { describe, expect, test } from "bun:test";
import { formField, formList } from "../../src/http/form";

describe("form fields of a parsed body", () => {
  test("formList: every checked box, one box alone as a list of one, strings only; absent → undefined", () => {
    expect(formList({ tools: ["a", "b", 3] }, "tools")).toEqual(["a", "b"]);
    expect(formList({ tools: "a" }, "tools")).toEqual(["a"]);
    expect(formList({ name: "x" }, "tools")).toBeUndefined();
  });

  test("a body that is not an object (JSON null, a string, a number) has no fields and no lists", () => {
    for (const body of [null, "text", 7, undefined]) {
      expect(formList(body, "tools")).toBeUndefined();
      expect(formField(body, "name")).toBeUndefined();
    }
  });
});
