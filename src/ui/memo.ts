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
declareKept("Whole pages' bytes by the kept objects drawn and every other input (home feed, Activity tab)", {
  clock: "identity",
  limit: "4 MiB of pages each (home, Activity), FIFO",
});

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

/**
 * Whole pages kept as their UTF-8 bytes (the home feed, a project's Activity tab: viewed again and again while nothing
 * changes), in a Blob: a Response shares a Blob's bytes, where it copies a typed array's and encodes a string as it sends
 * it. `key` names every input that is not a kept object (the viewer, the navigation, the project row, the query);
 * `parts` are the kept objects the page is drawn from, compared by identity (a kept read hands back the same object until
 * its clock moves) and held weakly, so a page never keeps a stale read alive. A hit skips the render, the string a render
 * builds and its encoding: the bytes are the same a render would give. Bounded by the bytes kept (oldest out first).
 */
export class KeptPages {
  private readonly map: KeptMap<string, { parts: WeakRef<object>[]; bytes: Blob }>;
  constructor(maxBytes: number) {
    this.map = new KeptMap(maxBytes, { weigh: (page) => page.bytes.size });
  }

  /** The page's bytes: kept ones when `key` was drawn from the same `parts`, else `draw()` encoded and kept. */
  bytes(key: string, parts: readonly object[], draw: () => string): Blob {
    const hit = this.map.get(key);
    if (hit && hit.parts.length === parts.length && hit.parts.every((p, i) => p.deref() === parts[i])) return hit.bytes;
    const bytes = new Blob([draw()]);
    this.map.delete(key); // a redrawn page is the newest
    this.map.set(key, { parts: parts.map((p) => new WeakRef(p)), bytes });
    return bytes;
  }
}
