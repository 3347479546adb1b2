import { describe, expect, test } from "bun:test";
import { GraphSvg, graphCaption, layoutGraph, type GraphEdgeView, type GraphNodeView } from "../../src/ui/graph";

describe("layoutGraph (the layout memo)", () => {
  const edges: GraphEdgeView[] = [{ from: "a", to: "b", type: "requires" }];
  test("the same shape is laid out once: the boxes are the same, the states and links are this call's", () => {
    const first = layoutGraph(
      [
        { id: "a", label: "a", state: "active" },
        { id: "b", label: "b", state: "active" },
      ],
      edges,
    );
    const again = layoutGraph(
      [
        { id: "a", label: "a", state: "disabled", href: "/x" },
        { id: "b", label: "b", state: "missing" },
      ],
      edges,
    );
    expect(again.nodes.map((n) => [n.x, n.y, n.width])).toEqual(first.nodes.map((n) => [n.x, n.y, n.width]));
    expect(again.nodes.map((n) => [n.id, n.state, n.href])).toEqual([
      ["a", "disabled", "/x"],
      ["b", "missing", undefined],
    ]);
    expect(again.edges).toEqual(first.edges);
  });
  test("another shape (a node added, a label longer) gets its own layout", () => {
    const small = layoutGraph(
      [
        { id: "a", label: "a", state: "active" },
        { id: "b", label: "b", state: "active" },
      ],
      edges,
    );
    const wider = layoutGraph(
      [
        { id: "a", label: "a much longer label", state: "active" },
        { id: "b", label: "b", state: "active" },
      ],
      edges,
    );
    const more = layoutGraph(
      [
        { id: "a", label: "a", state: "active" },
        { id: "b", label: "b", state: "active" },
        { id: "c", label: "c", state: "other" },
      ],
      edges,
    );
    expect(wider.width).toBeGreaterThan(small.width);
    expect(more.nodes.length).toBe(3);
    expect(more.height).toBeGreaterThan(small.height);
  });
});

describe("the graph's caption (screen readers)", () => {
  const node: GraphNodeView = { id: "solo", label: "solo", state: "active" };
  test("a graph without edges never ends in '. .': one sentence of its nodes", () => {
    const html = String(GraphSvg({ nodes: [node], edges: [], title: "Installed talents and what they require" }));
    const caption = /<figcaption[^>]*>([^<]*)<\/figcaption>/.exec(html)![1]!;
    expect(caption).not.toMatch(/\.\s*\.\s*$/);
    expect(caption).toBe(graphCaption("Installed talents and what they require", [node], []));
    expect(caption).toMatch(/^Installed talents and what they require: solo \([^)]+\)\.$/);
  });
  test("with edges: the nodes' sentence, then the edges' sentence, each ending once", () => {
    const b: GraphNodeView = { id: "b", label: "b", state: "active" };
    const text = graphCaption("T", [node, b], [{ from: "solo", to: "b", type: "requires" }]);
    expect(text).toMatch(/^T: solo \([^)]+\), b \([^)]+\)\. solo requires b\.$/);
  });
});

describe("layoutGraph (legible with many nodes)", () => {
  test("nodes without an edge are packed in rows under the linked ones, not stacked in one column; no two boxes overlap", () => {
    const nodes: GraphNodeView[] = Array.from({ length: 40 }, (_, i) => ({ id: `talent-${i}`, label: `talent-${i}`, state: "active" }));
    const edges: GraphEdgeView[] = [{ from: "talent-0", to: "talent-1", type: "requires" }];
    const l = layoutGraph(nodes, edges);
    // one column of 38 boxes of 30 px would be over 1,500 px tall
    expect(l.height).toBeLessThan(500);
    expect(l.width).toBeLessThanOrEqual(700);
    const linked = l.nodes.filter((n) => n.id === "talent-0" || n.id === "talent-1");
    const loose = l.nodes.filter((n) => !linked.includes(n));
    expect(Math.min(...loose.map((n) => n.y))).toBeGreaterThan(Math.max(...linked.map((n) => n.y)));
    for (const a of l.nodes)
      for (const b of l.nodes)
        if (a !== b) expect(Math.abs(a.x - b.x) < (a.width + b.width) / 2 && Math.abs(a.y - b.y) < (a.height + b.height) / 2).toBe(false);
  });
});
