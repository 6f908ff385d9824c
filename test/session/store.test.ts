import { describe, expect, it } from 'vitest';
import { MemorySessionStore, SessionStoreFullError } from '../../src/session/index.js';
import { ALICE, NOW, cookiePair, makeSessions, request, testClock } from './support.js';

const HOUR = 3600 * 1000;

describe('MemorySessionStore', () => {
  it('a revoked session stays revoked until its expiry, by the given clock', () => {
    const clock = testClock();
    const store = new MemorySessionStore({ clock: clock.now });
    store.revokeSession('sid-1', NOW + HOUR);
    expect(store.isRevoked('sid-1', 'alice', NOW - 1)).toBe('session');
    expect(store.isRevoked('sid-2', 'alice', NOW - 1)).toBe(false);
    clock.advance(HOUR - 1);
    expect(store.isRevoked('sid-1', 'alice', NOW - 1)).toBe('session');
    // Past its expiry the session itself is expired, so the record may go.
    clock.advance(1);
    expect(store.isRevoked('sid-1', 'alice', NOW - 1)).toBe(false);
  });

  it('a user revocation covers sessions created until then, never later ones', () => {
    const clock = testClock();
    const store = new MemorySessionStore({ clock: clock.now });
    store.revokeUser('alice', NOW, NOW + HOUR);
    expect(store.isRevoked('a', 'alice', NOW - 1000)).toBe('user');
    expect(store.isRevoked('a', 'alice', NOW)).toBe('user');
    expect(store.isRevoked('b', 'alice', NOW + 1)).toBe(false);
    expect(store.isRevoked('a', 'bob', NOW - 1000)).toBe(false);
    expect(store.isRevoked('a', undefined, NOW - 1000)).toBe(false);
    // A later revocation moves the instant forward, an earlier one never back.
    store.revokeUser('alice', NOW + 10, NOW + HOUR);
    store.revokeUser('alice', NOW - 10, NOW + 2 * HOUR);
    expect(store.isRevoked('b', 'alice', NOW + 5)).toBe('user');
    clock.advance(HOUR + 1);
    // The longest expiry is kept.
    expect(store.isRevoked('b', 'alice', NOW + 5)).toBe('user');
  });

  it('refuses a new revocation when full of live ones, rather than forget one', () => {
    const clock = testClock();
    const store = new MemorySessionStore({ clock: clock.now, maxRevocations: 3 });
    store.revokeSession('a', NOW + HOUR);
    store.revokeSession('b', NOW + 2 * HOUR);
    store.revokeUser('alice', NOW, NOW + HOUR);
    let error: unknown;
    try {
      store.revokeSession('c', NOW + HOUR);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SessionStoreFullError);
    expect(error).toMatchObject({
      code: 'ERR_STORE_FULL',
      store: 'memory session store',
      maxEntries: 3,
    });
    expect(store.isRevoked('a', undefined, 0)).toBe('session');
    // Expired records make room.
    clock.advance(HOUR);
    store.revokeSession('c', NOW + 3 * HOUR);
    expect(store.size).toBe(2);
    expect(store.isRevoked('b', undefined, 0)).toBe('session');
    expect(store.isRevoked('c', undefined, 0)).toBe('session');
  });

  it('touch returns the previous activity and evicts the oldest past maxTracked', () => {
    const store = new MemorySessionStore({ clock: () => NOW, maxTracked: 2 });
    expect(store.touch('a', NOW, NOW + HOUR)).toBeUndefined();
    expect(store.touch('a', NOW + 5, NOW + HOUR)).toBe(NOW);
    store.touch('b', NOW + 6, NOW + HOUR);
    store.touch('c', NOW + 7, NOW + HOUR);
    // `a` was the least recently used: forgotten (the session then counts as idle since login).
    expect(store.touch('a', NOW + 8, NOW + HOUR)).toBeUndefined();
    expect(store.touch('c', NOW + 9, NOW + HOUR)).toBe(NOW + 7);
  });

  it('a full store makes logout fail loudly instead of leaving the cookie valid', async () => {
    const clock = testClock();
    const store = new MemorySessionStore({ clock: clock.now, maxRevocations: 1 });
    const { sessions } = makeSessions({}, { clock, store });
    const first = await sessions.logIn(ALICE);
    const second = await sessions.logIn(ALICE);
    await sessions.logOut(request({ cookie: first }));
    await expect(sessions.logOut(request({ cookie: second }))).rejects.toMatchObject({
      code: 'ERR_STORE_FULL',
    });
    expect((await sessions.authenticate(request({ cookie: second })))?.username).toBe('alice');
    expect(await sessions.authenticate(request({ cookie: first }))).toBeNull();
  });

  it('an asynchronous store is awaited', async () => {
    const revoked = new Set<string>();
    const store = {
      revokeSession: async (sid: string) => {
        await Promise.resolve();
        revoked.add(sid);
      },
      revokeUser: async () => {},
      isRevoked: async (sid: string) => {
        await Promise.resolve();
        return revoked.has(sid) ? ('session' as const) : false;
      },
      touch: () => Promise.resolve(undefined),
    };
    const { sessions } = makeSessions({}, { store });
    const cookie = cookiePair(await sessions.logIn(ALICE));
    expect(await sessions.authenticate(request({ cookie }))).not.toBeNull();
    await sessions.logOut(request({ cookie }));
    expect(revoked.size).toBe(1);
    expect(await sessions.authenticate(request({ cookie }))).toBeNull();
  });
});
