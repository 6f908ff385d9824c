import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/core/errors.js';
import { MemorySpentIdStore, MemoryStoreFullError } from '../../src/stores/index.js';

const NOW = 1_700_000_000_000;
const MINUTE = 60_000;

describe('MemorySpentIdStore', () => {
  it('an id is spent once; a replay before its expiry is refused', () => {
    let now = NOW;
    const store = new MemorySpentIdStore({ clock: () => now });
    expect(store.spend('t1', NOW + MINUTE)).toBe(true);
    expect(store.spend('t1', NOW + MINUTE)).toBe(false);
    expect(store.spend('t2', NOW + MINUTE)).toBe(true);
    now += MINUTE - 1;
    expect(store.spend('t1', NOW + 2 * MINUTE)).toBe(false);
    // Past its expiry the transaction itself is refused as expired: the id may go.
    now += 1;
    expect(store.spend('t1', NOW + 2 * MINUTE)).toBe(true);
  });

  it('drops expired ids first and fails closed when full of live ones', () => {
    let now = NOW;
    const store = new MemorySpentIdStore({ maxEntries: 2, clock: () => now });
    store.spend('a', NOW + MINUTE);
    store.spend('b', NOW + 2 * MINUTE);
    let error: unknown;
    try {
      store.spend('c', NOW + MINUTE);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(MemoryStoreFullError);
    expect(error).toBeInstanceOf(UnavailableError);
    // Nothing live was forgotten: both are still spent.
    expect(store.spend('a', NOW + MINUTE)).toBe(false);
    expect(store.spend('b', NOW + MINUTE)).toBe(false);
    now += MINUTE;
    expect(store.spend('c', NOW + 3 * MINUTE)).toBe(true);
    expect(store.size).toBe(2);
    expect(store.spend('b', NOW + MINUTE)).toBe(false);
  });

  it('refuses bad options by name', () => {
    expect(() => new MemorySpentIdStore({ maxEntries: -1 })).toThrow(
      expect.objectContaining({ option: 'maxEntries' }),
    );
  });
});
