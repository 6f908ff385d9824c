import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/core/errors.js';
import { MemoryRevocationStore, MemoryStoreFullError } from '../../src/stores/index.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;

function testClock(): { now: () => number; advance: (ms: number) => void } {
  let now = NOW;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
  };
}

describe('MemoryRevocationStore', () => {
  it('a revoked id is revoked until its expiry, then forgotten', () => {
    const clock = testClock();
    const store = new MemoryRevocationStore({ clock: clock.now });
    store.revoke('jti-1', NOW + HOUR);
    expect(store.isRevoked('jti-1', 'alice', NOW - 1)).toBe('id');
    expect(store.isRevoked('jti-2', 'alice', NOW - 1)).toBe(false);
    clock.advance(HOUR - 1);
    expect(store.isRevoked('jti-1', undefined, NOW)).toBe('id');
    clock.advance(1);
    expect(store.isRevoked('jti-1', undefined, NOW)).toBe(false);
    expect(store.size).toBe(0);
  });

  it('answers synchronously (no promise on the hot path)', () => {
    const store = new MemoryRevocationStore();
    expect(store.isRevoked('x', 'alice', Date.now())).toBe(false);
    const revoke: (id: string, until: number) => unknown = store.revoke.bind(store);
    expect(revoke('x', Date.now() + HOUR)).toBeUndefined();
    expect(store.isRevoked('x', 'alice', Date.now())).toBe('id');
  });

  it('a user revocation covers credentials issued at or before it, never later ones', () => {
    const clock = testClock();
    const store = new MemoryRevocationStore({ clock: clock.now });
    store.revokeUser('alice', NOW, NOW + HOUR);
    expect(store.isRevoked('a', 'alice', NOW - 1000)).toBe('user');
    expect(store.isRevoked('a', 'alice', NOW)).toBe('user');
    expect(store.isRevoked('b', 'alice', NOW + 1)).toBe(false);
    expect(store.isRevoked('a', 'bob', NOW - 1000)).toBe(false);
    expect(store.isRevoked('a', undefined, NOW - 1000)).toBe(false);
    // A later call keeps the latest instant and the latest expiry.
    store.revokeUser('alice', NOW + 10, NOW + HOUR);
    store.revokeUser('alice', NOW - 10, NOW + 2 * HOUR);
    expect(store.isRevoked('b', 'alice', NOW + 5)).toBe('user');
    clock.advance(HOUR + 1);
    expect(store.isRevoked('b', 'alice', NOW + 5)).toBe('user');
    clock.advance(HOUR);
    expect(store.isRevoked('b', 'alice', NOW + 5)).toBe(false);
  });

  it('refuses a new revocation when full of live ones rather than forget one', () => {
    const clock = testClock();
    const store = new MemoryRevocationStore({ maxEntries: 2, clock: clock.now });
    store.revoke('a', NOW + HOUR);
    store.revokeUser('alice', NOW, NOW + 2 * HOUR);
    const error = (() => {
      try {
        store.revoke('c', NOW + HOUR);
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(MemoryStoreFullError);
    // An operational failure: 503 through the pipeline, never a 500.
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ code: 'ERR_STORE_FULL', maxEntries: 2 });
    // Both live revocations are still there.
    expect(store.isRevoked('a', undefined, 0)).toBe('id');
    expect(store.isRevoked('z', 'alice', NOW)).toBe('user');
    // Extending a live record needs no room.
    store.revoke('a', NOW + 3 * HOUR);
    store.revokeUser('alice', NOW + 1, NOW + 3 * HOUR);
    // Once one expires, its room is reused.
    clock.advance(HOUR);
    expect(() => {
      store.revoke('c', NOW + 4 * HOUR);
    }).toThrow(MemoryStoreFullError);
    clock.advance(2 * HOUR);
    store.revokeUser('bob', NOW, NOW + 4 * HOUR);
    store.revoke('c', NOW + 4 * HOUR);
    expect(store.isRevoked('c', 'bob', NOW)).toBe('id');
    expect(store.isRevoked('a', undefined, NOW)).toBe(false);
  });

  it('ignores a revocation that has already expired', () => {
    const store = new MemoryRevocationStore({ maxEntries: 1, clock: () => NOW });
    store.revoke('old', NOW);
    store.revokeUser('old', NOW, NOW - 1);
    expect(store.size).toBe(0);
  });

  it('refuses bad options by name', () => {
    expect(() => new MemoryRevocationStore({ maxEntries: 0 })).toThrow(
      expect.objectContaining({ option: 'maxEntries' }),
    );
    expect(() => new MemoryRevocationStore({ maxEntrys: 5 } as never)).toThrow(TypeError);
    expect(() => new MemoryRevocationStore({ clock: 5 as never })).toThrow(
      expect.objectContaining({ option: 'clock' }),
    );
  });
});
