/**
 * The small interfaces through which portcullis keeps every piece of its security
 * state, so that several instances of an application can share it. Each has an
 * in-memory implementation (the embedded default, one process) and a Redis one
 * (`portcullis/redis`, every instance). The refresh-token store
 * (`RefreshTokenStore`, `portcullis/jwt`) and the session store (`SessionStore`,
 * `portcullis/session`) are the other two.
 *
 * Contract for every implementation:
 * - A record is kept at least until the expiry it is given (never evicted early to
 *   make room: when full, throw), and no longer than needed (every key has a TTL).
 * - Times are epoch milliseconds of the caller's clock, passed in every call.
 * - A store that cannot answer (unreachable, past its deadline) throws a
 *   `StoreUnavailableError`: the request fails closed (503), never open.
 * - Methods may answer synchronously (memory) or with a promise (a shared store);
 *   callers handle both, so the in-memory default adds no promise to a hot path.
 *
 * @module portcullis
 */

/** A value or a promise of it: memory stores answer synchronously, shared stores asynchronously. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Revocations of credentials that cannot be recalled (a sealed session cookie, a
 * signed access token): one credential by id, or every credential of a user issued
 * at or before a time. Checked on every request that carries such a credential.
 */
export interface RevocationStore {
  /** Revokes the credential `id` (a session id, a token's `jti`) until `expiresAtMs`. */
  revoke(id: string, expiresAtMs: number): MaybePromise<void>;
  /**
   * Revokes every credential of `username` issued at or before `atMs`, remembered
   * until `expiresAtMs`. A later call keeps the latest `atMs` and expiry.
   */
  revokeUser(username: string, atMs: number, expiresAtMs: number): MaybePromise<void>;
  /**
   * Whether the credential is revoked: `'id'` (that credential), `'user'` (issued at
   * or before a revocation of its user), or `false`.
   */
  isRevoked(
    id: string,
    username: string | undefined,
    issuedAtMs: number,
  ): MaybePromise<false | 'id' | 'user'>;
}

/**
 * The ids of spent one-time things (an OAuth2 login transaction), so that a copy
 * presented again is refused on every instance.
 */
export interface SpentIdStore {
  /**
   * Marks `id` spent until `expiresAtMs`, atomically. Answers `true` when this call
   * spent it, `false` when it already was (a replay).
   */
  spend(id: string, expiresAtMs: number): MaybePromise<boolean>;
}

/** A listener of {@link UserChangeNotifier}: the user whose credentials or rights changed. */
export type UserChangeListener = (username: string) => void;

/**
 * Tells every instance that a user's credentials or rights changed (a new password,
 * a lock, new roles), so each drops what it cached about that user (the
 * verified-credential cache) at once.
 */
export interface UserChangeNotifier {
  /** Announces a change of `username` to every instance, this one included. */
  publish(username: string): MaybePromise<void>;
  /** Calls `listener` on every change announced by any instance; returns the unsubscribe. */
  subscribe(listener: UserChangeListener): () => void;
  /**
   * Whether the changes announced by other instances reach this one right now. While
   * it is `false` (the invalidation channel is down), a cache of user data must
   * neither answer nor be filled: a change could go unheard. Absent means always.
   */
  readonly listening?: boolean;
  /**
   * Calls `reset` whenever changes may have been missed (the channel went down):
   * drop every cached user. Returns the unsubscribe. Absent means never.
   */
  onReset?(reset: () => void): () => void;
}
