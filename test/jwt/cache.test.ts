import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { isPromiseLike } from '../../src/lib/promise.js';
import { JwtAuthenticator, JwtConfig, type JwtCacheOptions } from '../../src/jwt/index.js';
import { VerifiedTokenCache } from '../../src/jwt/cache.js';
import { TokenVerifier } from '../../src/jwt/verify.js';
import {
  NOW,
  NOW_S,
  SECRET,
  bearer,
  claimsAt,
  recordEvents,
  requestWith,
  secretOf,
  sign,
  testClock,
  type TestClock,
} from './support.js';

let verify: MockInstance<TokenVerifier['verify']>;
beforeEach(() => {
  verify = vi.spyOn(TokenVerifier.prototype, 'verify');
});
afterEach(() => {
  vi.restoreAllMocks();
});

function setup(options: { cache?: JwtCacheOptions | false; leeway?: number } = {}) {
  const clock = testClock();
  const config = new JwtConfig(SECRET).clock(clock);
  if (options.cache !== undefined) config.cache(options.cache);
  if (options.leeway !== undefined) config.leewaySeconds(options.leeway);
  const { events, received } = recordEvents();
  const jwt = new JwtAuthenticator(config, { events });
  const auth = (token: string) => jwt.authenticate(requestWith(bearer(token)));
  return { clock, jwt, auth, received };
}

/** Authenticates and returns the username (awaiting only when it got a promise). */
async function username(
  result: ReturnType<JwtAuthenticator['authenticate']>,
): Promise<string | undefined> {
  return (await result)?.username;
}

describe('the verified-token cache', () => {
  it('answers a repeated token synchronously, without verifying it again', async () => {
    const { auth, received } = setup();
    const token = await sign(SECRET, claimsAt({ roles: ['USER'] }));
    const first = auth(token);
    expect(isPromiseLike(first)).toBe(true);
    expect((await first)?.username).toBe('alice');
    expect(verify).toHaveBeenCalledTimes(1);
    const second = auth(token);
    expect(isPromiseLike(second)).toBe(false);
    expect(second).toMatchObject({ username: 'alice' });
    expect(verify).toHaveBeenCalledTimes(1);
    // Each hit is still an authentication (an event per request).
    expect(received.map((e) => e.type)).toEqual([
      'authentication-success',
      'authentication-success',
    ]);
  });

  it('validateToken never uses the cache', async () => {
    const { jwt, auth } = setup();
    const token = await sign(SECRET, claimsAt());
    await auth(token);
    await jwt.validateToken(token);
    await jwt.validateToken(token);
    expect(verify).toHaveBeenCalledTimes(3);
  });

  it('an entry never outlives exp: refused after exp + leeway though cached', async () => {
    const { clock, auth } = setup();
    const token = await sign(SECRET, claimsAt({ exp: NOW_S + 60 }));
    expect(await username(auth(token))).toBe('alice');
    clock.set((NOW_S + 59) * 1000 + 999);
    expect(isPromiseLike(auth(token))).toBe(false); // still cached
    clock.set((NOW_S + 60) * 1000);
    const atExp = auth(token);
    expect(isPromiseLike(atExp)).toBe(true); // the entry died at exp: verified again
    expect(await username(atExp)).toBe('alice'); // within the 30 s leeway
    expect(verify).toHaveBeenCalledTimes(2);
    clock.set((NOW_S + 90) * 1000);
    expect(await auth(token)).toBeNull();
    expect(verify).toHaveBeenCalledTimes(3);
  });

  it('an entry of a token without iat dies at exp too (leeway 0)', async () => {
    const { clock, auth } = setup({ leeway: 0 });
    const token = await sign(SECRET, { sub: 'alice', exp: NOW_S + 10 });
    expect(await username(auth(token))).toBe('alice');
    expect(auth(token)).toMatchObject({ username: 'alice' });
    clock.advance(10);
    expect(await auth(token)).toBeNull();
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('a token inside its leeway past exp is accepted but not cached', async () => {
    const { auth } = setup();
    const token = await sign(SECRET, claimsAt({ exp: NOW_S - 10 }));
    expect(await username(auth(token))).toBe('alice');
    expect(await username(auth(token))).toBe('alice');
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('maxAgeSeconds bounds an entry of a long-lived token', async () => {
    const { clock, auth } = setup({ cache: { maxAgeSeconds: 60 } });
    const token = await sign(SECRET, claimsAt({ exp: NOW_S + 3600 }));
    await auth(token);
    clock.advance(59);
    expect(isPromiseLike(auth(token))).toBe(false);
    clock.advance(1);
    const again = auth(token);
    expect(isPromiseLike(again)).toBe(true);
    expect(await username(again)).toBe('alice');
    expect(verify).toHaveBeenCalledTimes(2);
    // The new entry lives maxAgeSeconds from its verification.
    clock.advance(59);
    expect(isPromiseLike(auth(token))).toBe(false);
  });

  it('failures are not cached', async () => {
    const { auth, received } = setup();
    const forged = await sign(secretOf(64), claimsAt());
    expect(await auth(forged)).toBeNull();
    const second = auth(forged);
    expect(isPromiseLike(second)).toBe(true);
    expect(await second).toBeNull();
    expect(verify).toHaveBeenCalledTimes(2);
    expect(received.map((e) => e.type)).toEqual([
      'authentication-failure',
      'authentication-failure',
    ]);
  });

  it('a token refused for its claims (bad roles) is not cached either', async () => {
    const { auth } = setup();
    const token = await sign(SECRET, claimsAt({ roles: [1] }));
    expect(await auth(token)).toBeNull();
    expect(await auth(token)).toBeNull();
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('is bounded: with maxEntries 2, a third token evicts the least recently used', async () => {
    const { auth } = setup({ cache: { maxEntries: 2 } });
    const [a, b, c] = (await Promise.all(
      ['a', 'b', 'c'].map((sub) => sign(SECRET, claimsAt({ sub }))),
    )) as [string, string, string];
    await auth(a);
    await auth(b);
    await auth(c);
    expect(verify).toHaveBeenCalledTimes(3);
    expect(auth(c)).toMatchObject({ username: 'c' });
    expect(auth(b)).toMatchObject({ username: 'b' });
    const evicted = auth(a);
    expect(isPromiseLike(evicted)).toBe(true);
    expect(await username(evicted)).toBe('a');
    expect(verify).toHaveBeenCalledTimes(4);
    // a took the place of c, the least recently used since.
    expect(auth(b)).toMatchObject({ username: 'b' });
    expect(isPromiseLike(auth(c))).toBe(true);
  });

  it('cache(false) verifies every time', async () => {
    const { auth } = setup({ cache: false });
    const token = await sign(SECRET, claimsAt());
    for (let i = 0; i < 3; i++) {
      const result = auth(token);
      expect(isPromiseLike(result)).toBe(true);
      expect(await username(result)).toBe('alice');
    }
    expect(verify).toHaveBeenCalledTimes(3);
  });

  it('keys entries by the whole token: a changed signature is verified (and refused)', async () => {
    const { auth } = setup();
    const token = await sign(SECRET, claimsAt());
    await auth(token);
    const altered = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.slice(-1)}`;
    expect(await auth(altered)).toBeNull();
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('returns the same user for the same token, from every request', async () => {
    const clock: TestClock = testClock(NOW);
    const jwt = new JwtAuthenticator(new JwtConfig(SECRET).clock(clock));
    const token = await sign(SECRET, claimsAt({ roles: ['ADMIN'] }));
    const first = await jwt.authenticate(requestWith(bearer(token), '/a'));
    const second = jwt.authenticate(requestWith(bearer(token), '/b'));
    expect(second).toBe(first);
    expect(first?.hasRole('ADMIN')).toBe(true);
  });
});

describe('VerifiedTokenCache eviction order', () => {
  const FAR = Number.MAX_SAFE_INTEGER;
  const filled = (max: number, keys: readonly string[]) => {
    const cache = new VerifiedTokenCache<string>(max, FAR / 1000);
    for (const key of keys) cache.set(key, key, FAR / 1000, 0);
    return cache;
  };

  it('a hit on the oldest entry moves it to the newest end: the next new entry evicts another', () => {
    const cache = filled(4, ['a', 'b', 'c', 'd']);
    expect(cache.get('a', 1)).toBe('a');
    cache.set('e', 'e', FAR / 1000, 1);
    expect(cache.get('a', 1)).toBe('a');
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.size).toBe(4);
  });

  it('an entry read survives at least half the capacity of new entries, whatever was read before', () => {
    // Every order of reads and writes over a small key space: after a read, the entry
    // is still there after max/2 new keys (it would be evicted at once if a hit never
    // counted, as in a first-in first-out cache).
    for (const max of [2, 3, 4, 7, 8]) {
      for (let seed = 1; seed <= 200; seed++) {
        let state = seed;
        const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
        const cache = filled(max, []);
        let fresh = 0;
        for (let step = 0; step < 40; step++) {
          const key = `k${String(Math.floor(random() * max * 2))}`;
          if (random() < 0.5) cache.set(key, key, FAR / 1000, 0);
          else cache.get(key, 0);
        }
        const held = [...Array(max * 2).keys()].map((i) => `k${String(i)}`);
        const read = held.find((key) => cache.get(key, 0) !== undefined);
        if (read === undefined) continue;
        for (let i = 0; i < Math.floor(max / 2); i++) {
          cache.set(`new${String(fresh++)}`, 'x', FAR / 1000, 0);
        }
        expect(cache.get(read, 0), `max ${String(max)}, seed ${String(seed)}`).toBe(read);
      }
    }
  });

  it('an expired entry is dropped when read', () => {
    const cache = new VerifiedTokenCache<string>(4, 60);
    cache.set('a', 'a', 10, 0);
    expect(cache.get('a', 9_999)).toBe('a');
    expect(cache.get('a', 10_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
