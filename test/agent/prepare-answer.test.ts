/**
 * Prepare-task's answer written around kept JSON text (src/resolution/prepareAnswer.ts): the same
 * bytes JSON.stringify gives the whole answer, and the kept text is the one of the current
 * designation memo and number served.
 */
import { describe, expect, test } from "bun:test";
import { answerJson, servedTalentsJson } from "../../src/resolution/prepareAnswer";
import type { ServableItem } from "../../src/selection/sources";
import { shipped } from "../helpers";

const items = (ids: string[]): ServableItem[] =>
  ids.map((id) => {
    const talent = shipped().get(id)!;
    return { id, kind: talent.kind, version: talent.version, expertiseId: null, talent } as unknown as ServableItem;
  });

describe("prepare-task's answer as text", () => {
  test("answerJson gives the bytes JSON.stringify gives the whole answer, fields in the same order", () => {
    const served = items(["typescript-strict", "javascript-base"]);
    const memo = {};
    const head = { resolutionId: "res_1", language: null, createdAt: "2026-11-28T00:00:00.000Z" };
    const tail = { prerequisites: [{ id: "x", requiredBy: ["y"], active: false }], conflicts: [], tokens: 12, next: ['say "hi"\n'] };
    const talents = served.map((d) => ({
      id: d.id,
      kind: d.kind,
      version: d.version,
      digest: d.talent.compactDigest,
      uri: d.talent.uri,
      compact: d.talent.compact,
    }));
    const text = answerJson(head, servedTalentsJson(memo, "dsg_a", served), tail);
    expect(text).toBe(JSON.stringify({ ...head, talents, ...tail }));
  });

  test("the kept text is per designation memo and number served: another memo or count is written afresh", () => {
    const three = items(["typescript-strict", "javascript-base", "conventional-commits"]);
    const memo = {};
    const all = servedTalentsJson(memo, "dsg_b", three);
    expect(servedTalentsJson(memo, "dsg_b", three)).toBe(all);
    const two = servedTalentsJson(memo, "dsg_b", three.slice(0, 2));
    expect(JSON.parse(two).map((t: { id: string }) => t.id)).toEqual(["typescript-strict", "javascript-base"]);
    // a new memo (the project's active items changed): the text is written again from the items given
    const renamed = three.map((d) => ({ ...d, talent: Object.assign(Object.create(d.talent), { uri: `talent://other/${d.id}` }) }));
    const fresh = servedTalentsJson({}, "dsg_b", renamed);
    expect(JSON.parse(fresh)[0].uri).toBe("talent://other/typescript-strict");
    expect(JSON.parse(all)[0].uri).toBe("talent://typescript-strict");
  });
});
