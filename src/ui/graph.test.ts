import { describe, expect, test } from "bun:test";
import { layoutGraph, type GraphEdgeView, type GraphNodeView } from "./graph";

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
