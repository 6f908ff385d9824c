/** Options of {@link TtlCache}. @internal */
export interface TtlCacheOptions {
  /** How many entries at most; the least recently used one is evicted first. */
  readonly maxEntries: number;
  /** How long an entry lives after it was set, in milliseconds. */
  readonly ttlMs: number;
  /**
   * A monotonic clock in milliseconds.
   * @defaultValue `() => performance.now()`
   */
  readonly now?: () => number;
}

/**
 * A bounded map whose entries expire: least-recently-used eviction when full,
 * a fixed time to live from the moment an entry is set (reading an entry does not
 * extend its life). Expired entries are dropped when read or evicted.
 *
 * @internal
 */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, { readonly value: V; readonly expires: number }>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: TtlCacheOptions) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1) {
      throw new RangeError('maxEntries must be a positive integer');
    }
    if (!Number.isFinite(options.ttlMs) || options.ttlMs <= 0) {
      throw new RangeError('ttlMs must be a positive number');
    }
    this.#maxEntries = options.maxEntries;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? (() => performance.now());
  }

  /** How many entries are held, expired ones included until they are dropped. */
  get size(): number {
    return this.#entries.size;
  }

  /** The live value of a key, or `undefined`; marks the entry as recently used. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (this.#now() >= entry.expires) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Sets a value with a fresh time to live, evicting the least recently used entry when full. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expires: this.#now() + this.#ttlMs });
  }

  /** Removes a key. */
  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Removes every entry whose value satisfies `predicate` (expired ones too); answers how many. */
  deleteWhere(predicate: (value: V) => boolean): number {
    let removed = 0;
    for (const [key, entry] of this.#entries) {
      if (predicate(entry.value) && this.#entries.delete(key)) removed++;
    }
    return removed;
  }

  /** Removes every entry. */
  clear(): void {
    this.#entries.clear();
  }
}
