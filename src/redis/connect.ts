import { createClient, type RedisClientOptions } from 'redis';
import { withDeadline } from '../lib/deadline.js';
import { unavailable } from './connection.js';

/**
 * How long node-redis waits before its next reconnection attempt: exponential
 * from 50 ms, capped at 2 s, with up to 100 ms of jitter (so instances do not
 * reconnect in step). It never gives up: a store keeps failing closed until Redis
 * is back, then works again without being recreated.
 *
 * @example
 * ```ts
 * createClient({ url, socket: { reconnectStrategy: reconnectWithBackoff } });
 * ```
 */
export function reconnectWithBackoff(retries: number): number {
  return Math.min(50 * 2 ** Math.min(retries, 10), 2_000) + Math.floor(Math.random() * 100);
}

/** Options of {@link connectRedis}: node-redis client options, merged over portcullis' defaults. */
export type ConnectRedisOptions = Omit<RedisClientOptions, 'url'> & {
  /**
   * Called with the client's errors (a lost connection, a failed reconnection).
   * @defaultValue ignore them (the stores report the outage as `StoreUnavailableError`)
   */
  readonly onError?: (error: unknown) => void;
  /**
   * How long the first connection may take, in milliseconds.
   * @defaultValue `5000`
   */
  readonly connectTimeoutMs?: number;
};

/**
 * Creates and connects a node-redis client suited to {@link createRedisStores}:
 * reconnection with capped backoff ({@link reconnectWithBackoff}), a socket
 * connect timeout, and an `'error'` listener (without one, node-redis' `'error'`
 * events — emitted on every failed reconnection — would crash the process). The
 * offline queue stays on; every store command has its own deadline
 * (`timeoutMs`), after which it is dropped from the queue and fails closed. The
 * app owns the client: `await client.close()` at shutdown.
 *
 * @throws StoreUnavailableError when the first connection fails within `connectTimeoutMs`
 *
 * @example
 * ```ts
 * const client = await connectRedis('redis://127.0.0.1:6379', { onError: (e) => log.warn(e) });
 * ```
 */
export async function connectRedis(url: string, options: ConnectRedisOptions = {}) {
  const { onError, connectTimeoutMs = 5_000, socket, ...rest } = options;
  const client = createClient({
    ...rest,
    url,
    socket: {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: reconnectWithBackoff,
      ...socket,
    },
  });
  client.on('error', (error: unknown) => {
    onError?.(error);
  });
  try {
    await withDeadline(client.connect(), connectTimeoutMs, () => unavailable('connect'));
  } catch (error) {
    client.destroy();
    throw error instanceof Error && 'store' in error ? error : unavailable('connect', error);
  }
  return client;
}
