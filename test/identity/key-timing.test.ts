/**
 * The key guard (docs/api.md "Key API"): an unknown, a revoked and an expired key get the same
 * 401 invalid_token — in time too. An attacker once told a key that had existed from one that
 * never had by time alone (423 µs against 151 µs, 97% of interleaved pairs). Here 1,000
 * interleaved samples per case; for each pair of cases the share of pairs where one was slower
 * must be near one half (a distribution-free comparison), and the medians must be close.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { newSecret } from "../../src/lib/crypto";
import { KEY_PREFIX } from "../../src/projects/keys";
import { createKey, orgWithProject, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false" });
});
afterAll(() => env.close());

/** Microseconds one key-API call with `key` takes in-process, answer body read. */
async function timed(key: string): Promise<{ us: number; status: number; body: string }> {
  const t = performance.now();
  const r = await env.app.handle(new Request(`${env.config.baseUrl}/api/doctor`, { headers: { authorization: `Bearer ${key}` } }));
  const body = await r.text();
  return { us: (performance.now() - t) * 1000, status: r.status, body };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe("the four 401 cases are indistinguishable in time", () => {
  test("unknown, revoked and expired keys: same body, and per pair of cases about half the interleaved samples are slower either way", async () => {
    const o = await orgWithProject(env);
    const revoked = await createKey(o.owner, o.project.id, ["doctor"]);
    expect((await o.owner.del(`/web/projects/${o.project.id}/keys/${revoked.key.id}`)).status).toBe(200);
    const expired = await createKey(o.owner, o.project.id, ["doctor"]);
    await env.database.client.execute({ sql: "UPDATE api_keys SET expires_at = 1 WHERE id = ?", args: [expired.key.id] });
    const cases = { unknown: newSecret(KEY_PREFIX, 32), revoked: revoked.value, expired: expired.value };

    const samples: Record<string, number[]> = { unknown: [], revoked: [], expired: [] };
    const bodies = new Set<string>();
    for (let i = 0; i < 100; i++) for (const k of Object.values(cases)) await timed(k); // warm up
    for (let i = 0; i < 1000; i++) {
      for (const [name, key] of Object.entries(cases)) {
        const r = await timed(key);
        expect(r.status).toBe(401);
        bodies.add(r.body);
        samples[name]!.push(r.us);
      }
    }
    expect(bodies.size).toBe(1);
    const names = Object.keys(cases);
    for (const a of names) {
      for (const b of names) {
        if (a >= b) continue;
        const slower = samples[a]!.filter((x, i) => x > samples[b]![i]!).length / 1000;
        const ratio = median(samples[a]!) / median(samples[b]!);
        // before the fix: unknown slower in ~97% of pairs, medians ×2.8
        expect({ pair: `${a}/${b}`, slowerShareOk: slower > 0.3 && slower < 0.7, ratioOk: ratio > 0.75 && ratio < 1.33 }).toEqual({
          pair: `${a}/${b}`,
          slowerShareOk: true,
          ratioOk: true,
        });
      }
    }
  }, 60_000);
});
