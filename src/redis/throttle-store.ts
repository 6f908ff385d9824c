import type {
  ThrottleAdmission,
  ThrottleRule,
  ThrottleState,
  ThrottleStore,
  WindowCount,
} from '../stores/types.js';
import { replyNumber, replyString, type RedisConnection } from './connection.js';
import { recordKey } from './keys.js';
import { THROTTLE_ACQUIRE, THROTTLE_HIT, THROTTLE_PEEK, THROTTLE_REFUND } from './scripts.js';

/**
 * The {@link ThrottleStore} on Redis (`portcullis/redis`): the counters of the login
 * throttles and rate limits, shared by every instance, so an attacker spreading
 * guesses over the instances is counted once. The semantics of `MemoryThrottleStore`
 * (`portcullis`), each operation one server-side Lua script on one key: of
 * any number of concurrent attempts on a key, from any instances, none is lost and
 * none counted twice.
 *
 * Key: `portcullis:{th:<key>}` (the limiter's key encoded; a long one hashed), a hash
 * of the count, the end of the block and the end of the record. Every write sets
 * the key's TTL to the record's end (a window, or at least a window past a block)
 * in the same script; a key found without a TTL gets it back. Times are the
 * caller's `nowMs`, so every instance should keep its clock in sync (NTP).
 *
 * Failures (Redis down, slow past `timeoutMs`, an error reply) throw
 * `StoreUnavailableError` (503); the limiters decide what that means (fail closed
 * for credential checks by default). Made by {@link createRedisStores}.
 *
 * @example
 * ```ts
 * const stores = createRedisStores({ client, prefix: 'myapp:' });
 * const admission = await stores.throttle.acquire('login:u:…', rule, Date.now());
 * ```
 */
export class RedisThrottleStore implements ThrottleStore {
  readonly #redis: RedisConnection;

  /** @internal Made by {@link createRedisStores}. */
  constructor(redis: RedisConnection) {
    this.#redis = redis;
  }

  async acquire(key: string, rule: ThrottleRule, nowMs: number): Promise<ThrottleAdmission> {
    const reply = await this.#redis.script(
      'throttle-acquire',
      THROTTLE_ACQUIRE,
      [this.#key(key)],
      [
        scriptNumber('nowMs', nowMs),
        scriptNumber('rule.max', rule.max),
        scriptNumber('rule.windowMs', rule.windowMs),
        scriptNumber('rule.delayMs', rule.delayMs),
        scriptNumber('rule.maxDelayMs', rule.maxDelayMs),
      ],
    );
    const [allowed, count, retryAtMs] = Array.isArray(reply) ? (reply as unknown[]) : [];
    const counted = replyNumber(count);
    if (counted !== undefined) {
      const flag = replyString(allowed);
      if (flag === '1') return { allowed: true, count: counted };
      const retryAt = replyNumber(retryAtMs);
      if (flag === '0' && retryAt !== undefined) {
        return { allowed: false, count: counted, retryAtMs: retryAt };
      }
    }
    throw new TypeError('Unexpected reply of the throttle-acquire script');
  }

  async peek(key: string, nowMs: number): Promise<ThrottleState | null> {
    const reply = await this.#redis.script(
      'throttle-peek',
      THROTTLE_PEEK,
      [this.#key(key)],
      [scriptNumber('nowMs', nowMs)],
    );
    if (!Array.isArray(reply)) throw new TypeError('Unexpected reply of the throttle-peek script');
    if (reply.length === 0) return null;
    const count = replyNumber(reply[0]);
    const blockedUntilMs = replyNumber(reply[1]);
    if (count === undefined || blockedUntilMs === undefined) {
      throw new TypeError('Unexpected reply of the throttle-peek script');
    }
    return { count, blockedUntilMs };
  }

  async release(
    key: string,
    how: 'reset' | 'refund',
    rule: ThrottleRule,
    nowMs: number,
  ): Promise<void> {
    if (how === 'reset') {
      await this.#redis.command('throttle-release', ['DEL', this.#key(key)]);
      return;
    }
    await this.#redis.script(
      'throttle-release',
      THROTTLE_REFUND,
      [this.#key(key)],
      [scriptNumber('nowMs', nowMs), scriptNumber('rule.max', rule.max)],
    );
  }

  async hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount> {
    const reply = await this.#redis.script(
      'throttle-hit',
      THROTTLE_HIT,
      [this.#key(key)],
      [
        scriptNumber('nowMs', nowMs),
        // The window's end and TTL are computed here: the script only stores them.
        scriptNumber('resetAtMs', nowMs + windowMs),
        String(Math.max(1, Math.ceil(windowMs))),
      ],
    );
    const [count, resetAtMs] = Array.isArray(reply) ? (reply as unknown[]) : [];
    const counted = replyNumber(count);
    const resetAt = replyNumber(resetAtMs);
    if (counted === undefined || resetAt === undefined) {
      throw new TypeError('Unexpected reply of the throttle-hit script');
    }
    return { count: counted, resetAtMs: resetAt };
  }

  #key(key: string): string {
    if (typeof key !== 'string') throw new TypeError('key must be a string');
    return recordKey(this.#redis.prefix, 'th', key);
  }
}

/**
 * A number as a script argument: finite and within ±2^53, so that the script's
 * arithmetic is exact and every TTL it sets is one Redis takes.
 */
function scriptNumber(name: string, value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a finite number`);
  }
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
    throw new RangeError(`${name} must be within ±2^53`);
  }
  return String(value);
}
