import { ConfigurationError } from '../core/errors.js';
import { requireInteger } from '../core/validate.js';
import { MemoryStoreFullError } from '../stores/errors.js';

/**
 * Where sessions are revoked and their activity recorded. A sealed cookie cannot be
 * recalled, so logout, "log out everywhere" and role changes are recorded here and
 * checked on every request. Methods may answer synchronously (memory) or with a
 * promise (a shared store); every implementation must keep each record until its
 * `expiresAtMs`, and throw (a `StoreUnavailableError`) when it cannot answer: the
 * `SessionAuthenticator` then fails the request closed (503), under its
 * `storeTimeoutMs` deadline.
 */
export interface SessionStore {
  /** Records that the session `sid` is over (logout); kept until `expiresAtMs`. */
  revokeSession(sid: string, expiresAtMs: number): void | Promise<void>;
  /** Records that every session of the user created at or before `atMs` is over; kept until `expiresAtMs`. */
  revokeUser(username: string, atMs: number, expiresAtMs: number): void | Promise<void>;
  /**
   * Whether the session is revoked: `'session'` (logged out), `'user'` (all the
   * user's sessions created before a revocation), or `false`.
   */
  isRevoked(
    sid: string,
    username: string | undefined,
    createdAtMs: number,
  ): false | 'session' | 'user' | Promise<false | 'session' | 'user'>;
  /**
   * Records activity on a session for idle timeouts and returns the previous
   * activity time (epoch ms), or `undefined` when none is known.
   */
  touch(
    sid: string,
    nowMs: number,
    expiresAtMs: number,
  ): number | undefined | Promise<number | undefined>;
}

/**
 * The in-memory session store is full of live revocations: the operation is refused
 * rather than forget one. An operational failure, not a bad cookie: a
 * `MemoryStoreFullError` (`code` `ERR_STORE_FULL`, `store` `memory session store`,
 * `maxEntries` its `maxRevocations`), so an `UnavailableError` (503 with
 * `Retry-After`).
 */
export class SessionStoreFullError extends MemoryStoreFullError {
  constructor(maxEntries: number) {
    super('memory session store', maxEntries);
  }
}

/** Options of {@link MemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** How many revocations (sessions and users) are kept at most. @defaultValue `100_000` */
  readonly maxRevocations?: number;
  /** How many sessions' last activity is tracked at most (idle timeouts). @defaultValue `100_000` */
  readonly maxTracked?: number;
  /**
   * The clock in epoch milliseconds, which decides when a record has expired. Give
   * it the clock of the `SessionAuthenticator` (which does so for its default store).
   * @defaultValue `Date.now`
   */
  readonly clock?: () => number;
}

/**
 * The in-memory {@link SessionStore} of one process: bounded, each record dropped
 * after its expiry. When full of live revocations it refuses new ones
 * ({@link SessionStoreFullError}) rather than forget one, which would let a
 * logged-out cookie work again; activity records for idle timeouts are evicted
 * oldest first instead (an evicted session then counts as idle since its login,
 * which fails closed). A restart empties it.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, number>();
  readonly #users = new Map<string, { readonly atMs: number; readonly expiresAtMs: number }>();
  readonly #seen = new Map<string, { readonly atMs: number; readonly expiresAtMs: number }>();
  readonly #maxRevocations: number;
  readonly #maxTracked: number;
  readonly #clock: () => number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.#maxRevocations = requireInteger(
      'maxRevocations',
      options.maxRevocations ?? 100_000,
      1,
      100_000_000,
    );
    this.#maxTracked = requireInteger('maxTracked', options.maxTracked ?? 100_000, 1, 100_000_000);
    const clock = options.clock ?? Date.now;
    if (typeof clock !== 'function') throw new ConfigurationError('clock', 'must be a function');
    this.#clock = clock;
  }

  revokeSession(sid: string, expiresAtMs: number): void {
    this.#makeRoom(this.#clock());
    this.#sessions.set(sid, expiresAtMs);
    this.#seen.delete(sid);
  }

  revokeUser(username: string, atMs: number, expiresAtMs: number): void {
    this.#makeRoom(this.#clock());
    const known = this.#users.get(username);
    this.#users.set(username, {
      atMs: Math.max(atMs, known?.atMs ?? 0),
      expiresAtMs: Math.max(expiresAtMs, known?.expiresAtMs ?? 0),
    });
  }

  isRevoked(
    sid: string,
    username: string | undefined,
    createdAtMs: number,
  ): false | 'session' | 'user' {
    const now = this.#clock();
    const session = this.#sessions.get(sid);
    if (session !== undefined && session > now) return 'session';
    if (username !== undefined) {
      const user = this.#users.get(username);
      if (user !== undefined && user.expiresAtMs > now && createdAtMs <= user.atMs) return 'user';
    }
    return false;
  }

  touch(sid: string, nowMs: number, expiresAtMs: number): number | undefined {
    const previous = this.#seen.get(sid);
    this.#seen.delete(sid);
    while (this.#seen.size >= this.#maxTracked) {
      const oldest = this.#seen.keys().next();
      if (oldest.done === true) break;
      this.#seen.delete(oldest.value);
    }
    this.#seen.set(sid, { atMs: nowMs, expiresAtMs });
    return previous?.atMs;
  }

  /** How many revocations are held. */
  get size(): number {
    return this.#sessions.size + this.#users.size;
  }

  #makeRoom(now: number): void {
    if (this.size < this.#maxRevocations) return;
    for (const [sid, expires] of this.#sessions) if (expires <= now) this.#sessions.delete(sid);
    for (const [name, record] of this.#users)
      if (record.expiresAtMs <= now) this.#users.delete(name);
    if (this.size >= this.#maxRevocations) throw new SessionStoreFullError(this.#maxRevocations);
  }
}
