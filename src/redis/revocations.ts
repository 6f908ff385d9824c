import type { MaybePromise } from '../stores/types.js';
import { TtlCache } from '../lib/ttl-cache.js';
import { replyNumber, type RedisConnection } from './connection.js';
import type { InvalidationBus } from './bus.js';
import { encodeKeyPart, recordKey, ttlMs, type KeyKind } from './keys.js';
import { REVOKE_ID, REVOKE_USER } from './scripts.js';

/** How the local cache of revocation answers is bounded. @internal */
export interface RevocationCacheSettings {
  /** The longest a cached answer is used without asking Redis again, in milliseconds (`0`: no cache). */
  readonly maxStalenessMs: number;
  /** How many answers are cached at most (least recently used dropped first). */
  readonly maxEntries: number;
}

/** The bus message kind of a cache invalidation; its payload is the cache keys, comma-separated. */
const INVALIDATE = 'inv';

/**
 * Revocations of one kind of credential (sessions, access tokens) — by id, and every
 * credential of a user issued at or before a time — with a local cache of the
 * answers, so that the check on every request costs no Redis round trip while
 * nothing changed.
 *
 * The cache is safe because:
 * - every revocation drops the cached answers on every instance (the
 *   {@link InvalidationBus}), and returns only once every live instance has
 *   acknowledged it, so a credential revoked through one instance is refused by all
 *   of them from the moment the revocation returns;
 * - an answer read from Redis while an invalidation arrived is not cached (the
 *   bus generation changed), so a stale read cannot outlive the invalidation;
 * - nothing is cached, and the cache is emptied, while the invalidation channel is
 *   down: checks then go to Redis (or fail closed with `StoreUnavailableError`);
 * - and, whatever happens to a message, an answer is never used more than
 *   `maxStalenessMs` after it was read.
 *
 * @internal
 */
export class CachedRevocations {
  readonly #redis: RedisConnection;
  readonly #bus: InvalidationBus;
  readonly #idKind: KeyKind;
  readonly #userKind: KeyKind;
  readonly #operation: string;
  readonly #cache: TtlCache<string, number | null>;
  readonly #caching: boolean;

  constructor(
    redis: RedisConnection,
    bus: InvalidationBus,
    kinds: { readonly id: KeyKind; readonly user: KeyKind; readonly operation: string },
    settings: RevocationCacheSettings,
  ) {
    this.#redis = redis;
    this.#bus = bus;
    this.#idKind = kinds.id;
    this.#userKind = kinds.user;
    this.#operation = kinds.operation;
    this.#caching = settings.maxStalenessMs > 0;
    this.#cache = new TtlCache({
      maxEntries: settings.maxEntries,
      ttlMs: Math.max(1, settings.maxStalenessMs),
    });
    bus.onReset(() => {
      this.#cache.clear();
    });
    bus.on(INVALIDATE, (payload) => {
      for (const key of payload.split(',')) this.#cache.delete(key);
    });
  }

  /** How many answers are cached (for tests and metrics). */
  get cachedAnswers(): number {
    return this.#cache.size;
  }

  /** Revokes one credential until `expiresAtMs` (and forgets its activity record). */
  async revokeId(id: string, expiresAtMs: number): Promise<void> {
    const key = this.#key(this.#idKind, id);
    await this.#redis.script(
      `${this.#operation}-revocation`,
      REVOKE_ID,
      [key, activityKey(key)],
      [String(ttlMs(expiresAtMs, this.#redis.clock()))],
    );
    await this.#bus.broadcast(
      `${this.#operation}-revocation`,
      INVALIDATE,
      this.#cacheKey(this.#idKind, id),
    );
  }

  /** Revokes every credential of `username` issued at or before `atMs`, until `expiresAtMs`. */
  async revokeUser(username: string, atMs: number, expiresAtMs: number): Promise<void> {
    await this.#redis.script(
      `${this.#operation}-user-revocation`,
      REVOKE_USER,
      [this.#key(this.#userKind, username)],
      [String(atMs), String(ttlMs(expiresAtMs, this.#redis.clock()))],
    );
    await this.#bus.broadcast(
      `${this.#operation}-user-revocation`,
      INVALIDATE,
      this.#cacheKey(this.#userKind, username),
    );
  }

  /**
   * `'id'`, `'user'` or `false`. Answers synchronously from the cache when both
   * answers are there (no round trip); otherwise reads Redis.
   */
  check(
    id: string,
    username: string | undefined,
    issuedAtMs: number,
  ): MaybePromise<false | 'id' | 'user'> {
    const idKey = this.#cacheKey(this.#idKind, id);
    const userKey = username === undefined ? undefined : this.#cacheKey(this.#userKind, username);
    if (this.#bus.ready) {
      const idAnswer = this.#cache.get(idKey);
      const userAnswer = userKey === undefined ? null : this.#cache.get(userKey);
      if (idAnswer !== undefined && userAnswer !== undefined) {
        return decide(idAnswer, userAnswer, issuedAtMs);
      }
    }
    return this.#read(id, idKey, username, userKey, issuedAtMs);
  }

  async #read(
    id: string,
    idKey: string,
    username: string | undefined,
    userKey: string | undefined,
    issuedAtMs: number,
  ): Promise<false | 'id' | 'user'> {
    const generation = this.#bus.generation;
    const cacheable = this.#caching && this.#bus.ready;
    const operation = `${this.#operation}-revocation-check`;
    // Two slots: two commands sent together (node-redis pipelines them).
    const [idReply, userReply] = await Promise.all([
      this.#redis.command(operation, ['GET', this.#key(this.#idKind, id)]),
      username === undefined
        ? null
        : this.#redis.command(operation, ['GET', this.#key(this.#userKind, username)]),
    ]);
    const idAnswer = idReply === null ? null : 1;
    const userAnswer =
      userReply === null ? null : (replyNumber(userReply) ?? Number.POSITIVE_INFINITY);
    // The generation changes whenever the channel goes down or up, or a message
    // arrives: unchanged, the channel stayed live through the read.
    if (cacheable && this.#bus.generation === generation) {
      this.#cache.set(idKey, idAnswer);
      if (userKey !== undefined) this.#cache.set(userKey, userAnswer);
    }
    return decide(idAnswer, userAnswer, issuedAtMs);
  }

  #key(kind: KeyKind, value: string): string {
    return recordKey(this.#redis.prefix, kind, value);
  }

  /**
   * The local cache's key: the kind (which has no `:`) then the value as it is — a Map
   * key needs no encoding, and the hot path no Buffer — unless it is long (hashed;
   * an encoded part never starts with `=`, so the two forms cannot meet).
   */
  #cacheKey(kind: KeyKind, value: string): string {
    return `${kind}:${value.length <= 256 ? `=${value}` : encodeKeyPart(value)}`;
  }
}

/** The key of a credential's activity record (idle timeouts), beside its revocation key. @internal */
export function activityKey(revocationKey: string): string {
  return `${revocationKey}:activity`;
}

function decide(
  idAnswer: number | null,
  userAt: number | null,
  issuedAtMs: number,
): false | 'id' | 'user' {
  if (idAnswer !== null) return 'id';
  if (userAt !== null && issuedAtMs <= userAt) return 'user';
  return false;
}
