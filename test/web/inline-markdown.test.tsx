/** @jsxImportSource hono/jsx */
/**
 * The inline Markdown of titles, summaries and rules (src/ui/markdown.tsx): HTML in the text stays
 * text, backticks become code, **bold**, *emphasis* and safe links become elements, and an unpaired
 * mark stays as typed. Also the kit's table labels (src/ui/table.tsx): every body cell names its column.
 */
import { describe, expect, test } from "bun:test";
import { raw } from "hono/html";
import { InlineMarkdown, plainInline } from "../../src/ui/markdown";
import { DataTable, labelCells } from "../../src/ui/table";

const md = (text: string, links?: boolean) => String(<InlineMarkdown text={text} links={links} />);

describe("InlineMarkdown: escaped first, a few inline marks drawn", () => {
  test("a <script> in a rule stays text: every < and & is escaped, inside code too", () => {
    expect(md("Never <script>alert(1)</script> & co")).toBe("Never &lt;script&gt;alert(1)&lt;/script&gt; &amp; co");
    expect(md("`<img src=x onerror=alert(1)>`")).toBe("<code>&lt;img src=x onerror=alert(1)&gt;</code>");
  });

  test("backticks become code; the code span is literal (its stars and brackets stay); an unpaired backtick stays", () => {
    expect(md("Use `===` not `==`")).toBe("Use <code>===</code> not <code>==</code>");
    expect(md("`*.spec.ts` and `provide*` helpers")).toBe("<code>*.spec.ts</code> and <code>provide*</code> helpers");
    expect(md("a ` alone")).toBe("a ` alone");
    expect(md("`a` and ` b")).toBe("<code>a</code> and ` b");
  });

  test("**bold** and *emphasis* are drawn; a star between spaces (a * b) is not emphasis", () => {
    expect(md("**Never** use *any*")).toBe("<strong>Never</strong> use <em>any</em>");
    expect(md("2 * 3 * 4")).toBe("2 * 3 * 4");
    expect(md("**bold with `code`**")).toBe("<strong>bold with <code>code</code></strong>");
  });

  test("links to http(s) or a path of this site are links; javascript: and other schemes stay text; no link inside a link", () => {
    expect(md("see [the guide](https://example.com/a?b=1&c=2)")).toBe('see <a href="https://example.com/a?b=1&amp;c=2">the guide</a>');
    expect(md("[sheet](/catalog/x)")).toBe('<a href="/catalog/x">sheet</a>');
    expect(md("[x](javascript:alert(1))")).toBe("[x](javascript:alert(1))");
    expect(md("[x](//evil.test/a)")).toBe("[x](//evil.test/a)");
    expect(md("[guide](https://example.com)", false)).toBe("[guide](https://example.com)");
  });

  test("plainInline drops the marks for a page title", () => {
    expect(plainInline("Use `===` and **never** *any* [here](https://example.com)")).toBe("Use === and never any here");
  });
});

describe("DataTable: each body cell carries its column's name (a phone's card shows it)", () => {
  test("cells get data-label by position, counting colspan; a cell's own label and a nested table's cells are kept", () => {
    const html = String(
      <DataTable caption="Things" columns={["Name", "When & where", "", "Size"]}>
        <tr>
          <td>a</td>
          <td colspan={2}>b</td>
          <td data-label="Own">c</td>
        </tr>
        <tr>
          <th scope="row">d</th>
          <td>
            <table>
              <tr>
                <td>inner</td>
              </tr>
            </table>
          </td>
          <td>e</td>
          <td>f</td>
        </tr>
      </DataTable>,
    );
    const body = html.slice(html.indexOf("<tbody>"));
    expect(body).toContain('<td data-label="Name">a</td>');
    expect(body).toContain('<td colspan="2" data-label="When &amp; where">b</td>');
    expect(body).toContain('<td data-label="Own">c</td>');
    expect(body).toContain('<th scope="row" data-label="Name">d</th>');
    expect(body).toContain("<td>inner</td>");
    expect(body).toContain("<td>e</td>"); // the third column has no name
    expect(body).toContain('<td data-label="Size">f</td>');
  });

  test("rows drawn by a component, cells by a fragment-returning component, and rows kept as rendered HTML (unless they label themselves) are labelled too", () => {
    const Cells = (p: { a: string }) => (
      <>
        <td>{p.a}</td>
        <td>{p.a}2</td>
      </>
    );
    const Row = (p: { a: string }) => (
      <tr>
        <Cells a={p.a} />
        <td>z</td>
      </tr>
    );
    const kept = raw("<tr><td>k1</td><td>k2</td><td>k3</td></tr>");
    // a kept row that labels its cells itself is taken as it is (no pass over it)
    const own = raw('<tr><td data-label="Mine">o1</td><td>o2</td></tr>');
    const html = String(
      <DataTable caption="T" columns={["A", "B", "C"]}>
        <Row a="x" />
        {kept}
        {own}
      </DataTable>,
    );
    expect(html).toContain('<tr><td data-label="A">x</td><td data-label="B">x2</td><td data-label="C">z</td></tr>');
    expect(html).toContain('<tr><td data-label="A">k1</td><td data-label="B">k2</td><td data-label="C">k3</td></tr>');
    expect(html).toContain('<tr><td data-label="Mine">o1</td><td>o2</td></tr>');
  });

  test("labelCells leaves text that only looks like a tag alone (hono escapes it)", () => {
    expect(labelCells("<tr><td>&lt;td&gt;</td></tr>", ["A"])).toBe('<tr><td data-label="A">&lt;td&gt;</td></tr>');
  });
});
