/** @jsxImportSource hono/jsx */
/**
 * Dependency graphs as server-side SVG (docs/design.md "Pages work without JavaScript"): laid out with @dagrejs/dagre, drawn as
 * plain SVG with a link per node and a text alternative, so it needs no JavaScript and reads
 * in any browser. Requires edges are solid arrows (from a talent to what it needs); conflicts
 * are dashed.
 */
import dagre from "@dagrejs/dagre";
import { kept } from "../lib/kept";

export interface GraphNodeView {
  id: string;
  label: string;
  /** Drawn as: active, disabled, missing (required, not installed), other (not installed), self (the sheet's talent). */
  state: "active" | "disabled" | "missing" | "other" | "self";
  href?: string;
}

export interface GraphEdgeView {
  from: string;
  to: string;
  type: "requires" | "conflicts";
}

const NODE_H = 30;
const CHAR_W = 7.2;

type Layout = ReturnType<typeof computeLayout>;

/**
 * Layouts already computed, by the graph's shape (ids, labels, edges; not the states or links,
 * which do not move a box). dagre takes milliseconds for 50 nodes and a project's graph is the
 * same on every view until its selection changes. Bounded: the oldest shape goes first.
 */
const MAX_LAYOUTS = 500;
const layouts = kept<string, Layout>("Graph layouts by shape", { clock: "none", limit: MAX_LAYOUTS });

/**
 * The two layouts of a graph: left to right, its loose nodes in rows up to 640 wide (a wide
 * screen); top to bottom, rows up to 340 wide (a phone, where the wide one was cut at the screen's edge).
 */
export type GraphShape = "wide" | "narrow";
const SHAPES = { wide: { rankdir: "LR", pack: 640 }, narrow: { rankdir: "TB", pack: 340 } } as const;

/** The layout: node boxes and edge polylines in one coordinate space. */
export function layoutGraph(nodes: GraphNodeView[], edges: GraphEdgeView[], shape: GraphShape = "wide") {
  const nodeKey = nodes.map((n) => `${n.id}\u0001${n.label}`).join("\u0002");
  const edgeKey = edges.map((e) => `${e.from}\u0001${e.to}\u0001${e.type}`).join("\u0002");
  const key = `${shape}\u0004${nodeKey}\u0003${edgeKey}`;
  let l = layouts.get(key);
  if (!l) {
    l = computeLayout(nodes, edges, shape);
    layouts.set(key, l);
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  return { ...l, nodes: l.nodes.map((box) => ({ ...box, ...byId.get(box.id)! })) };
}

/** A node's box width: its label at the monospace advance, padded. */
const boxWidth = (n: GraphNodeView): number => Math.max(60, n.label.length * CHAR_W + 20);
const MARGIN = 8;
const GAP_X = 14;
const GAP_Y = 12;

type Box = GraphNodeView & { x: number; y: number; width: number; height: number };

/**
 * The layout: the nodes that have an edge by dagre (left to right), the others packed in rows
 * under them — dagre would stack every unlinked node in one rank, 50 installed talents with few
 * prerequisites making a strip 1,600 px tall.
 */
function computeLayout(nodes: GraphNodeView[], edges: GraphEdgeView[], shape: GraphShape) {
  const ids = new Set(nodes.map((n) => n.id));
  const linked = new Set<string>();
  for (const e of edges) if (ids.has(e.from) && ids.has(e.to)) linked.add(e.from).add(e.to);
  const drawn = dagreLayout(
    nodes.filter((n) => linked.has(n.id)),
    edges,
    shape,
  );
  const loose = nodes.filter((n) => !linked.has(n.id));
  // nodes with no edge are packed in rows at most this wide (or as wide as the linked part): a column of 30 read as one long strip
  const rowWidth = Math.max(drawn.width, SHAPES[shape].pack);
  let x = MARGIN;
  let y = drawn.height > 0 ? drawn.height + GAP_Y : MARGIN;
  let right = drawn.width;
  const boxes = new Map<string, Box>(drawn.nodes.map((b) => [b.id, b]));
  for (const n of loose) {
    const width = boxWidth(n);
    if (x > MARGIN && x + width > rowWidth - MARGIN) [x, y] = [MARGIN, y + NODE_H + GAP_Y];
    boxes.set(n.id, { ...n, x: x + width / 2, y: y + NODE_H / 2, width, height: NODE_H });
    x += width + GAP_X;
    right = Math.max(right, x - GAP_X + MARGIN);
  }
  return {
    width: Math.ceil(right),
    height: Math.ceil(loose.length > 0 ? y + NODE_H + MARGIN : drawn.height),
    nodes: nodes.map((n) => boxes.get(n.id)!),
    edges: drawn.edges,
  };
}

/** dagre's layout of the linked nodes: boxes and edge polylines (nothing for no nodes). */
function dagreLayout(nodes: GraphNodeView[], edges: GraphEdgeView[], shape: GraphShape) {
  if (nodes.length === 0)
    return { width: 0, height: 0, nodes: [] as Box[], edges: [] as { type: GraphEdgeView["type"]; points: { x: number; y: number }[] }[] };
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: SHAPES[shape].rankdir, nodesep: 14, ranksep: shape === "wide" ? 46 : 30, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: boxWidth(n), height: NODE_H });
  edges.forEach((e, i) => {
    if (g.hasNode(e.from) && g.hasNode(e.to)) g.setEdge(e.from, e.to, { minlen: 1 }, `${e.type}:${i}`);
  });
  dagre.layout(g);
  const graph = g.graph() as { width?: number; height?: number };
  return {
    width: Math.ceil(graph.width ?? 0),
    height: Math.ceil(graph.height ?? 0),
    nodes: nodes.map((n): Box => ({ ...n, ...(g.node(n.id) as { x: number; y: number; width: number; height: number }) })),
    edges: g.edges().map((ref) => ({
      type: (ref.name ?? "").split(":")[0] as GraphEdgeView["type"],
      points: (g.edge(ref) as { points: { x: number; y: number }[] }).points,
    })),
  };
}

/** The least a graph is scaled to fit its box: 12 px labels stay 10 px and more. */
const MIN_SCALE = 0.85;

const STATE_TEXT: Record<GraphNodeView["state"], string> = {
  active: "active",
  disabled: "installed, disabled",
  missing: "required, not installed",
  other: "not installed",
  self: "this talent",
};

/**
 * The graph as an SVG figure with its text alternative (the list of nodes and edges): drawn left to
 * right for a wide screen and top to bottom for a phone (public/app.css shows one of the two).
 */
export function GraphSvg(props: { nodes: GraphNodeView[]; edges: GraphEdgeView[]; title: string }) {
  if (props.nodes.length === 0) return null;
  return (
    <figure class="graph">
      {/* shrinks to fit down to MIN_SCALE (labels stay legible), then scrolls in its own box */}
      <div class="scroll-x" role="region" aria-label={props.title} tabindex={0}>
        <GraphDrawing {...props} shape="wide" />
        <GraphDrawing {...props} shape="narrow" />
      </div>
      <figcaption class="visually-hidden">{graphCaption(props.title, props.nodes, props.edges)}</figcaption>
    </figure>
  );
}

function GraphDrawing(props: { nodes: GraphNodeView[]; edges: GraphEdgeView[]; title: string; shape: GraphShape }) {
  const l = layoutGraph(props.nodes, props.edges, props.shape);
  // ids are per drawing: both are in the page
  const suffix = props.shape === "wide" ? "" : "-n";
  const path = (pts: { x: number; y: number }[]) =>
    pts.map((p, i) => `${i === 0 ? "M" : "L"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
  return (
    <svg
      viewBox={`0 0 ${l.width} ${l.height}`}
      width={l.width}
      height={l.height}
      class={props.shape}
      aria-labelledby={`graph-title${suffix}`}
      style={`max-width:100%;min-width:${Math.floor(l.width * MIN_SCALE)}px;height:auto`}
    >
      <title id={`graph-title${suffix}`}>{props.title}</title>
      <defs>
        <marker id={`arrow${suffix}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M0,0 L10,5 L0,10 z" class="graph-arrow" />
        </marker>
      </defs>
      {l.edges.map((e) => (
        <path
          d={path(e.points)}
          class={`graph-edge ${e.type}`}
          marker-end={e.type === "requires" ? `url(#arrow${suffix})` : undefined}
          fill="none"
        />
      ))}
      {l.nodes.map((n) => {
        const box = (
          <g class={`graph-node ${n.state}`}>
            <title>{`${n.id}: ${STATE_TEXT[n.state]}`}</title>
            <rect x={n.x - n.width / 2} y={n.y - n.height / 2} width={n.width} height={n.height} rx="6" />
            <text x={n.x} y={n.y + 4} text-anchor="middle">
              {n.label}
            </text>
          </g>
        );
        return n.href ? <a href={n.href}>{box}</a> : box;
      })}
    </svg>
  );
}

/** The graph in words for screen readers: the title with its nodes, then its edges; a sentence only when there is something in it. */
export function graphCaption(title: string, nodes: GraphNodeView[], edges: GraphEdgeView[]): string {
  const sentences = [nodes.length > 0 ? `${title}: ${nodes.map((n) => `${n.id} (${STATE_TEXT[n.state]})`).join(", ")}.` : `${title}.`];
  if (edges.length > 0) {
    sentences.push(`${edges.map((e) => `${e.from} ${e.type === "requires" ? "requires" : "conflicts with"} ${e.to}`).join("; ")}.`);
  }
  return sentences.join(" ");
}
