import type { SpentIdStore } from '../stores/types.js';
import type { RedisConnection } from './connection.js';
import { recordKey, ttlMs } from './keys.js';

/**
 * The {@link SpentIdStore} on Redis (`portcullis/redis`): `SET <key> 1 NX PX <ttl>`,
 * atomic, so of two instances spending the same id (an OAuth2 callback replayed on
 * another instance) exactly one succeeds. Key: `portcullis:{sp:<id>}`, kept until
 * the given expiry. Failures throw `StoreUnavailableError` (503). Made by
 * {@link createRedisStores}.
 */
export class RedisSpentIdStore implements SpentIdStore {
  readonly #redis: RedisConnection;

  /** @internal Made by {@link createRedisStores}. */
  constructor(redis: RedisConnection) {
    this.#redis = redis;
  }

  async spend(id: string, expiresAtMs: number): Promise<boolean> {
    const reply = await this.#redis.command('spent-id', [
      'SET',
      recordKey(this.#redis.prefix, 'sp', id),
      '1',
      'NX',
      'PX',
      String(ttlMs(expiresAtMs, this.#redis.clock())),
    ]);
    return reply !== null;
  }
}
