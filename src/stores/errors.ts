import { UnavailableError } from '../core/errors.js';

/**
 * An in-memory store is full of live records, so a revocation or a spent id could
 * not be recorded: the request fails closed (503 with `Retry-After`, it is an
 * `UnavailableError`) rather than forget a live record to make room, which would let
 * a revoked credential or a spent transaction work again. Raise `maxEntries` or use
 * a shared store (`portcullis/redis`). Every in-memory store that fails so throws
 * one, with `code` `ERR_STORE_FULL` and `store` naming it: the refresh-token and
 * session stores throw its subclasses `RefreshStoreFullError` (`portcullis/jwt`) and
 * `SessionStoreFullError` (`portcullis/session`).
 *
 * @example
 * ```ts
 * if (error instanceof MemoryStoreFullError) log.warn(`${error.store} is full (${error.maxEntries})`);
 * ```
 */
export class MemoryStoreFullError extends UnavailableError {
  override readonly code = 'ERR_STORE_FULL';
  /** Which store, e.g. `memory-revocation-store`. */
  readonly store: string;
  /** Its capacity. */
  readonly maxEntries: number;

  constructor(store: string, maxEntries: number) {
    super(`The ${store} is full (${maxEntries} live records)`, 5);
    this.store = store;
    this.maxEntries = maxEntries;
  }
}
