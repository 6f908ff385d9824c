import { memoryStoreOptions } from './memory-options.js';
import { MemoryStoreFullError } from './errors.js';
import type { RevocationStore } from './types.js';

/** Options of {@link MemoryRevocationStore}. */
export interface MemoryRevocationStoreOptions {
  /**
   * The most live revocations kept (ids and users together, about 150 bytes each).
   * @defaultValue `100_000`
   */
  readonly maxEntries?: number;
  /**
   * The clock in epoch milliseconds, which decides when a record has expired. Give it
   * the clock of the credentials it guards (a `JwtAuthenticator` does so for its
   * default store).
   * @defaultValue `Date.now`
   */
  readonly clock?: () => number;
}

interface UserRecord {
  atMs: number;
  expiresAtMs: number;
}

/**
 * The in-memory {@link RevocationStore} (the default of `JwtAuthenticator`), for one
 * process. Every answer is synchronous: a check adds no promise to the request.
 *
 * Bounded: a record is dropped once it has expired; when `maxEntries` live records
 * are held, a new revocation **fails closed** with {@link MemoryStoreFullError} (503)
 * instead of forgetting a live one, which would let a revoked credential work again.
 * A restart forgets every revocation: share a `RedisRevocationStore`
 * (`portcullis/redis`) between instances and across restarts.
 *
 * @example
 * ```ts
 * const revocations = new MemoryRevocationStore({ maxEntries: 500_000 });
 * const jwt = new JwtAuthenticator(config, { revocations });
 * ```
 */
export class MemoryRevocationStore implements RevocationStore {
  readonly #ids = new Map<string, number>();
  readonly #users = new Map<string, UserRecord>();
  readonly #maxEntries: number;
  readonly #clock: () => number;
  /** No record expires before this time (a lower bound): a sweep before it frees nothing. */
  #nextExpiryMs = Number.POSITIVE_INFINITY;

  constructor(options: MemoryRevocationStoreOptions = {}) {
    const settings = memoryStoreOptions('MemoryRevocationStore', options, { clock: true });
    this.#maxEntries = settings.maxEntries;
    this.#clock = settings.clock;
  }

  /** How many records are held (expired ones included until they are dropped). */
  get size(): number {
    return this.#ids.size + this.#users.size;
  }

  revoke(id: string, expiresAtMs: number): void {
    const now = this.#clock();
    if (expiresAtMs <= now) return; // the credential is already dead
    const known = this.#ids.get(id);
    if (known !== undefined && known > now) {
      this.#ids.set(id, Math.max(known, expiresAtMs));
      return;
    }
    this.#ids.delete(id);
    this.#reserve(now, expiresAtMs);
    this.#ids.set(id, expiresAtMs);
  }

  revokeUser(username: string, atMs: number, expiresAtMs: number): void {
    const now = this.#clock();
    if (expiresAtMs <= now) return;
    const known = this.#users.get(username);
    if (known !== undefined && known.expiresAtMs > now) {
      known.atMs = Math.max(known.atMs, atMs);
      known.expiresAtMs = Math.max(known.expiresAtMs, expiresAtMs);
      return;
    }
    this.#users.delete(username);
    this.#reserve(now, expiresAtMs);
    this.#users.set(username, { atMs, expiresAtMs });
  }

  isRevoked(id: string, username: string | undefined, issuedAtMs: number): false | 'id' | 'user' {
    // Two map lookups and no allocation: this runs on every request.
    if (this.#ids.size !== 0) {
      const until = this.#ids.get(id);
      if (until !== undefined) {
        if (until > this.#clock()) return 'id';
        this.#ids.delete(id);
      }
    }
    if (username !== undefined && this.#users.size !== 0) {
      const record = this.#users.get(username);
      if (record !== undefined) {
        if (record.expiresAtMs <= this.#clock()) this.#users.delete(username);
        else if (issuedAtMs <= record.atMs) return 'user';
      }
    }
    return false;
  }

  /** Makes room for one record, dropping expired ones; throws when all are live. */
  #reserve(now: number, expiresAtMs: number): void {
    if (this.size >= this.#maxEntries && now >= this.#nextExpiryMs) {
      this.#nextExpiryMs = Math.min(sweep(this.#ids, now), sweepUsers(this.#users, now));
    }
    if (this.size >= this.#maxEntries) {
      throw new MemoryStoreFullError('memory revocation store', this.#maxEntries);
    }
    this.#nextExpiryMs = Math.min(this.#nextExpiryMs, expiresAtMs);
  }
}

/** Drops the expired ids; returns the earliest expiry of those left. */
function sweep(map: Map<string, number>, now: number): number {
  let next = Number.POSITIVE_INFINITY;
  for (const [key, until] of map) {
    if (until <= now) map.delete(key);
    else next = Math.min(next, until);
  }
  return next;
}

function sweepUsers(map: Map<string, UserRecord>, now: number): number {
  let next = Number.POSITIVE_INFINITY;
  for (const [key, record] of map) {
    if (record.expiresAtMs <= now) map.delete(key);
    else next = Math.min(next, record.expiresAtMs);
  }
  return next;
}
