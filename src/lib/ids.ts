/** Entity identifiers: prefixed ULIDs (`org_…`, `prj_…`, `usr_…`, `key_…`, `res_…`, `exp_…`). */
import { randomBytes } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export type IdPrefix =
  | "usr" | "ses" | "org" | "mem" | "inv" | "prj" | "key" | "spc" | "exp"
  | "res" | "rep" | "trc" | "sev" | "ocl" | "otk" | "mail" | "sso";

let lastTime = 0;
let lastRandom: number[] = [];

/** A ULID: 48-bit time + 80-bit randomness, monotonic within one millisecond. */
export function ulid(now: number = Date.now()): string {
  let rand: number[];
  if (now === lastTime) {
    rand = lastRandom.slice();
    for (let i = rand.length - 1; i >= 0; i--) {
      if (rand[i]! < 31) { rand[i]! += 1; break; }
      rand[i] = 0;
    }
  } else {
    const bytes = randomBytes(16);
    rand = Array.from({ length: 16 }, (_, i) => bytes[i]! % 32);
  }
  lastTime = now;
  lastRandom = rand;
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + rand.map((r) => CROCKFORD[r]).join("");
}

/** A new entity id with its type prefix, e.g. `prj_01J…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/** A ULID-shaped id from a time and a sequence number: sorts by (time, seq) exactly. */
export function orderedId(time: number, seq: number): string {
  let t = time;
  let head = "";
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[t % 32] + head;
    t = Math.floor(t / 32);
  }
  let n = seq;
  let tail = "";
  for (let i = 0; i < 16; i++) {
    tail = CROCKFORD[n % 32] + tail;
    n = Math.floor(n / 32);
  }
  return head + tail;
}
