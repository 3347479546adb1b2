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

/** The layout: node boxes and edge polylines in one coordinate space. */
export function layoutGraph(nodes: GraphNodeView[], edges: GraphEdgeView[]) {
  const key = `${nodes.map((n) => `${n.id}\u0001${n.label}`).join("\u0002")}\u0003${edges.map((e) => `${e.from}\u0001${e.to}\u0001${e.type}`).join("\u0002")}`;
  let l = layouts.get(key);
  if (!l) {
    l = computeLayout(nodes, edges);
    layouts.set(key, l);
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  return { ...l, nodes: l.nodes.map((box) => ({ ...box, ...byId.get(box.id)! })) };
}

function computeLayout(nodes: GraphNodeView[], edges: GraphEdgeView[]) {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "LR", nodesep: 14, ranksep: 46, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: Math.max(60, n.label.length * CHAR_W + 20), height: NODE_H });
  edges.forEach((e, i) => {
    if (g.hasNode(e.from) && g.hasNode(e.to)) g.setEdge(e.from, e.to, { minlen: e.type === "conflicts" ? 1 : 1 }, `${e.type}:${i}`);
  });
  dagre.layout(g);
  const graph = g.graph() as { width?: number; height?: number };
  return {
    width: Math.ceil(graph.width ?? 0),
    height: Math.ceil(graph.height ?? 0),
    nodes: nodes.map((n) => ({ ...n, ...(g.node(n.id) as { x: number; y: number; width: number; height: number }) })),
    edges: g.edges().map((ref) => ({
      type: (ref.name ?? "").split(":")[0] as GraphEdgeView["type"],
      points: (g.edge(ref) as { points: { x: number; y: number }[] }).points,
    })),
  };
}

const STATE_TEXT: Record<GraphNodeView["state"], string> = {
  active: "active",
  disabled: "installed, disabled",
  missing: "required, not installed",
  other: "not installed",
  self: "this talent",
};

/** The graph as an SVG figure with its text alternative (the list of nodes and edges). */
export function GraphSvg(props: { nodes: GraphNodeView[]; edges: GraphEdgeView[]; title: string }) {
  if (props.nodes.length === 0) return null;
  const l = layoutGraph(props.nodes, props.edges);
  const path = (pts: { x: number; y: number }[]) =>
    pts.map((p, i) => `${i === 0 ? "M" : "L"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
  return (
    <figure class="graph">
      <svg
        viewBox={`0 0 ${l.width} ${l.height}`}
        width={l.width}
        height={l.height}
        aria-labelledby="graph-title"
        style={`max-width:100%;height:auto`}
      >
        <title id="graph-title">{props.title}</title>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" class="graph-arrow" />
          </marker>
        </defs>
        {l.edges.map((e) => (
          <path
            d={path(e.points)}
            class={`graph-edge ${e.type}`}
            marker-end={e.type === "requires" ? "url(#arrow)" : undefined}
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
      <figcaption class="visually-hidden">{graphCaption(props.title, props.nodes, props.edges)}</figcaption>
    </figure>
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
