/**
 * A bounded map for kept values: the one place the "drop the oldest entry when over the limit"
 * eviction is written, so the module-level caches of src/ (the table "Kept values" in
 * docs/caches.md) cannot grow without bound and do not each carry their own copy of it.
 */

/**
 * Which entry is the oldest. "inserted" (FIFO): the entry added first, whatever was read since.
 * "used" (LRU): the entry read or added least recently — a hit of `get` moves the key to the
 * newest place.
 */
export type KeptOrder = "inserted" | "used";

/** How a KeptMap counts against its limit and orders its entries. */
export interface KeptMapOptions<V> {
  /** Default "inserted". */
  order?: KeptOrder;
  /** An entry's weight (default 1 each, so the limit is a number of entries). */
  weigh?: (value: V) => number;
}

/**
 * A Map with a limit: after a `set` takes it over `limit` (entries, or total weight), the
 * oldest entries go until it is within. A hit is one Map get ("used" order: plus the move to
 * the newest place), with no allocation. `set` of a key already kept replaces its value in
 * place, as Map.set does: it does not move the key in either order (a caller that wants a fresh
 * age deletes the key first). Values are never undefined (a miss is undefined).
 */
export class KeptMap<K, V> {
  readonly #map = new Map<K, V>();
  readonly #used: boolean;
  readonly #weigh: ((value: V) => number) | undefined;
  #weight = 0;

  constructor(
    readonly limit: number,
    options: KeptMapOptions<V> = {},
  ) {
    if (!(limit >= 1)) throw new RangeError(`a KeptMap's limit must be at least 1 (was ${limit})`);
    this.#used = options.order === "used";
    this.#weigh = options.weigh;
  }

  /** The number of entries kept. */
  get size(): number {
    return this.#map.size;
  }

  /** The total weight kept (the number of entries without `weigh`). */
  get weight(): number {
    return this.#weigh ? this.#weight : this.#map.size;
  }

  /** The value kept for `key`; in "used" order, a hit makes the key the newest. */
  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (this.#used && value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  /** The value kept for `key`, without touching its place in either order. */
  peek(key: K): V | undefined {
    return this.#map.get(key);
  }

  /** Whether `key` is kept (no change of order). */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Keeps `value` for `key` (a new key is the newest), then drops the oldest entries while over the limit. */
  set(key: K, value: V): this {
    const weigh = this.#weigh;
    if (!weigh) {
      this.#map.set(key, value);
      if (this.#map.size > this.limit) this.#map.delete(this.#map.keys().next().value as K);
      return this;
    }
    const old = this.#map.get(key);
    if (old !== undefined) this.#weight -= weigh(old);
    this.#map.set(key, value);
    this.#weight += weigh(value);
    while (this.#weight > this.limit && this.#map.size > 0) {
      const [oldest, v] = this.#map.entries().next().value as [K, V];
      this.#map.delete(oldest);
      this.#weight -= weigh(v);
    }
    return this;
  }

  /** Forgets `key`; true if it was kept. */
  delete(key: K): boolean {
    const weigh = this.#weigh;
    if (weigh) {
      const old = this.#map.get(key);
      if (old !== undefined) this.#weight -= weigh(old);
    }
    return this.#map.delete(key);
  }

  /** Forgets everything. */
  clear(): void {
    this.#map.clear();
    this.#weight = 0;
  }

  /** The keys, oldest first. */
  keys(): IterableIterator<K> {
    return this.#map.keys();
  }
}

/**
 * A bounded map of two keys, a group (a statement) then a key (its arguments): a hit is two Map
 * gets and builds no string, where one KeptMap would need the two joined (hashing the whole
 * statement text on every call). The limit counts the entries of all groups; over it, the
 * entries inserted first go (FIFO). Values may be undefined (a kept miss): ask `has` first.
 */
export class KeptTable<G, K, V> {
  readonly #groups = new Map<G, Map<K, V>>();
  /** The entries in insertion order, from #head on. */
  readonly #order: [G, K][] = [];
  #head = 0;
  #size = 0;

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`a KeptTable's limit must be at least 1 (was ${limit})`);
  }

  /** The number of entries kept, over all groups. */
  get size(): number {
    return this.#size;
  }

  /** Whether `key` of `group` is kept. */
  has(group: G, key: K): boolean {
    return this.#groups.get(group)?.has(key) ?? false;
  }

  /** The value kept for `key` of `group`. */
  get(group: G, key: K): V | undefined {
    return this.#groups.get(group)?.get(key);
  }

  /** Keeps `value` (a kept key's value is replaced in place), then drops the oldest entries while over the limit. */
  set(group: G, key: K, value: V): this {
    let inGroup = this.#groups.get(group);
    if (!inGroup) this.#groups.set(group, (inGroup = new Map()));
    const fresh = !inGroup.has(key);
    inGroup.set(key, value);
    if (!fresh) return this;
    this.#order.push([group, key]);
    this.#size++;
    while (this.#size > this.limit) {
      const [g, k] = this.#order[this.#head++]!;
      const m = this.#groups.get(g)!;
      m.delete(k);
      if (m.size === 0) this.#groups.delete(g);
      this.#size--;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) this.#order.splice(0, this.#head), (this.#head = 0);
    return this;
  }
}
