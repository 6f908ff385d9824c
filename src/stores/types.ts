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

/**
 * The rule of one throttled key (see {@link ThrottleStore.acquire}): `max` attempts
 * are let through in a fixed window of `windowMs`; the attempt that reaches `max`
 * blocks the key for `delayMs`, and every attempt let through after a block doubles
 * the block, up to `maxDelayMs`.
 */
export interface ThrottleRule {
  readonly max: number;
  readonly windowMs: number;
  readonly delayMs: number;
  readonly maxDelayMs: number;
}

/** What {@link ThrottleStore.acquire} answered. */
export type ThrottleAdmission =
  | {
      readonly allowed: true;
      /** The attempts counted, this one included. */
      readonly count: number;
    }
  | {
      readonly allowed: false;
      /** The attempts counted (this one not counted). */
      readonly count: number;
      /** When the key lets an attempt through again (epoch ms). */
      readonly retryAtMs: number;
    };

/** The state of a throttled key (see {@link ThrottleStore.peek}). */
export interface ThrottleState {
  readonly count: number;
  /** Until when the key refuses attempts (epoch ms); `0` or a past time when it does not. */
  readonly blockedUntilMs: number;
}

/** What {@link ThrottleStore.hit} answered: a fixed window's request count. */
export interface WindowCount {
  /** The requests counted in the window, this one included. */
  readonly count: number;
  /** When the window ends and the count starts again (epoch ms). */
  readonly resetAtMs: number;
}

/**
 * The counters of the login throttles and the rate limits. Every operation is atomic
 * (of any number of concurrent calls on one key, none is lost) and writes its key
 * with an expiry in the same step: no key lives forever. Keys are made by the
 * limiters (`login:u:<hash>`, `login:a:<address>`, `rate:<name>:<key>`), never
 * holding a raw username.
 *
 * Unlike the other stores, a counter may be forgotten early when an in-memory store
 * is full (the least recently used first): that lets at most one more window of
 * attempts through on that key, while failing closed would let a flood of fresh keys
 * shut every login.
 */
export interface ThrottleStore {
  /**
   * A credential check is about to run on `key`. Atomically:
   * - while the key is blocked (`blockedUntilMs > nowMs`): refuse, count nothing;
   * - else count the attempt (`count + 1`; a new key expires `windowMs` from now);
   *   when the count is at least `rule.max`, block the key until
   *   `nowMs + min(maxDelayMs, delayMs × 2^(count − max))` and keep it at least
   *   `windowMs` past the block.
   */
  acquire(key: string, rule: ThrottleRule, nowMs: number): MaybePromise<ThrottleAdmission>;
  /** The key's state, or `null` when it has none (never counted, or expired). Counts nothing. */
  peek(key: string, nowMs: number): MaybePromise<ThrottleState | null>;
  /**
   * A checked credential was right, or was not checked after all: `'reset'` forgets
   * the key (a username's counter after a right password); `'refund'` takes back one
   * attempt (an address's counter, which then counts failures only) and lifts the
   * block that attempt set — any block, since no other attempt is admitted while one
   * is in force — as if the attempt had never been made.
   */
  release(
    key: string,
    how: 'reset' | 'refund',
    rule: ThrottleRule,
    nowMs: number,
  ): MaybePromise<void>;
  /**
   * A request is counted against a rate limit: atomically adds one to the key's count
   * in its fixed window (a new window of `windowMs` starts when none is running).
   */
  hit(key: string, windowMs: number, nowMs: number): MaybePromise<WindowCount>;
}
