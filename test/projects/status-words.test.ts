/**
 * Every action answers: the words of a project change's status line (src/projects/statuses.ts) —
 * what entered, each prerequisite named so, what was already there, singular and plural.
 */
import { describe, expect, test } from "bun:test";
import { applyStatus, installStatus, inWords, toggleStatus } from "../../src/projects/statuses";
import type { ViewContext } from "../../src/ui/views";

const ctx = (body: unknown): ViewContext => ({ request: new Request("http://localhost/"), params: {}, body });

describe("status words of the project changes", () => {
  test("an install names what it asked for, then each prerequisite the form ticked, then what was already installed", () => {
    const form = { talents: ["typescript-strict", "javascript-base"], prerequisites: "javascript-base" };
    expect(installStatus({ installed: ["typescript-strict", "javascript-base"], alreadyInstalled: [] }, ctx(form))).toBe(
      "Installed typescript-strict and javascript-base (a prerequisite)",
    );
    expect(installStatus({ installed: ["a"], alreadyInstalled: ["b", "c"] }, ctx({ talents: ["a", "b", "c"] }))).toBe(
      "Installed a; b and c were already installed",
    );
    expect(installStatus({ installed: [], alreadyInstalled: ["b"] }, ctx({ talent: "b" }))).toBe(
      "Nothing new to install: b was already installed",
    );
    expect(inWords(["a", "b", "c"])).toBe("a, b and c");
  });

  test("a specialization applied counts what entered and what was already there; enable and disable say which", () => {
    const spec = { specialization: { name: "Go service" } };
    expect(applyStatus({ ...spec, installed: Array(7).fill("x"), alreadyInstalled: ["y", "z"] })).toBe(
      "Applied Go service: 7 talents installed, 2 were already there",
    );
    expect(applyStatus({ ...spec, installed: ["x"], alreadyInstalled: ["y"] })).toBe(
      "Applied Go service: 1 talent installed, 1 was already there",
    );
    expect(applyStatus({ ...spec, installed: [], alreadyInstalled: ["y", "z"] })).toBe("Applied Go service: 2 talents were already there");
    expect(toggleStatus({ id: "sql-base", state: "disabled", changed: true })).toBe("Disabled sql-base");
    expect(toggleStatus({ id: "sql-base", state: "active", changed: false })).toBe("sql-base was already enabled");
  });
});
