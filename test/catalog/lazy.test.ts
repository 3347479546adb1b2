import { digestOf } from "../../src/lib/crypto";
import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/catalog/catalog";
import type { BlobLoader } from "../../src/catalog/lazy";
import { TalentCache } from "../../src/catalog/lazy";
import { talentMd } from "../helpers";
import type { TalentSource } from "../../src/catalog/validate";

function sources(n: number): TalentSource[] {
  return Array.from({ length: n }, (_, i) => ({
    folder: `lz-${i}`,
    files: {
      "TALENT.md": talentMd(`lz-${i}`, { requires: i > 0 ? `[lz-${i - 1}]` : "[]" }, `Body ${i}. See talent://lz-${i}/references/more.md`),
      "references/more.md": `# More ${i}\n\nDetails ${i}.\n`,
    },
    label: (p: string) => `x/lz-${i}/${p}`,
  }));
}

describe("lazy talents (a large TALENTS_DIR kept out of memory)", () => {
  test("a lazy twin answers every field with the same bytes as the full talent", () => {
    const full = buildCatalog(sources(5)).catalog;
    const lazy = buildCatalog(sources(5)).catalog;
    const store = new Map<string, string>();
    for (const t of lazy.list) for (const f of t.files.values()) store.set(f.digest, f.content);
    let loads = 0;
    const load: BlobLoader = (digests) => {
      loads++;
      return new Map(digests.map((d) => [d, store.get(d)!]));
    };
    expect(lazy.offload(new Set(lazy.list.map((t) => t.id)), load, new TalentCache(2))).toBe(5);
    for (const t of full.list) {
      const l = lazy.get(t.id)!;
      expect(Object.getOwnPropertyDescriptor(l, "body")?.get).toBeDefined();
      for (const k of [
        "id",
        "title",
        "summary",
        "version",
        "roles",
        "languages",
        "triggers",
        "requires",
        "conflicts",
        "budget",
        "ruleCount",
        "uri",
        "mainFile",
        "compactDigest",
        "tokens",
        "digest",
        "body",
        "rules",
        "tests",
        "pointers",
        "compact",
      ] as const) {
        expect(`${t.id}.${k}: ${JSON.stringify(l[k])}`).toBe(`${t.id}.${k}: ${JSON.stringify(t[k])}`);
      }
      expect([...l.files.values()]).toEqual([...t.files.values()]);
      // the compact form kept by a cached rebuild is the served one, on every read
      for (let i = 0; i < 2; i++) expect(digestOf(l.compact)).toBe(t.compactDigest);
    }
    expect(loads).toBeGreaterThan(0);
    // search and listing work without rebuilding (light fields only)
    const before = loads;
    expect(lazy.search("lz-3").map((h) => h.id)[0]).toBe("lz-3");
    expect(lazy.list.map((t) => t.ruleCount)).toEqual([3, 3, 3, 3, 3]);
    expect(loads).toBe(before);
  });

  test("the full talents are released once their lazy twins replace them", async () => {
    const { catalog } = buildCatalog(sources(20));
    // built in a function of its own, so no local of this one keeps the full list reachable
    // (Bun's collector scans the stack conservatively: a stale slot could hold the old array)
    const refs = ((): WeakRef<object>[] => {
      const refs = catalog.list.map((t) => new WeakRef(t));
      const store = new Map<string, string>();
      for (const t of catalog.list) for (const f of t.files.values()) store.set(f.digest, f.content);
      catalog.offload(new Set(catalog.list.map((t) => t.id)), (ds) => new Map(ds.map((d) => [d, store.get(d)!])));
      return refs;
    })();
    const alive = () => refs.filter((r) => r.deref() !== undefined).length;
    for (let i = 0; i < 5 && alive() > 0; i++) {
      Bun.gc(true);
      await Bun.sleep(20);
    }
    expect(alive()).toBe(0);
    expect(catalog.get("lz-7")!.compact).toContain("Body 7.");
  });

  test("a missing blob is an error, not a silently empty talent", () => {
    const { catalog } = buildCatalog(sources(2));
    catalog.offload(new Set(["lz-0"]), () => new Map());
    expect(() => catalog.get("lz-0")!.body).toThrow(/blob .* is missing/);
    expect(catalog.get("lz-1")!.body).toContain("Body 1.");
  });
});
