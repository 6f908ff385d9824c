import { memoryStoreOptions } from './memory-options.js';
import { MemoryStoreFullError } from './errors.js';
import type { SpentIdStore } from './types.js';

/** Options of {@link MemorySpentIdStore}. */
export interface MemorySpentIdStoreOptions {
  /**
   * The most live spent ids kept (about 100 bytes each).
   * @defaultValue `100_000`
   */
  readonly maxEntries?: number;
  /**
   * The clock in epoch milliseconds, which decides when an id has expired.
   * @defaultValue `Date.now`
   */
  readonly clock?: () => number;
}

/**
 * The in-memory {@link SpentIdStore} (the default of the OAuth2 login routes), for
 * one process: a copy of a spent transaction presented again to the same process is
 * refused. Synchronous answers.
 *
 * Bounded: expired ids are dropped first; when `maxEntries` live ids are held, a new
 * one **fails closed** with {@link MemoryStoreFullError} (503) rather than forget a
 * live one. Share one store between route instances of a process, and a
 * `RedisSpentIdStore` (`portcullis/redis`) between processes.
 *
 * @example
 * ```ts
 * const spentTransactions = new MemorySpentIdStore();
 * const github = oauth2LoginRoutes(client, { sessions, mapUser, spentTransactions });
 * ```
 */
export class MemorySpentIdStore implements SpentIdStore {
  readonly #spent = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #clock: () => number;
  /** No id expires before this time (a lower bound): a sweep before it frees nothing. */
  #nextExpiryMs = Number.POSITIVE_INFINITY;

  constructor(options: MemorySpentIdStoreOptions = {}) {
    const settings = memoryStoreOptions('MemorySpentIdStore', options, { clock: true });
    this.#maxEntries = settings.maxEntries;
    this.#clock = settings.clock;
  }

  /** How many ids are held (expired ones included until they are dropped). */
  get size(): number {
    return this.#spent.size;
  }

  spend(id: string, expiresAtMs: number): boolean {
    const now = this.#clock();
    const until = this.#spent.get(id);
    if (until !== undefined) {
      if (until > now) return false;
      this.#spent.delete(id);
    }
    if (this.#spent.size >= this.#maxEntries && now >= this.#nextExpiryMs) {
      let next = Number.POSITIVE_INFINITY;
      for (const [key, expires] of this.#spent) {
        if (expires <= now) this.#spent.delete(key);
        else next = Math.min(next, expires);
      }
      this.#nextExpiryMs = next;
    }
    if (this.#spent.size >= this.#maxEntries) {
      throw new MemoryStoreFullError('memory spent-id store', this.#maxEntries);
    }
    this.#nextExpiryMs = Math.min(this.#nextExpiryMs, expiresAtMs);
    this.#spent.set(id, expiresAtMs);
    return true;
  }
}
