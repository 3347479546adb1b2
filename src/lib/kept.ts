/**
 * The one toolkit for module-level kept values (caches): each is made here and declares, where it
 * is defined, its name, its clock (what makes it stale) and its limit. The declarations are
 * registered, so the table "Kept values" of docs/caches.md can be checked against them
 * (test/repo/kept-values.test.ts), and a module-level Map, WeakMap or Set made outside this toolkit is
 * refused by the same test. Bounded values use KeptMap (./keptMap.ts).
 */
import { KeptMap, type KeptMapOptions, KeptTable } from "./keptMap";

/**
 * What makes a kept value stale (docs/caches.md "Clocks"): "configuration epoch" and "data
 * version" are the database's counters; "identity" keys by an object replaced when its inputs
 * change; "generation" is a counter the writes bump by hand; "immutable" and "none" never go stale
 * (the key names the content, or the value is a pure function of the key); "time" expires.
 */
export type KeptClock = "configuration epoch" | "data version" | "identity" | "generation" | "immutable" | "none" | "time";

/** A declared kept value, as the table "Kept values" lists it. */
export interface KeptDeclaration {
  readonly name: string;
  readonly clock: KeptClock;
  /** In words: a number of entries (and per what, in which order), "identity", or why it stays small. */
  readonly limit: string;
}

/** A bounded kept value: its clock, its limit (entries or weight) and KeptMap's order and weight. */
export interface KeptSpec<V> extends KeptMapOptions<V> {
  clock: KeptClock;
  limit: number;
}

const declared = new Map<string, KeptDeclaration>();

/**
 * Registers a kept value's description. A name describes one value (two caches cannot share a row
 * of the table): the same name with another description throws; the same again (a module
 * evaluated twice) is no change. test/repo/kept-values.test.ts also refuses a name written twice.
 */
export function declareKept(name: string, description: { clock: KeptClock; limit: string }): void {
  const before = declared.get(name);
  if (before && (before.clock !== description.clock || before.limit !== description.limit))
    throw new Error(`the kept value "${name}" is declared twice, differently`);
  declared.set(name, { name, clock: description.clock, limit: description.limit });
}

/** Every kept value declared by the modules loaded so far. */
export function keptDeclarations(): readonly KeptDeclaration[] {
  return [...declared.values()];
}

const limitText = (spec: KeptSpec<unknown>, per?: string): string =>
  `${spec.limit.toLocaleString("en-US")}${per ? ` per ${per}` : ""}, ${spec.order === "used" ? "LRU" : "FIFO"}${spec.weigh ? " weighted" : ""}`;

/** A module-level bounded map (KeptMap) with its declaration. */
export function kept<K, V>(name: string, spec: KeptSpec<V>): KeptMap<K, V> {
  declareKept(name, { clock: spec.clock, limit: limitText(spec as KeptSpec<unknown>) });
  return new KeptMap<K, V>(spec.limit, spec);
}

/** A value kept per owner object (a database, a catalog), made on first use, gone with the owner. */
export class KeptPer<O extends object, V> {
  readonly #of = new WeakMap<O, V>();
  constructor(readonly make: () => V) {}

  /** The owner's value, made on first use. */
  of(owner: O): V {
    let v = this.#of.get(owner);
    if (v === undefined) this.#of.set(owner, (v = this.make()));
    return v;
  }

  /** Forgets the owner's value (the next `of` makes a fresh one). */
  forget(owner: O): void {
    this.#of.delete(owner);
  }
}

/** A value per owner made by `make` (a cache class, a Set), its limit told in words. */
export function keptPer<O extends object, V>(name: string, description: { clock: KeptClock; limit: string }, make: () => V): KeptPer<O, V> {
  declareKept(name, description);
  return new KeptPer<O, V>(make);
}

/** A KeptMap per owner (`per` names the owner in the limit, e.g. "database"). */
export function keptEach<O extends object, K, V>(name: string, spec: KeptSpec<V> & { per: string }): KeptPer<O, KeptMap<K, V>> {
  declareKept(name, { clock: spec.clock, limit: limitText(spec as KeptSpec<unknown>, spec.per) });
  return new KeptPer<O, KeptMap<K, V>>(() => new KeptMap<K, V>(spec.limit, spec));
}

/**
 * A map per owner valid for one reading of a clock (a database's configuration epoch or data
 * version): `current` with another reading starts a new map. The old map is replaced, not
 * emptied, so a value read under the old reading and stored after the change lands in the old
 * map, never labelled with the new reading.
 */
export class KeptByVersion<O extends object, M> {
  readonly #of = new WeakMap<O, { version: number; map: M }>();
  constructor(readonly make: () => M) {}

  /** The owner's map for `version` (read by the caller before any row); null for no clock (nothing kept). */
  current(owner: O, version: number | null): M | null {
    if (version === null) return null;
    let k = this.#of.get(owner);
    if (k === undefined || k.version !== version) this.#of.set(owner, (k = { version, map: this.make() }));
    return k.map;
  }
}

/** A KeptMap per owner and reading of its clock (KeptByVersion). */
export function keptByVersion<O extends object, K, V>(name: string, spec: KeptSpec<V> & { per: string }): KeptByVersion<O, KeptMap<K, V>> {
  declareKept(name, { clock: spec.clock, limit: limitText(spec as KeptSpec<unknown>, spec.per) });
  return new KeptByVersion<O, KeptMap<K, V>>(() => new KeptMap<K, V>(spec.limit, spec));
}

/** A KeptTable (two keys: a group, then a key) per owner and reading of its clock, FIFO. */
export function keptTableByVersion<O extends object, G, K, V>(
  name: string,
  spec: { clock: KeptClock; limit: number; per: string },
): KeptByVersion<O, KeptTable<G, K, V>> {
  declareKept(name, { clock: spec.clock, limit: limitText(spec, spec.per) });
  return new KeptByVersion<O, KeptTable<G, K, V>>(() => new KeptTable<G, K, V>(spec.limit));
}

/** Values kept by the identity of their key object: no limit needed, each goes with its key. */
export function keptByIdentity<K extends object, V>(name: string, clock: KeptClock = "identity"): WeakMap<K, V> {
  declareKept(name, { clock, limit: "identity" });
  return new WeakMap<K, V>();
}

/**
 * A map without a limit, for the few kept values that stay small by construction or must not
 * lose an entry (a generation counter): `bound` says why it stays small.
 */
export function keptUnbounded<K, V>(name: string, description: { clock: KeptClock; bound: string }): Map<K, V> {
  declareKept(name, { clock: description.clock, limit: `none: ${description.bound}` });
  return new Map<K, V>();
}
