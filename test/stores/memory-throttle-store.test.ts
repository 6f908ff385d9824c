import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { MemoryThrottleStore, type ThrottleRule } from '../../src/stores/index.js';
import { testClock } from '../support/clock.js';
import { throttleStoreContract } from './throttle-store-contract.js';

const store = new MemoryThrottleStore();
throttleStoreContract('MemoryThrottleStore', () => ({ store, other: store }), testClock());

const RULE: ThrottleRule = { max: 3, windowMs: 60_000, delayMs: 1_000, maxDelayMs: 8_000 };

describe('MemoryThrottleStore', () => {
  it('holds at most maxEntries keys, forgetting the least recently used', () => {
    const bounded = new MemoryThrottleStore({ maxEntries: 2 });
    const now = 1_700_000_000_000;
    bounded.acquire('a', RULE, now);
    bounded.acquire('b', RULE, now);
    bounded.peek('a', now); // 'a' is now the more recent
    bounded.hit('c', 60_000, now);
    expect(bounded.size).toBe(2);
    expect(bounded.peek('b', now)).toBeNull();
    expect(bounded.peek('a', now)).toEqual({ count: 1, blockedUntilMs: 0 });
    expect(bounded.hit('c', 60_000, now).count).toBe(2);
  });

  it('drops an expired key when it is met', () => {
    const small = new MemoryThrottleStore();
    const now = 1_700_000_000_000;
    small.acquire('a', RULE, now);
    expect(small.size).toBe(1);
    expect(small.peek('a', now + RULE.windowMs)).toBeNull();
    expect(small.size).toBe(0);
  });

  it('refuses bad options by name', () => {
    for (const [options, option] of [
      [{ maxEntries: 0 }, 'maxEntries'],
      [{ maxEntries: 1.5 }, 'maxEntries'],
      [{ maxEntrys: 10 }, 'maxEntrys'],
    ] as const) {
      expect(() => new MemoryThrottleStore(options as never)).toThrow(ConfigurationError);
      expect(() => new MemoryThrottleStore(options as never)).toThrow(option);
    }
  });
});
