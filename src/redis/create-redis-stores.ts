import { ConfigurationError } from '../core/errors.js';
import { MAX_DEADLINE_MS } from '../lib/deadline.js';
import { rejectUnknownOptions, requireInteger } from '../core/validate.js';
import { InvalidationBus } from './bus.js';
import { RedisConnection, type RedisClientLike } from './connection.js';
import { requirePrefix } from './keys.js';
import { RedisRefreshTokenStore } from './refresh-token-store.js';
import { RedisRevocationStore } from './revocation-store.js';
import { CachedRevocations } from './revocations.js';
import { RedisSessionStore } from './session-store.js';
import { RedisSpentIdStore } from './spent-id-store.js';
import { RedisThrottleStore } from './throttle-store.js';
import { RedisUserChangeNotifier } from './user-change-notifier.js';

/** Options of {@link createRedisStores}. */
export interface RedisStoresOptions {
  /**
   * The app's node-redis client (`createClient()` from `redis` 6), connected by the
   * app (or made by {@link connectRedis}). Shared by every store; one more connection
   * is made from it with `duplicate()` for the invalidation channel. Any RESP version
   * works. An `'error'` listener is added to it (removed by `close()`): node-redis
   * emits `'error'` on every failed reconnection, and an `'error'` event without a
   * listener would crash the process.
   */
  readonly client: RedisClientLike;
  /**
   * The start of every key and channel (no braces, no white space): one Redis can
   * serve several apps or environments.
   * @defaultValue `'portcullis:'`
   */
  readonly prefix?: string;
  /**
   * The deadline of every Redis command, in milliseconds: past it (Redis slow,
   * unreachable, or the command still in node-redis' offline queue) the operation
   * throws `StoreUnavailableError` and the request gets 503 with `Retry-After`.
   * @defaultValue `1000`
   */
  readonly timeoutMs?: number;
  /**
   * The longest a revocation answer (sessions, access tokens) is used from the local
   * cache without asking Redis again, in milliseconds: the staleness bound should an
   * invalidation ever be lost without the channel dropping. `0` turns the cache off.
   * @defaultValue `2000`
   */
  readonly maxStalenessMs?: number;
  /**
   * How many revocation answers each cache keeps at most (least recently used first out).
   * @defaultValue `100_000`
   */
  readonly maxCacheEntries?: number;
  /**
   * The longest a revocation or user change waits for the other instances to
   * acknowledge its invalidation, in milliseconds (an instance that does not answer
   * in time is still bounded by `maxStalenessMs`).
   * @defaultValue `250`
   */
  readonly ackTimeoutMs?: number;
  /**
   * Sessions' activity (idle timeouts) is written at most once per this interval per
   * session and instance, in milliseconds; another instance may then see a session
   * idle up to this much early, never late. Keep it well below the idle timeout.
   * @defaultValue `5000`
   */
  readonly touchIntervalMs?: number;
  /**
   * The clock (epoch milliseconds) from which TTLs are computed: give the one of
   * your authenticators if they have their own.
   * @defaultValue `Date.now`
   */
  readonly clock?: () => number;
  /**
   * Called with the client's and the subscriber's errors (a lost connection, a
   * failed reconnection): log them. Requests needing Redis meanwhile fail with
   * `StoreUnavailableError`.
   * @defaultValue ignore them
   */
  readonly onError?: (error: unknown) => void;
}

/** What {@link createRedisStores} returns: every store of portcullis on one Redis. */
export interface RedisStores {
  /** For `JwtTokenService` (`store`): refresh-token rotation and revocations. */
  readonly refreshTokens: RedisRefreshTokenStore;
  /** For `SessionAuthenticator` (`store`): logout, log out everywhere, idle timeouts. */
  readonly sessions: RedisSessionStore;
  /** Access-token revocation (by `jti`, and a user's tokens issued before a time). */
  readonly accessTokens: RedisRevocationStore;
  /** Spent one-time ids (OAuth2 login transactions). */
  readonly spentIds: RedisSpentIdStore;
  /**
   * The counters of the login throttles and rate limits (`store` of `LoginThrottle`
   * and `rateLimit`): attempts counted once across every instance.
   */
  readonly throttle: RedisThrottleStore;
  /** Tells every instance that a user changed (drops cached credentials). */
  readonly userChanges: RedisUserChangeNotifier;
  /**
   * Resolves `true` once the invalidation channel is live (until then checks ask
   * Redis every time), or `false` after `timeoutMs`.
   */
  ready(timeoutMs?: number): Promise<boolean>;
  /** Closes the subscriber connection and removes the client listener; the app closes its client. */
  close(): void;
}

const KNOWN = [
  'client',
  'prefix',
  'timeoutMs',
  'maxStalenessMs',
  'maxCacheEntries',
  'ackTimeoutMs',
  'touchIntervalMs',
  'clock',
  'onError',
];

/**
 * Every store of portcullis on Redis, sharing the app's node-redis client: one
 * security state for every instance of the app.
 *
 * @example
 * ```ts
 * import { connectRedis, createRedisStores } from 'portcullis/redis';
 *
 * const client = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
 * const stores = createRedisStores({ client, prefix: 'myapp:' });
 * const tokens = new JwtTokenService(config, { store: stores.refreshTokens });
 * const sessions = new SessionAuthenticator({ password, store: stores.sessions });
 * // stores.throttle: the login throttles' and rate limits' counters
 * ```
 */
export function createRedisStores(options: RedisStoresOptions): RedisStores {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknownOptions('createRedisStores', options, KNOWN);
  const { client } = options;
  if (
    typeof client !== 'object' ||
    (client as unknown) === null ||
    typeof client.sendCommand !== 'function' ||
    typeof client.duplicate !== 'function'
  ) {
    throw new ConfigurationError(
      'client',
      'must be a node-redis client (createClient() from redis)',
    );
  }
  const prefix = requirePrefix(options.prefix ?? 'portcullis:');
  const timeoutMs = requireInteger('timeoutMs', options.timeoutMs ?? 1_000, 1, MAX_DEADLINE_MS);
  const maxStalenessMs = requireInteger(
    'maxStalenessMs',
    options.maxStalenessMs ?? 2_000,
    0,
    3_600_000,
  );
  const maxEntries = requireInteger(
    'maxCacheEntries',
    options.maxCacheEntries ?? 100_000,
    1,
    100_000_000,
  );
  const ackTimeoutMs = requireInteger(
    'ackTimeoutMs',
    options.ackTimeoutMs ?? 250,
    0,
    MAX_DEADLINE_MS,
  );
  const touchIntervalMs = requireInteger(
    'touchIntervalMs',
    options.touchIntervalMs ?? 5_000,
    1,
    3_600_000,
  );
  const clock = options.clock ?? Date.now;
  if (typeof clock !== 'function') throw new ConfigurationError('clock', 'must be a function');
  const onError = options.onError ?? (() => undefined);
  if (typeof onError !== 'function') throw new ConfigurationError('onError', 'must be a function');

  const redis = new RedisConnection(client, prefix, timeoutMs, clock);
  const bus = new InvalidationBus(redis, ackTimeoutMs, onError);
  const cache = { maxStalenessMs, maxEntries };
  const sessionRevocations = new CachedRevocations(
    redis,
    bus,
    { id: 's', user: 'su', operation: 'session' },
    cache,
  );
  const tokenRevocations = new CachedRevocations(
    redis,
    bus,
    { id: 't', user: 'tu', operation: 'access-token' },
    cache,
  );
  const clientError = (error: unknown): void => {
    onError(error);
  };
  client.on('error', clientError);
  bus.start();
  return {
    refreshTokens: new RedisRefreshTokenStore(redis),
    sessions: new RedisSessionStore(redis, sessionRevocations, {
      intervalMs: touchIntervalMs,
      maxEntries,
    }),
    accessTokens: new RedisRevocationStore(tokenRevocations),
    spentIds: new RedisSpentIdStore(redis),
    throttle: new RedisThrottleStore(redis),
    userChanges: new RedisUserChangeNotifier(bus, onError),
    ready: (wait = timeoutMs) => bus.whenReady(wait),
    close() {
      bus.close();
      client.off('error', clientError);
    },
  };
}
