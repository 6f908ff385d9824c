import type { MaybePromise, RevocationStore } from '../stores/types.js';
import type { CachedRevocations } from './revocations.js';

/**
 * The {@link RevocationStore} of access tokens on Redis (`portcullis/redis`): a
 * token revoked by `jti`, or every token of a user issued at or before a time, is
 * refused by every instance. The check answers from a local cache while nothing
 * changed (no round trip), with the bounds of {@link RedisSessionStore}: invalidated
 * on every instance before a revocation returns, never used past `maxStalenessMs`,
 * never while the invalidation channel is down.
 *
 * Keys: `portcullis:{t:<jti>}`, `portcullis:{tu:<username>}`, each with the TTL of
 * the tokens it guards. Failures throw `StoreUnavailableError` (503). Made by
 * {@link createRedisStores}.
 */
export class RedisRevocationStore implements RevocationStore {
  readonly #revocations: CachedRevocations;

  /** @internal Made by {@link createRedisStores}. */
  constructor(revocations: CachedRevocations) {
    this.#revocations = revocations;
  }

  revoke(id: string, expiresAtMs: number): Promise<void> {
    return this.#revocations.revokeId(id, expiresAtMs);
  }

  revokeUser(username: string, atMs: number, expiresAtMs: number): Promise<void> {
    return this.#revocations.revokeUser(username, atMs, expiresAtMs);
  }

  isRevoked(
    id: string,
    username: string | undefined,
    issuedAtMs: number,
  ): MaybePromise<false | 'id' | 'user'> {
    return this.#revocations.check(id, username, issuedAtMs);
  }
}
