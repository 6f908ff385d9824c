/**
 * The ids of spent login transactions, remembered until the transactions expire, so
 * a copy of a transaction cookie taken before its callback cannot be used again.
 * Bounded: when full, expired ids go first, then the oldest (the provider's
 * authorization code is single-use too, so an evicted id is still not a working
 * replay; the guard is a second line).
 *
 * One per process: in a cluster a copied cookie could be replayed on another
 * instance, where the provider's one-time code and the PKCE verifier still stop it.
 *
 * @internal
 */
export class SpentTransactions {
  readonly #spent = new Map<string, number>();
  readonly #max: number;
  readonly #clock: () => number;

  constructor(max: number, clock: () => number) {
    this.#max = max;
    this.#clock = clock;
  }

  /** How many ids are remembered (expired ones included until dropped). */
  get size(): number {
    return this.#spent.size;
  }

  /**
   * Marks `id` as spent until `expiresAt` (epoch ms). Returns `false` when it already
   * was: the transaction is being replayed.
   */
  spend(id: string, expiresAt: number): boolean {
    const now = this.#clock();
    const until = this.#spent.get(id);
    if (until !== undefined && until > now) return false;
    this.#spent.delete(id);
    if (this.#spent.size >= this.#max) this.#evict(now);
    this.#spent.set(id, expiresAt);
    return true;
  }

  #evict(now: number): void {
    for (const [id, until] of this.#spent) {
      if (until <= now) this.#spent.delete(id);
    }
    while (this.#spent.size >= this.#max) {
      const oldest = this.#spent.keys().next();
      if (oldest.done === true) break;
      this.#spent.delete(oldest.value);
    }
  }
}
