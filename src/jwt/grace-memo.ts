import type { TokenPair } from './token-pair.js';

interface Entry {
  readonly pair: Promise<TokenPair>;
  /** The end of the grace window, epoch milliseconds (the service's clock). */
  readonly expiresAtMs: number;
  readonly timer: NodeJS.Timeout;
}

/**
 * The grace window's memory: the pair a refresh token was exchanged for (while it
 * is computed, then once issued), so a concurrent refresh of the same token joins
 * it instead of tripping reuse detection. Keyed by the refresh token's `jti`, never
 * by the token. An entry lives until its window ends on the service's clock, and
 * is dropped by a timer after the same time at the latest. Bounded: the oldest
 * entry is dropped when full, which only costs a concurrent caller its grace (it is
 * refused; nothing is issued twice).
 *
 * @internal
 */
export class GraceMemo {
  readonly #entries = new Map<string, Entry>();
  readonly #windowMs: number;
  readonly #maxEntries: number;

  constructor(windowMs: number, maxEntries = 10_000) {
    this.#windowMs = windowMs;
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The pair being or already issued for this `jti` within its window, or `undefined`. */
  get(jti: string, nowMs: number): Promise<TokenPair> | undefined {
    const entry = this.#entries.get(jti);
    if (entry === undefined) return undefined;
    if (nowMs < entry.expiresAtMs) return entry.pair;
    this.#drop(jti, entry);
    return undefined;
  }

  /** Remembers the pair a refresh started at `nowMs` issues, until `nowMs + window`. */
  set(jti: string, pair: Promise<TokenPair>, nowMs: number): void {
    const existing = this.#entries.get(jti);
    if (existing !== undefined) this.#drop(jti, existing);
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size < this.#maxEntries && nowMs < entry.expiresAtMs) break;
      this.#drop(key, entry);
    }
    const timer = setTimeout(() => {
      this.delete(jti, pair);
    }, this.#windowMs);
    timer.unref();
    this.#entries.set(jti, { pair, expiresAtMs: nowMs + this.#windowMs, timer });
  }

  /** Forgets the entry of `jti` if it still holds this pair (a failed refresh). */
  delete(jti: string, pair: Promise<TokenPair>): void {
    const entry = this.#entries.get(jti);
    if (entry?.pair === pair) this.#drop(jti, entry);
  }

  #drop(jti: string, entry: Entry): void {
    clearTimeout(entry.timer);
    this.#entries.delete(jti);
  }
}
