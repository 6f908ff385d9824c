/**
 * A read-only view of a set of strings that cannot be changed through any
 * reference, unlike a `Set` typed as `ReadonlySet` (whose `add` still exists at
 * run time).
 *
 * @internal
 */
export class ImmutableSet<T> implements ReadonlySet<T> {
  readonly #items: Set<T>;

  constructor(items: Iterable<T> = []) {
    this.#items = new Set(items);
    Object.freeze(this);
  }

  get size(): number {
    return this.#items.size;
  }

  has(value: T): boolean {
    return this.#items.has(value);
  }

  forEach(callback: (value: T, key: T, set: ReadonlySet<T>) => void, thisArg?: unknown): void {
    for (const value of this.#items) callback.call(thisArg, value, value, this);
  }

  entries(): SetIterator<[T, T]> {
    return this.#items.entries();
  }

  keys(): SetIterator<T> {
    return this.#items.keys();
  }

  values(): SetIterator<T> {
    return this.#items.values();
  }

  [Symbol.iterator](): SetIterator<T> {
    return this.#items.values();
  }

  toJSON(): T[] {
    return [...this.#items];
  }

  get [Symbol.toStringTag](): string {
    return 'ImmutableSet';
  }
}
