/** @jsxImportSource hono/jsx */
/**
 * The one form layout (src/ui/form.tsx): a field's label names its control (`for` = the
 * control's id), the help and the field's own error are under the control and named by its
 * `aria-describedby`, an error marks the control `aria-invalid`; without an error the error
 * line is an empty hidden slot (filled for htmx by public/app.js). A check box (CheckField) and a group of
 * choices (ChoiceField: a fieldset named by its legend, its error under it) have the same error slot; a refusal
 * (refusalOf) is sorted by field, what no single field caused said at the top of the form (RefusalLine).
 */
import { describe, expect, test } from "bun:test";
import { CheckField, ChoiceField, Field, RefusalLine, refusalOf } from "../../src/ui/form";
import { AppError, validationFailed } from "../../src/http/errors";

const html = (node: unknown): string => String(node);

describe("Field: the label, the help and the field's own error belong to its control", () => {
  test("the control gets the field's id, and aria-describedby names the help and the error (aria-invalid with an error)", () => {
    const out = html(
      <Field id="p-repo" label="Repository" help="Its path under the code hosting." error="repository must be at most 200 characters">
        <input name="repository" />
      </Field>,
    );
    expect(out).toContain('<label for="p-repo">Repository</label>');
    expect(out).toMatch(/<input id="p-repo" name="repository" aria-describedby="p-repo-help p-repo-error" aria-invalid="true"\/>/);
    expect(out).toContain('<p class="help" id="p-repo-help">Its path under the code hosting.</p>');
    expect(out).toContain('<p class="field-error" id="p-repo-error">repository must be at most 200 characters</p>');
    // order: label, control, help, error
    expect(out.indexOf("<label")).toBeLessThan(out.indexOf("<input"));
    expect(out.indexOf("<input")).toBeLessThan(out.indexOf('id="p-repo-help"'));
    expect(out.indexOf('id="p-repo-help"')).toBeLessThan(out.indexOf('id="p-repo-error"'));
  });

  test("without help or error: no aria-describedby, no aria-invalid, the error slot empty and hidden; a control's own describedby is kept", () => {
    const plain = html(
      <Field id="name" label="Name">
        <input name="name" />
      </Field>,
    );
    expect(plain).toContain('<input id="name" name="name"/>');
    expect(plain).toContain('<p class="field-error" id="name-error" hidden=""></p>');
    const own = html(
      <Field id="q" label="Search" help="Words or a rule id.">
        <input name="q" aria-describedby="elsewhere" />
      </Field>,
    );
    expect(own).toContain('aria-describedby="q-help elsewhere"');
  });
});

describe("CheckField and ChoiceField: the same error slot as Field", () => {
  test("a check box's error is under it, names it and marks it invalid; without one the slot is empty and hidden", () => {
    const out = html(
      <CheckField id="sso-enforce" label="Enforce" error="must be true or false">
        <input type="checkbox" name="enforce" value="true" />
      </CheckField>,
    );
    expect(out).toMatch(
      /<input id="sso-enforce" type="checkbox" name="enforce" value="true" aria-describedby="sso-enforce-error" aria-invalid="true"\/>/,
    );
    expect(out).toContain('<p class="field-error" id="sso-enforce-error">must be true or false</p>');
    const plain = html(
      <CheckField id="c" label="C">
        <input type="checkbox" name="c" />
      </CheckField>,
    );
    expect(plain).toContain('<p class="field-error" id="c-error" hidden=""></p>');
    expect(plain).not.toContain("aria-invalid");
  });

  test("a group of choices is a fieldset with its legend, named by its error (the slot app.js finds by data-issue-path)", () => {
    const out = html(
      <ChoiceField id="sso-type" legend="Protocol" issuePath="type" error="must be oidc or saml">
        <label class="check">
          <input type="radio" name="type" value="oidc" /> OIDC
        </label>
      </ChoiceField>,
    );
    expect(out).toContain(
      '<fieldset class="field choice" id="sso-type" data-issue-path="type" aria-describedby="sso-type-error"><legend>Protocol</legend>',
    );
    expect(out).toContain('<p class="field-error" id="sso-type-error">must be oidc or saml</p></fieldset>');
    const plain = html(
      <ChoiceField id="g" legend="G" issuePath="g" help="Pick one.">
        <input type="radio" name="g" />
      </ChoiceField>,
    );
    expect(plain).toContain('aria-describedby="g-help"');
    expect(plain).toContain('<p class="field-error" id="g-error" hidden=""></p>');
  });
});

describe("refusalOf and RefusalLine: a refused post sorted by field", () => {
  const fieldOf = (path: string) => ({ domains: "sso-domains", type: "sso-type" })[path.replace(/\/\d+$/, "")] ?? "";

  test("issues go under their fields (several of one field in order); the rest at the top of the form", () => {
    const r = refusalOf(
      validationFailed([
        { path: "domains/0", message: "a is bad" },
        { path: "domains/1", message: "b is bad" },
        { path: "type", message: "must be oidc or saml" },
        { path: "elsewhere", message: "is odd" },
      ]),
      fieldOf,
    );
    expect(r).toEqual({ whole: "Elsewhere is odd", fields: { "sso-domains": "a is bad; b is bad", "sso-type": "must be oidc or saml" } });
    expect(html(<RefusalLine id="top" refusal={r} />)).toBe(
      '<p class="error" role="alert" id="top">Elsewhere is odd. Not saved: fix the 2 fields marked below.</p>',
    );
  });

  test("a refusal naming its field (a 409) goes under it; one naming none is the form's; no refusal, no line", () => {
    const conflict = new AppError("conflict", "taken.example is verified by another organization.", { field: "domains" });
    expect(refusalOf(conflict, fieldOf)).toEqual({
      whole: null,
      fields: { "sso-domains": "taken.example is verified by another organization." },
    });
    expect(html(<RefusalLine id="top" refusal={refusalOf(conflict, fieldOf)} />)).toContain("Not saved: fix the field marked below.");
    expect(refusalOf(new AppError("conflict", "Clash."), fieldOf)).toEqual({ whole: "Clash.", fields: {} });
    expect(html(<RefusalLine id="top" refusal={null} />)).toBe("");
  });
});
