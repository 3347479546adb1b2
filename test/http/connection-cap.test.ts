import { expect, test } from "bun:test";
import { connectionCap } from "../../src/http/connectionCap";
import type { RequestMeta } from "../../src/http/requestMeta";
import { NO_TRUSTED_PROXIES } from "../../src/lib/proxies";

/** Counts `n` requests in with the cap and forgets them; answers WeakRefs to those requests. */
function enterAndForget(cap: ReturnType<typeof connectionCap>, n: number): WeakRef<Request>[] {
  const refs: WeakRef<Request>[] = [];
  for (let i = 0; i < n; i++) {
    const request = new Request(`http://127.0.0.1/${i}`);
    const m: RequestMeta = { id: `r${i}`, start: 0, startedAt: 0, seq: i, events: 0, request, peer: null, trusted: NO_TRUSTED_PROXIES };
    expect(cap.enter(m)).toBeUndefined();
    refs.push(new WeakRef(request));
  }
  return refs;
}

test("the cap on requests in progress holds the requests it has not attributed weakly (a strong Set cost every collection two more rounds)", async () => {
  const cap = connectionCap(64);
  const refs = enterAndForget(cap, 40);
  for (let round = 0; round < 10 && refs.some((r) => r.deref() !== undefined); round++) {
    await Bun.sleep(1); // a WeakRef's target lives until the end of the job that made it
    Bun.gc(true);
  }
  // conservative stack scanning may keep one or two alive; a Set holding them keeps all 40
  expect(refs.filter((r) => r.deref() !== undefined).length).toBeLessThan(5);
  // and the cap still counts them all: past 64 in progress it attributes (none has an address here)
  expect(enterAndForget(cap, 30)).toHaveLength(30);
});
