import { hash } from 'node:crypto';

interface Entry<V> {
  readonly value: V;
  /** Epoch milliseconds after which the entry is dead. */
  readonly expires: number;
  /** The insertion count when it was last put at the newest end of the map. */
  stamp: number;
}

/**
 * The verified-token cache: bounded (the least recently used evicted first, nearly:
 * see {@link VerifiedTokenCache.get}), keyed by
 * a SHA-256 of the token (the tokens themselves are not kept), each entry dying at
 * its own time: never after the token's `exp`, nor after `maxAge`. Only successful
 * verifications are stored.
 *
 * A key cannot stand for two tokens or two configurations: only tokens in their one
 * canonical spelling reach it (`isCompactJws`, checked before the lookup), distinct
 * tokens hash to distinct keys, and each `JwtAuthenticator` owns its cache, so a
 * token verified under one secret, issuer or audience is never a hit for another.
 *
 * @internal
 */
export class VerifiedTokenCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;
  /** Entries put at the newest end so far (insertions and moves). */
  #stamp = 0;

  constructor(maxEntries: number, maxAgeSeconds: number) {
    this.#maxEntries = maxEntries;
    this.#maxAgeMs = maxAgeSeconds * 1000;
  }

  /**
   * The cache key of a token: its SHA-256, base64url. `crypto.hash` (one shot) costs
   * a fraction of a `createHash` stream object, which a cache hit would otherwise
   * spend most of its time building.
   */
  static keyOf(token: string): string {
    return hash('sha256', token, 'base64url');
  }

  /**
   * The live value of a key, or `undefined` (an expired entry is dropped). A hit is
   * moved to the newest end of the order of eviction unless fewer than half the
   * capacity of entries were put there after it: a hit on a recent entry costs a
   * field read instead of two map operations, and an entry read survives at least
   * half the capacity of new entries after the read (all of them, less one, under
   * strict LRU).
   */
  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (now >= entry.expires) {
      this.#entries.delete(key);
      return undefined;
    }
    if (this.#stamp - entry.stamp >= this.#maxEntries / 2) {
      this.#entries.delete(key);
      entry.stamp = ++this.#stamp;
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  /** Stores a verification until `min(exp, now + maxAge)` (`exp` in epoch seconds). */
  set(key: string, value: V, exp: number, now: number): void {
    const expires = Math.min(exp * 1000, now + this.#maxAgeMs);
    if (expires <= now) return;
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expires, stamp: ++this.#stamp });
  }

  get size(): number {
    return this.#entries.size;
  }

  clear(): void {
    this.#entries.clear();
  }
}
