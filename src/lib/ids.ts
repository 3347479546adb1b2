/** Entity identifiers: prefixed ULIDs (`org_…`, `prj_…`, `usr_…`, `key_…`, `res_…`, `exp_…`). */
import { randomBytes } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export type IdPrefix =
  | "usr"
  | "ses"
  | "org"
  | "mem"
  | "inv"
  | "prj"
  | "key"
  | "spc"
  | "exp"
  | "res"
  | "rep"
  | "trc"
  | "sev"
  | "ocl"
  | "otk"
  | "mail"
  | "sso"
  | "aud"
  | "evl";

let lastTime = -1;
let timePart = "";
/** The random part's 16 characters as Crockford digits (0–31): incremented within one millisecond. */
const random = new Uint8Array(16);
/** Random bytes drawn 4 KB at a time (one crypto call per 256 ids; a request id per request made it a tenth of a key call). */
let pool = randomBytes(4096);
let used = 0;

/** A ULID: 48-bit time + 80-bit randomness, monotonic within one millisecond. */
export function ulid(now: number = Date.now()): string {
  if (now === lastTime) {
    for (let i = random.length - 1; i >= 0; i--) {
      if (random[i]! < 31) {
        random[i]!++;
        break;
      }
      random[i] = 0;
    }
  } else {
    if (used + 16 > pool.length) {
      pool = randomBytes(4096);
      used = 0;
    }
    for (let i = 0; i < 16; i++) random[i] = pool[used + i]! & 31;
    used += 16;
    let time = "";
    let t = now;
    for (let i = 0; i < 10; i++) {
      time = CROCKFORD[t % 32] + time;
      t = Math.floor(t / 32);
    }
    timePart = time;
    lastTime = now;
  }
  let id = timePart;
  for (let i = 0; i < 16; i++) id += CROCKFORD[random[i]!];
  return id;
}

/** A new entity id with its type prefix, e.g. `prj_01J…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/** `value` in `width` Crockford digits, most significant first. */
function digits(value: number, width: number): string {
  let n = value;
  let out = "";
  for (let i = 0; i < width; i++) {
    out = CROCKFORD[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

/** A ULID-shaped id from a time and a sequence number: sorts by (time, seq) exactly. */
export function orderedId(time: number, seq: number): string {
  return digits(time, 10) + digits(seq, 16);
}

/**
 * A ULID-shaped id from a time, a sequence number and the number of an item within it (the
 * n-th event of one call): 10 time digits, 11 sequence digits (2^55), 5 item digits (2^25).
 * Sorts by (time, seq, n) exactly, so one call's several events get several ids.
 */
export function orderedSubId(time: number, seq: number, n: number): string {
  return digits(time, 10) + digits(seq, 11) + digits(n, 5);
}
