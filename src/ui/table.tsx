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

/** A hono/jsx element as the walk below sees it: an intrinsic tag (`tr`, `td`) or a component, its props and children. */
interface Node {
  tag: unknown;
  props: Record<string, unknown>;
  children: unknown[];
}
const isNode = (x: unknown): x is Node =>
  typeof x === "object" && x !== null && "tag" in x && "props" in x && Array.isArray((x as Node).children);
const isRaw = (x: unknown): x is string & { isEscaped: true } =>
  x instanceof String && (x as unknown as { isEscaped?: boolean }).isEscaped === true;

/**
 * The rows, each body cell given its column's label before rendering: the elements' `td`/`th`
 * props are set (a cell that names its own label keeps it), components and fragments between are
 * called first so their cells are counted (they are plain functions of their props here), and HTML
 * kept already rendered (a memo's row) goes through `labelCells`. Setting props costs next to
 * nothing; labelling the rendered HTML instead doubled a table's render (bench/tablelabels.tsx).
 */
function labelledRows(children: Child, labels: string[]): Child {
  const attrs = labels.map((l) => l || null);
  return eachRow(children, attrs);
}

function eachRow(x: unknown, labels: (string | null)[]): Child {
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) x[i] = eachRow(x[i], labels);
    return x as Child;
  }
  // HTML kept rendered: a row that labels its cells itself (the Activity tab's) is taken as it is, without a pass over it
  if (isRaw(x))
    return x.includes("data-label=")
      ? (x as unknown as Child)
      : raw(
          labelCells(
            String(x),
            labels.map((l) => l ?? ""),
          ),
        );
  if (!isNode(x)) return x as Child;
  if (x.tag === "tr") {
    labelRow(x.children, labels, 0);
    return x as unknown as Child;
  }
  const called = called_(x);
  return called === x ? (x as unknown as Child) : eachRow(called, labels);
}

/** Labels the cells among `children` from column `at` on; returns the next column. */
function labelRow(children: unknown[], labels: (string | null)[], at: number): number {
  for (let i = 0; i < children.length; i++) {
    const c = children[i];
    if (Array.isArray(c)) at = labelRow(c, labels, at);
    else if (isRaw(c)) {
      // cells rendered already: labelled as a row of their own from this column
      const cells = String(c);
      children[i] = raw(
        labelCells(
          `<tr>${cells}`,
          labels.slice(at).map((l) => l ?? ""),
        ).slice(4),
      );
      at += (cells.match(/<t[dh][\s>]/g) ?? []).length;
    } else if (isNode(c)) {
      if (c.tag === "td" || c.tag === "th") {
        const label = labels[at];
        if (label && c.props["data-label"] === undefined) c.props["data-label"] = label;
        at += Number(c.props.colspan ?? 1) || 1;
      } else if (typeof c.tag === "function") {
        const called = called_(c);
        if (called === c) continue;
        children[i] = called;
        at = labelRow([called], labels, at);
      }
    }
  }
  return at;
}

/**
 * A component's element called to what it draws (a fragment to its children); the element itself
 * when it is not one, or when it draws later (async).
 */
function called_(x: Node): unknown {
  if (typeof x.tag !== "function") return x;
  const out = (x.tag as (p: unknown) => unknown)({ ...x.props, children: x.children.length <= 1 ? x.children[0] : x.children });
  if (out instanceof Promise) return x;
  // a fragment draws a node of an empty tag holding its children
  return isNode(out) && out.tag === "" ? out.children : out;
}

/** The tags that count, as hono writes them (lower case): a nested table's start and end, a row's start, a cell's start. */
const TAG = /<(\/?)(table|tr|td|th)\b([^>]*)>/g;
const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * `html` (rows rendered by hono/jsx, so every `<` of a text or attribute is escaped and each tag
 * below is a real one) with `data-label="<column>"` on each cell of the outer rows, counting
 * `colspan`; cells of a table nested in a cell, and cells that carry a `data-label`, are left as
 * they are. A column with an empty name labels nothing.
 */
export function labelCells(html: string, labels: string[]): string {
  const attrs = labels.map((l) => (l ? ` data-label="${escapeAttr(l)}"` : ""));
  let depth = 0;
  let column = 0;
  return html.replace(TAG, (tag, close: string, name: string, rest: string) => {
    if (name === "table") {
      depth += close ? -1 : 1;
      return tag;
    }
    if (close || depth > 0) return tag;
    if (name === "tr") {
      column = 0;
      return tag;
    }
    const at = column;
    column += rest.includes("colspan") ? Number(/\bcolspan="(\d+)"/.exec(rest)?.[1] ?? 1) : 1;
    const label = attrs[at];
    if (!label || rest.includes("data-label=")) return tag;
    return `<${name}${label}${rest}>`;
  });
}
