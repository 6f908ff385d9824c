import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALICE, makeSessions, request } from './support.js';

// Counts iron-session's unsealing (the real one runs): a cookie seen again must not be
// unsealed again, and nothing the cache answers may outlive what unsealing would allow.
const unsealed = vi.hoisted(() => ({ calls: 0 }));
vi.mock('iron-session', async (importOriginal) => {
  const iron = await importOriginal<typeof import('iron-session')>();
  return {
    ...iron,
    unsealData: (...args: Parameters<typeof iron.unsealData>) => {
      unsealed.calls++;
      return iron.unsealData(...args);
    },
  };
});

afterEach(() => {
  unsealed.calls = 0;
});

describe('the unsealed-cookie cache', () => {
  it('a cookie seen again is not unsealed again', async () => {
    const { sessions } = makeSessions();
    const cookie = await sessions.logIn(ALICE);
    for (let i = 0; i < 5; i++) {
      expect(await sessions.attempt(request({ cookie }))).toMatchObject({ kind: 'authenticated' });
    }
    expect(unsealed.calls).toBe(1);
  });

  it('a cached cookie past the session’s maxAge is refused (the cache never extends a session)', async () => {
    const { sessions, clock } = makeSessions({ maxAgeSeconds: 60 });
    const cookie = await sessions.logIn(ALICE);
    expect(await sessions.attempt(request({ cookie }))).toMatchObject({ kind: 'authenticated' });
    clock.advance(60_000);
    expect(await sessions.attempt(request({ cookie }))).toMatchObject({
      kind: 'failed',
      reason: 'invalid-session',
    });
    expect(unsealed.calls).toBe(1); // refused from the cache, by the session's own age check
  });

  it('a cached cookie that was logged out is refused', async () => {
    const { sessions } = makeSessions();
    const cookie = await sessions.logIn(ALICE);
    expect(await sessions.attempt(request({ cookie }))).toMatchObject({ kind: 'authenticated' });
    await sessions.logOut(request({ cookie }));
    expect(await sessions.attempt(request({ cookie }))).toMatchObject({ kind: 'failed' });
  });

  it('a tampered copy of a cached cookie is unsealed, and refused', async () => {
    const { sessions } = makeSessions();
    const cookie = await sessions.logIn(ALICE);
    await sessions.attempt(request({ cookie }));
    const value = cookie.split(';', 1)[0] ?? '';
    const at = value.indexOf('*', value.indexOf('=') + 12) + 3;
    const flipped = value[at] === 'A' ? 'B' : 'A';
    const tampered = `${value.slice(0, at)}${flipped}${value.slice(at + 1)}`;
    expect(tampered).not.toBe(value);
    expect(await sessions.attempt(request({ cookie: tampered }))).toMatchObject({
      kind: 'failed',
      reason: 'invalid-session',
    });
    expect(unsealed.calls).toBe(2);
  });

  it('the cached state cannot be changed by a caller', async () => {
    const { sessions } = makeSessions();
    const cookie = await sessions.logIn(ALICE);
    const first = await sessions.authenticate(request({ cookie }));
    expect(() => (first?.roles as Set<string> | undefined)?.add('ADMIN')).toThrow(TypeError);
    const again = await sessions.authenticate(request({ cookie }));
    expect([...(again?.roles ?? [])]).toEqual(['USER']);
  });

  it('unsealCache: false unseals every time', async () => {
    const { sessions } = makeSessions({}, { unsealCache: false });
    const cookie = await sessions.logIn(ALICE);
    await sessions.attempt(request({ cookie }));
    await sessions.attempt(request({ cookie }));
    expect(unsealed.calls).toBe(2);
  });

  it('refuses a bad unsealCache option, naming it', () => {
    expect(() => makeSessions({}, { unsealCache: true as never })).toThrow(
      expect.objectContaining({ option: 'unsealCache' }),
    );
    expect(() => makeSessions({}, { unsealCache: { ttlMs: 0 } })).toThrow(
      expect.objectContaining({ option: 'unsealCache.ttlMs' }),
    );
    expect(() => makeSessions({}, { unsealCache: { size: 5 } as never })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION' }),
    );
  });
});
