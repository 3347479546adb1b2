/**
 * Whole pages kept as their bytes (src/ui/memo.ts KeptPages; docs/caches.md): a page is drawn again when its key or any
 * of its kept objects differs, kept otherwise (the same Blob, shared by every answer); the bytes kept stay under the limit,
 * the oldest page out first.
 */
import { describe, expect, test } from "bun:test";
import { KeptPages } from "../../src/ui/memo";

describe("KeptPages", () => {
  test("the same key and the same objects → the kept bytes, not drawn again; another object or key → drawn again", async () => {
    const pages = new KeptPages(1024);
    let draws = 0;
    const draw = (text: string) => () => {
      draws++;
      return text;
    };
    const feed = { n: 1 };
    const first = pages.bytes("alice", [feed], draw("<p>one “quoted”</p>"));
    expect(await first.text()).toBe("<p>one “quoted”</p>");
    expect(pages.bytes("alice", [feed], draw("never"))).toBe(first);
    expect(draws).toBe(1);
    // a kept read read again is another object: the page is drawn again
    const again = pages.bytes("alice", [{ n: 1 }], draw("<p>two</p>"));
    expect(await again.text()).toBe("<p>two</p>");
    // another viewer, the same objects: a page of its own
    expect(await pages.bytes("bob", [feed], draw("<p>bob</p>")).text()).toBe("<p>bob</p>");
    // fewer objects (a project gone from the feed): drawn again
    expect(await pages.bytes("bob", [], draw("<p>none</p>")).text()).toBe("<p>none</p>");
    expect(draws).toBe(4);
    // the same bytes serve several answers
    expect(await new Response(first).text()).toBe(await new Response(first).text());
  });

  test("bounded by the bytes kept: past the limit the oldest page goes first", () => {
    const pages = new KeptPages(250);
    const part = {};
    let draws = 0;
    const page = (key: string) =>
      pages.bytes(key, [part], () => {
        draws++;
        return "x".repeat(100);
      });
    page("a");
    page("b");
    page("c"); // 300 bytes: "a" goes
    expect(draws).toBe(3);
    page("c");
    page("b");
    expect(draws).toBe(3);
    page("a");
    expect(draws).toBe(4);
  });
});
