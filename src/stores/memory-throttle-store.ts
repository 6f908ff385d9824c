import { memoryStoreOptions } from './memory-options.js';
import type {
  ThrottleAdmission,
  ThrottleRule,
  ThrottleState,
  ThrottleStore,
  WindowCount,
} from './types.js';

/** Options of {@link MemoryThrottleStore}. */
export interface MemoryThrottleStoreOptions {
  /**
   * The most keys kept (about 150 bytes each); beyond it the least recently used key
   * is forgotten.
   * @defaultValue `100_000`
   */
  readonly maxEntries?: number;
}

interface Entry {
  count: number;
  blockedUntilMs: number;
  expiresAtMs: number;
}

/**
 * The in-memory {@link ThrottleStore}: the counters of the login throttles and rate
 * limits of one process (the default). Synchronous, so a limiter on it adds no
 * promise to a request. Share one store between the limiters of a process, and a
 * Redis store (`createRedisStores(…).throttle`, `portcullis/redis`) between
 * processes: with one store per instance, each instance counts on its own.
 *
 * Bounded: an expired key is dropped when met; when `maxEntries` keys are held, the
 * least recently used one is forgotten to make room (see {@link ThrottleStore}).
 *
 * @example
 * ```ts
 * const counters = new MemoryThrottleStore();
 * const throttle = new LoginThrottle({ store: counters });
 * const search = rateLimit({ name: 'search', window: '1m', max: 60, store: counters });
 * ```
 */
export class MemoryThrottleStore implements ThrottleStore {
  // Map order is recency: a key is moved to the end whenever it is used.
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;

  constructor(options: MemoryThrottleStoreOptions = {}) {
    this.#maxEntries = memoryStoreOptions('MemoryThrottleStore', options, {
      clock: false,
    }).maxEntries;
  }

  /** How many keys are held (expired ones included until they are met). */
  get size(): number {
    return this.#entries.size;
  }

  acquire(key: string, rule: ThrottleRule, nowMs: number): ThrottleAdmission {
    const entry = this.#live(key, nowMs);
    if (entry !== undefined && entry.blockedUntilMs > nowMs) {
      return { allowed: false, count: entry.count, retryAtMs: entry.blockedUntilMs };
    }
    const counted = entry ?? this.#create(key, nowMs + rule.windowMs);
    counted.count += 1;
    if (counted.count >= rule.max) {
      counted.blockedUntilMs = nowMs + blockMs(rule, counted.count);
      counted.expiresAtMs = Math.max(counted.expiresAtMs, counted.blockedUntilMs + rule.windowMs);
    }
    return { allowed: true, count: counted.count };
  }

  peek(key: string, nowMs: number): ThrottleState | null {
    const entry = this.#live(key, nowMs);
    return entry === undefined
      ? null
      : { count: entry.count, blockedUntilMs: entry.blockedUntilMs };
  }

  release(key: string, how: 'reset' | 'refund', _rule: ThrottleRule, nowMs: number): void {
    if (how === 'reset') {
      this.#entries.delete(key);
      return;
    }
    const entry = this.#live(key, nowMs);
    if (entry === undefined) return;
    entry.count = Math.max(0, entry.count - 1);
    // Only the refunded attempt can have set the block: none other is admitted while it runs.
    entry.blockedUntilMs = 0;
  }

  hit(key: string, windowMs: number, nowMs: number): WindowCount {
    const entry = this.#live(key, nowMs) ?? this.#create(key, nowMs + windowMs);
    entry.count += 1;
    return { count: entry.count, resetAtMs: entry.expiresAtMs };
  }

  /** The live entry of `key`, moved to the recent end; an expired one is dropped. */
  #live(key: string, nowMs: number): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAtMs <= nowMs) return undefined;
    this.#entries.set(key, entry);
    return entry;
  }

  #create(key: string, expiresAtMs: number): Entry {
    if (this.#entries.size >= this.#maxEntries) {
      // The least recently used key: the first in the map's order.
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    const entry: Entry = { count: 0, blockedUntilMs: 0, expiresAtMs };
    this.#entries.set(key, entry);
    return entry;
  }
}

/** How long the attempt numbered `count` (at least `rule.max`) blocks its key. @internal */
export function blockMs(rule: ThrottleRule, count: number): number {
  const doublings = Math.min(count - rule.max, 40);
  return Math.min(rule.maxDelayMs, rule.delayMs * 2 ** doublings);
}
