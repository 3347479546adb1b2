/** @jsxImportSource hono/jsx */
/**
 * The dashboard's tables (docs/design.md "Phones: tables as cards"): `DataTable` draws a caption,
 * column headers and the body's rows, and gives every body cell its column's name once, here
 * (`data-label`), so that under 700 px the stylesheet stacks each row as a card, each cell on its
 * own line after its label, instead of scrolling the desktop columns inside a box.
 */
import { raw } from "hono/html";
import type { Child } from "hono/jsx";

/** A column: its name (the header and every cell's label), or a header drawn otherwise (a sort link) with the name as its label. */
export type Column = string | { label: string; head: Child; sort?: "ascending" | "descending" };

const labelOf = (c: Column): string => (typeof c === "string" ? c : c.label);

/**
 * A table of rows: a caption for screen readers (visually hidden: the card's heading names it
 * for the eye), its column headers, and the children as the body's rows, each cell labelled with
 * its column. `label` names the box for assistive technology (the caption when absent).
 */
export function DataTable(props: { caption: string; columns: Column[]; label?: string; class?: string; children?: Child }) {
  return (
    <ScrollBox label={props.label ?? props.caption} stack>
      <table class={props.class}>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" aria-sort={typeof c === "string" ? undefined : c.sort}>
                {typeof c === "string" ? c : c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{labelledRows(props.children, props.columns.map(labelOf))}</tbody>
      </table>
    </ScrollBox>
  );
}

/**
 * A box that scrolls sideways by itself when what it holds (a wide graph, a table on a wide
 * screen) is wider than its place, so the page never does; focusable, so a keyboard can scroll it
 * too. `stack`: it holds a table that becomes cards on a phone (public/app.css).
 */
export function ScrollBox(props: { label: string; stack?: boolean; children?: Child }): Child {
  return (
    <div class={props.stack ? "scroll-x stack" : "scroll-x"} role="region" aria-label={props.label} tabindex={0}>
      {props.children}
    </div>
  );
}

/** The rows rendered, each body cell given its column's label (a cell that names its own keeps it). */
function labelledRows(children: Child, labels: string[]): Child {
  const html = String(<>{children}</>);
  // an asynchronous child renders later: its rows go unlabelled rather than being awaited here
  return typeof html === "string" ? raw(labelCells(html, labels)) : children;
}

const TAG = /<(\/?)(table|tr|td|th)\b([^>]*)>/gi;
const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * `html` (rows rendered by hono/jsx, so every `<` of a text or attribute is escaped and each tag
 * below is a real one) with `data-label="<column>"` on each cell of the outer rows, counting
 * `colspan`; cells of a table nested in a cell, and cells that carry a `data-label`, are left as
 * they are. A column with an empty name labels nothing.
 */
export function labelCells(html: string, labels: string[]): string {
  let depth = 0;
  let column = 0;
  return html.replace(TAG, (tag, close: string, name: string, attrs: string) => {
    const n = name.toLowerCase();
    if (n === "table") {
      depth += close ? -1 : 1;
      return tag;
    }
    if (close || depth > 0) return tag;
    if (n === "tr") {
      column = 0;
      return tag;
    }
    const at = column;
    column += Number(/\bcolspan="(\d+)"/i.exec(attrs)?.[1] ?? 1);
    const label = labels[at];
    if (!label || /\bdata-label=/i.test(attrs)) return tag;
    return `<${name} data-label="${escapeAttr(label)}"${attrs}>`;
  });
}
