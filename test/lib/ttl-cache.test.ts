import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../src/lib/ttl-cache.js';

// A private helper of src/lib used by the authentication layer.

describe('TtlCache', () => {
  it('validates its options', () => {
    expect(() => new TtlCache({ maxEntries: 0, ttlMs: 1 })).toThrow(RangeError);
    expect(() => new TtlCache({ maxEntries: 1, ttlMs: 0 })).toThrow(RangeError);
  });

  it('expires entries after ttlMs from when they were set', () => {
    let now = 0;
    const cache = new TtlCache<string, number>({ maxEntries: 10, ttlMs: 100, now: () => now });
    cache.set('a', 1);
    now = 99;
    expect(cache.get('a')).toBe(1);
    now = 100;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry', () => {
    const cache = new TtlCache<string, number>({ maxEntries: 2, ttlMs: 1000, now: () => 0 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('refreshes the life of an entry that is set again', () => {
    let now = 0;
    const cache = new TtlCache<string, number>({ maxEntries: 2, ttlMs: 100, now: () => now });
    cache.set('a', 1);
    now = 90;
    cache.set('a', 2);
    now = 150;
    expect(cache.get('a')).toBe(2);
    expect(cache.delete('a')).toBe(true);
    cache.set('b', 1);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
