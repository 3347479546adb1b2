/**
 * Rendered HTML kept by a key that names everything it was made of (the render
 * figures: hono/jsx costs about a microsecond per element, and the same blocks — a 50-row
 * table, the specializations, the connection kit — are drawn again on every view). The key is
 * the whole input, so a hit is the same bytes a render would give; the map is bounded, oldest
 * entry out first.
 */
import { raw } from "hono/html";
import { declareKept } from "../lib/kept";
import { KeptMap } from "../lib/keptMap";

declareKept("Rendered HTML by its whole input (header, connection kit, specializations, filters)", {
  clock: "none",
  limit: "1,024; 256; 256; 512; 1,024 (activity rows), FIFO (each HtmlMemo's own)",
});
declareKept("Rendered HTML per object (cards, overviews, dashboard sections)", { clock: "identity", limit: "identity" });

export class HtmlMemo {
  private readonly map: KeptMap<string, string>;
  constructor(max: number) {
    this.map = new KeptMap(max);
  }

  /** The HTML for `key`, drawn by `draw` on a miss, as already-escaped HTML for hono/jsx. */
  render(key: string, draw: () => unknown) {
    let html = this.map.get(key);
    if (html === undefined) {
      html = String(draw());
      this.map.set(key, html);
    }
    return raw(html);
  }
}

/** Rendered HTML kept per object (a talent, an overview): gone with the object. `same` checks the other inputs. */
export class HtmlByObject<K extends object, X> {
  private readonly map = new WeakMap<K, { extra: X; html: string }>();
  constructor(private readonly same: (a: X, b: X) => boolean) {}

  render(key: K, extra: X, draw: () => unknown) {
    const hit = this.map.get(key);
    if (hit && this.same(hit.extra, extra)) return raw(hit.html);
    const html = String(draw());
    this.map.set(key, { extra, html });
    return raw(html);
  }
}
