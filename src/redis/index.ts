/**
 * Every store of portcullis on Redis (node-redis, the `redis` package, an optional
 * peer): one security state shared by every instance of an application — refresh
 * token families, session and access-token revocations, spent one-time ids, user
 * changes, the counters of login throttles and rate limits. Start with
 * {@link createRedisStores}.
 *
 * @module portcullis/redis
 */
export { connectRedis, reconnectWithBackoff, type ConnectRedisOptions } from './connect.js';
export type { RedisClientLike, RedisSubscriberLike } from './connection.js';
export {
  createRedisStores,
  type RedisStores,
  type RedisStoresOptions,
} from './create-redis-stores.js';
export { RedisRefreshTokenStore } from './refresh-token-store.js';
export { RedisRevocationStore } from './revocation-store.js';
export { RedisSessionStore } from './session-store.js';
export { RedisSpentIdStore } from './spent-id-store.js';
export { RedisThrottleStore } from './throttle-store.js';
export { RedisUserChangeNotifier } from './user-change-notifier.js';
