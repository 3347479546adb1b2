/**
 * The discovery index keeps each talent's entry (its summary's line and its length) by the talent's identity
 * (src/resolution/discovery.ts): an answer built from kept entries is the one built fresh, whatever each entry's
 * `relevant`, and the index is still filled to the budget — the next entry would pass it.
 */
import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/catalog/catalog";
import { sourcesFromFlat } from "../../src/catalog/load";
import { embeddedTalents } from "../../src/embedded";
import { DISCOVERY_BUDGET, discoveryPlaybook, oneLine } from "../../src/resolution/discovery";

const shipped = () => buildCatalog(sourcesFromFlat(embeddedTalents())).catalog;
const voice = { channel: "api" as const, scopes: ["prepare_task", "validate", "discover", "install"] };
const answerOf = (catalog: ReturnType<typeof shipped>, languages: string[], offset = 0) =>
  discoveryPlaybook({
    catalog,
    rows: [],
    active: new Map(),
    expertises: [],
    relevance: { languages, roles: [], paths: [], exclude: [] },
    offset,
    voice,
  });

describe("discovery index entries kept per talent", () => {
  test("kept entries: the same answer as a fresh catalog's, with a talent listed relevant in one answer and not in another", () => {
    const catalog = shipped();
    const plain = answerOf(catalog, []);
    const go = answerOf(catalog, ["go"]); // go talents relevant, read from the entries kept by the first answer
    expect(go.catalog.talents.some((t) => t.relevant)).toBe(true);
    expect(go.catalog.talents.some((t) => !t.relevant)).toBe(true);
    const fresh = shipped();
    expect(answerOf(fresh, ["go"])).toEqual(go);
    expect(answerOf(fresh, [])).toEqual(plain);
    for (const t of go.catalog.talents) expect(t.summary).toBe(oneLine(catalog.list.find((x) => x.id === t.id)!.summary));
  });

  for (const languages of [[], ["go"], ["typescript"]])
    test(`the index is filled to the budget with kept entries (languages ${languages.join(",") || "none"}): the next entry would pass ${DISCOVERY_BUDGET} tokens`, () => {
      const catalog = shipped();
      answerOf(catalog, languages); // entries kept
      for (const offset of [0, 3]) {
        const a = answerOf(catalog, languages, offset);
        expect(a.catalog.left).toBeGreaterThan(0);
        expect(Math.ceil(JSON.stringify(a).length / 4)).toBeLessThanOrEqual(DISCOVERY_BUDGET);
        // the entry that did not fit opens the next page; the frame as measured holds the largest numbers
        const next = answerOf(catalog, languages, a.catalog.next!).catalog.talents[0]!;
        const grown = {
          ...a,
          catalog: { ...a.catalog, left: a.catalog.total, next: a.catalog.total, talents: [...a.catalog.talents, next] },
        };
        expect(JSON.stringify(grown).length).toBeGreaterThan(DISCOVERY_BUDGET * 4);
      }
    });
});
