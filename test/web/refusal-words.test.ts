/**
 * docs/design.md "Form refusals": an issue in a person's words (src/ui/refusalWords.ts) — an API path becomes the
 * words of its field, a message that starts with its path starts with those words, nested parentheses are flattened —
 * and the alert (ui/errors.tsx) says each issue once: no second copy of the error's sentence, nor of its unknown ids.
 */
import { describe, expect, test } from "bun:test";
import { AppError, validationFailed } from "../../src/http/errors";
import { errorFragment } from "../../src/ui/errors";
import { flatParentheses, issueWords, pathWords } from "../../src/ui/refusalWords";

describe("an issue in a person's words", () => {
  test("a path becomes the words of its field: an item numbered from 1, the last segment of a nested one, acronyms spelled", () => {
    expect(pathWords("domains/0")).toBe("Domain 1");
    expect(pathWords("domains/1")).toBe("Domain 2");
    expect(pathWords("oidc/clientId")).toBe("Client ID");
    expect(pathWords("oidc.clientId")).toBe("Client ID");
    expect(pathWords("saml/entryPoint")).toBe("Entry point");
    expect(pathWords("requiredTalents")).toBe("Required talents");
    expect(pathWords("files[1]")).toBe("File 2");
    expect(pathWords("rules.0.pattern")).toBe("Rule 1 pattern");
    expect(pathWords("")).toBe("");
  });

  test("parentheses inside parentheses are said with commas; one level is kept", () => {
    expect(flatParentheses("x (not in the catalog (nor an active published expertise))")).toBe(
      "x (not in the catalog, nor an active published expertise)",
    );
    expect(flatParentheses("name is required (at most 100 characters)")).toBe("name is required (at most 100 characters)");
    expect(flatParentheses("no parentheses")).toBe("no parentheses");
  });

  test("a message that starts with its path starts with the field's words; one that does not is named alone, kept beside its field", () => {
    expect(issueWords({ path: "oidc.clientId", message: "oidc.clientId is required: text of 1 to 300 characters" })).toEqual({
      field: "Client ID",
      rest: "is required: text of 1 to 300 characters",
      atField: "Client ID is required: text of 1 to 300 characters",
      alone: "Client ID is required: text of 1 to 300 characters",
    });
    expect(issueWords({ path: "domains/0", message: "each item of domains must be text" }).atField).toBe("Domain 1 must be text");
    // a message that begins with its verb gets its field as subject
    expect(issueWords({ path: "oidc/clientId", message: "is required (at most 300 characters)" }).atField).toBe(
      "Client ID is required (at most 300 characters)",
    );
    expect(issueWords({ path: "expiresAt", message: "must be in the future" }).atField).toBe("must be in the future");
    const bare = issueWords({ path: "domains/0", message: '"a" is not an e-mail domain' });
    expect([bare.atField, bare.alone]).toEqual(['"a" is not an e-mail domain', 'Domain 1: "a" is not an e-mail domain']);
    expect(issueWords({ path: "oidc/clientId", message: "x" }, "Client ID of the app").alone).toBe("Client ID of the app: x");
  });
});

describe("the #flash alert says each problem once", () => {
  const textOf = async (e: AppError) =>
    (await errorFragment(e, "req").text())
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ")
      .trim();

  test("a validation error: each issue once in words (no API path, no second copy of a one-issue sentence)", async () => {
    const one = await textOf(validationFailed([{ path: "oidc/clientId", message: "oidc/clientId is required (at most 300 characters)" }]));
    expect(one).toBe("That did not work. Client ID is required (at most 300 characters)");
    const two = await errorFragment(
      validationFailed([
        { path: "domains/0", message: '"a" is not an e-mail domain' },
        { path: "type", message: "must be oidc or saml" },
      ]),
      "req",
    ).text();
    expect(two).not.toContain("The request is not valid.");
    expect(two).toContain(
      '<li data-field="domains/0" data-message="&quot;a&quot; is not an e-mail domain">Domain 1: &quot;a&quot; is not an e-mail domain</li>',
    );
    expect(two).not.toContain("<code>");
  });

  test("an error's own sentence that says more than its issues stays, above them", async () => {
    const e = validationFailed([{ path: "confirm", message: "x is not y" }], "Nothing was deleted: type the name, y, to confirm.");
    expect(await textOf(e)).toBe("That did not work. Nothing was deleted: type the name, y, to confirm. Confirm: x is not y");
  });

  test("unknown talents with issues: the issue alone (not the sentence, not the ids again), its parentheses flat", async () => {
    const e = new AppError(
      "unknown_talents",
      "Unknown talent secret-handling: not in the catalog (nor an expertise). Nothing was changed.",
      {
        ids: ["secret-handling"],
        issues: [{ path: "requiredTalents", message: "unknown: secret-handling (not in the catalog (nor an expertise))" }],
      },
    );
    expect(await textOf(e)).toBe("That did not work. Required talents: unknown: secret-handling (not in the catalog, nor an expertise)");
    const noIssues = new AppError("unknown_talents", "Unknown talent x: not in the catalog. Nothing was changed.", { ids: ["x", "y"] });
    const said = await textOf(noIssues);
    expect(said).toContain("Unknown: y");
    expect(said).not.toContain("Unknown: x");
  });
});
