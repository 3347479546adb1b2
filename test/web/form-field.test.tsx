/** @jsxImportSource hono/jsx */
/**
 * The one form layout (src/ui/form.tsx): a field's label names its control (`for` = the
 * control's id), the help and the field's own error are under the control and named by its
 * `aria-describedby`, an error marks the control `aria-invalid`; without an error the error
 * line is an empty hidden slot (filled for htmx by public/app.js).
 */
import { describe, expect, test } from "bun:test";
import { Field } from "../../src/ui/form";

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
