import { beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  TooManyRequestsError,
  UnavailableError,
  retryLaterStatus,
} from '../../src/core/errors.js';
import { AuthenticatedUser, User, type SecurityRequest } from '../../src/index.js';
import { MemoryThrottleStore } from '../../src/stores/index.js';
import {
  rateLimit,
  type RateLimit,
  type RateLimitOptions,
  type RateLimitSubject,
} from '../../src/throttle/index.js';
import { testClock } from '../support/clock.js';
import { recordEvents } from '../support/events.js';
import { requestFrom } from './request.js';
import { RecordingStore } from './stores.js';

const ATTACKER = '198.51.100.66';
const clock = testClock();
const alice = AuthenticatedUser.from(new User('alice', 'unused'));
const bob = AuthenticatedUser.from(new User('bob', 'unused'));

function limit(options: Partial<RateLimitOptions> = {}) {
  const store = new RecordingStore();
  const { events, received } = recordEvents();
  const limiter = rateLimit({ window: '1m', max: 3, store, events, clock: clock.now, ...options });
  return { limiter, store, received };
}

async function consume(limiter: RateLimit, subject: RateLimitSubject): Promise<unknown> {
  try {
    return await limiter.consume(subject);
  } catch (error) {
    return error;
  }
}

const from = (address: string | undefined, user: AuthenticatedUser | null = null) => ({
  request: requestFrom(address, {}, '/api/search'),
  user,
});

beforeEach(() => {
  clock.set(Date.UTC(2030, 0, 1, 12));
});

describe('rateLimit', () => {
  it('lets max requests through per window, then refuses with Retry-After to the window’s end', async () => {
    const { limiter } = limit({ name: 'search' });
    expect(limiter.consume(from(ATTACKER))).toEqual({ limit: 3, remaining: 2, resetAfter: 60 });
    clock.advance(5_000);
    expect(limiter.consume(from(ATTACKER))).toEqual({ limit: 3, remaining: 1, resetAfter: 55 });
    expect(limiter.consume(from(ATTACKER))).toEqual({ limit: 3, remaining: 0, resetAfter: 55 });
    clock.advance(15_000);
    const refused = (await consume(limiter, from(ATTACKER))) as TooManyRequestsError;
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(refused.code).toBe('ERR_TOO_MANY_REQUESTS');
    expect(refused.limiter).toBe('search');
    expect(refused.scope).toBe('address');
    expect(refused.retryAfter).toBe(40);
    expect(retryLaterStatus(refused)).toBe(429);
    clock.advance(39_999);
    expect(await consume(limiter, from(ATTACKER))).toBeInstanceOf(TooManyRequestsError);
    clock.advance(1);
    expect(limiter.consume(from(ATTACKER))).toEqual({ limit: 3, remaining: 2, resetAfter: 60 });
  });

  it('counts by user, and an anonymous request by its address', async () => {
    const { limiter } = limit();
    for (let i = 0; i < 3; i++) await limiter.consume(from(`192.0.2.${i}`, alice));
    const refused = (await consume(limiter, from('192.0.2.99', alice))) as TooManyRequestsError;
    expect(refused.scope).toBe('user');
    expect(await consume(limiter, from(ATTACKER, bob))).toMatchObject({ remaining: 2 });
    // Anonymous requests from alice's last address are not alice's.
    expect(await consume(limiter, from('192.0.2.2'))).toMatchObject({ remaining: 2 });
    for (let i = 0; i < 3; i++) await limiter.consume(from(ATTACKER));
    expect(await consume(limiter, from(ATTACKER))).toMatchObject({ scope: 'address' });
    // A user without a request (a tRPC server-side caller) is still counted.
    expect(await consume(limiter, { user: alice })).toBeInstanceOf(TooManyRequestsError);
    expect(limiter.consume({ user: null })).toBeUndefined();
  });

  it('counts every user of one address together by address', async () => {
    const { limiter } = limit({ by: 'address' });
    await limiter.consume(from(ATTACKER, alice));
    await limiter.consume(from(ATTACKER, bob));
    await limiter.consume(from(ATTACKER));
    expect(await consume(limiter, from(ATTACKER, alice))).toMatchObject({
      scope: 'address',
    });
    expect(limiter.consume(from(undefined, alice))).toBeUndefined();
  });

  it('counts an IPv6 client rotating through its /64 as one', async () => {
    const { limiter } = limit({ by: 'address' });
    for (const address of ['2001:db8:5:5::1', '2001:db8:5:5::2', '2001:db8:5:5:ffff::1']) {
      expect(limiter.consume(from(address))).toBeDefined();
    }
    expect(await consume(limiter, from('2001:db8:5:5:1:2:3:4'))).toBeInstanceOf(
      TooManyRequestsError,
    );
    expect(limiter.consume(from('2001:db8:5:6::1'))).toMatchObject({ remaining: 2 });
  });

  it('counts behind a trusted proxy by the forwarded address, and ignores a forged one without', async () => {
    const proxied = (client: string) => ({
      request: requestFrom('10.0.0.2', { 'x-forwarded-for': client }),
      user: null,
    });
    const trusting = limit({ by: 'address', trustedProxies: 1 }).limiter;
    for (let i = 0; i < 3; i++) await trusting.consume(proxied(ATTACKER));
    expect(await consume(trusting, proxied(ATTACKER))).toBeInstanceOf(TooManyRequestsError);
    expect(trusting.consume(proxied('192.0.2.1'))).toMatchObject({ remaining: 2 });

    const direct = limit({ by: 'address' }).limiter;
    const forging = (i: number) => ({
      request: requestFrom(ATTACKER, { 'x-forwarded-for': `203.0.113.${i}` }),
      user: null,
    });
    for (let i = 0; i < 3; i++) await direct.consume(forging(i));
    expect(await consume(direct, forging(9))).toBeInstanceOf(TooManyRequestsError);
  });

  it('counts by a custom key; no key means not counted; a non-string key is a TypeError', async () => {
    const apiKey = (subject: RateLimitSubject) => subject.request?.header('x-api-key') ?? null;
    const { limiter, store } = limit({ name: 'api', by: apiKey });
    const withKey = (key?: string): { request: SecurityRequest; user: null } => ({
      request: requestFrom(ATTACKER, key === undefined ? {} : { 'x-api-key': key }),
      user: null,
    });
    for (let i = 0; i < 3; i++) await limiter.consume(withKey('k-1'));
    expect(await consume(limiter, withKey('k-1'))).toMatchObject({ scope: 'key', limiter: 'api' });
    expect(limiter.consume(withKey('k-2'))).toMatchObject({ remaining: 2 });
    for (let i = 0; i < 10; i++) expect(limiter.consume(withKey())).toBeUndefined();
    expect(store.keys.some((key) => key.includes('k-1'))).toBe(false);

    const numeric = limit({ by: () => 42 as never }).limiter;
    expect(() => numeric.consume(from(ATTACKER))).toThrow(TypeError);
  });

  it('keeps usernames out of the store keys', async () => {
    const { limiter, store } = limit({ name: 'profile' });
    await limiter.consume(
      from(ATTACKER, AuthenticatedUser.from(new User('victim@example.com', 'x'))),
    );
    expect(store.keys).toHaveLength(1);
    expect(store.keys[0]).toMatch(/^rate:profile:u:/u);
    expect(store.keys[0]).not.toContain('victim');
  });
});

describe('rateLimit names', () => {
  it('names a limit by its options unless named', () => {
    expect(rateLimit({ window: '1m', max: 100 }).name).toBe('rate:60000:100:user');
    expect(rateLimit({ window: 30, max: 5, by: 'address' }).name).toBe('rate:30000:5:address');
    expect(rateLimit({ window: '1h', max: 5, by: () => null }).name).toBe('rate:3600000:5:custom');
    expect(rateLimit({ window: '1m', max: 5, name: 'search.v2-x_1' }).name).toBe('search.v2-x_1');
  });

  it('shares counters between limits of one name on one store, and not between names', async () => {
    const store = new MemoryThrottleStore();
    const options = { window: '1m', max: 2, by: 'address', store, clock: clock.now } as const;
    const first = rateLimit(options);
    const second = rateLimit(options);
    const other = rateLimit({ ...options, name: 'other' });
    await first.consume(from(ATTACKER));
    await second.consume(from(ATTACKER));
    expect(await consume(first, from(ATTACKER))).toBeInstanceOf(TooManyRequestsError);
    expect(other.consume(from(ATTACKER))).toMatchObject({ remaining: 1 });
  });
});

describe('rateLimit events and store failures', () => {
  it('publishes throttled with the limit, scope, user, delay and resolved address', async () => {
    const { limiter, received } = limit({ name: 'search', trustedProxies: 1 });
    const request = requestFrom('10.0.0.2', { 'x-forwarded-for': ATTACKER }, '/api/search');
    for (let i = 0; i < 3; i++) await limiter.consume({ request, user: alice });
    expect(received).toEqual([]);
    await consume(limiter, { request, user: alice });
    expect(received).toEqual([
      {
        type: 'throttled',
        limiter: 'search',
        scope: 'user',
        username: 'alice',
        retryAfter: 60,
        request: { method: 'POST', path: '/api/search', clientAddress: ATTACKER },
      },
    ]);
  });

  it('fails closed by default (503) and lets requests through uncounted with fail-open', async () => {
    for (const mode of ['throw', 'reject', 'hang'] as const) {
      const closed = limit({ storeTimeoutMs: 30 });
      closed.store.mode = mode;
      const error = (await consume(closed.limiter, from(ATTACKER))) as UnavailableError;
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error).not.toBeInstanceOf(TooManyRequestsError);
      expect(retryLaterStatus(error)).toBe(503);
      const failures = (received: readonly { type: string }[]) =>
        received.filter((event) => event.type === 'throttle-store-failure');
      expect(failures(closed.received)).toHaveLength(1);
      expect(failures(closed.received)[0]).toMatchObject({
        policy: 'fail-closed',
        error: mode === 'hang' ? 'ERR_DEADLINE_EXCEEDED' : 'ERR_STORE_UNAVAILABLE',
      });

      const open = limit({ storeTimeoutMs: 30, onStoreFailure: 'fail-open' });
      open.store.mode = mode;
      for (let i = 0; i < 5; i++)
        expect(await consume(open.limiter, from(ATTACKER))).toBeUndefined();
      expect(failures(open.received)).toHaveLength(5);
      expect(failures(open.received)[0]).toMatchObject({
        limiter: 'rate:60000:3:user',
        policy: 'fail-open',
      });
    }
  });

  it('answers through a promise on an asynchronous store', async () => {
    const { limiter, store } = limit();
    store.mode = 'async';
    const answer = limiter.consume(from(ATTACKER));
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).resolves.toMatchObject({ remaining: 2 });
    await limiter.consume(from(ATTACKER));
    await limiter.consume(from(ATTACKER));
    await expect(limiter.consume(from(ATTACKER))).rejects.toBeInstanceOf(TooManyRequestsError);
  });
});

describe('rateLimit options', () => {
  it('refuses bad options by name', () => {
    const bad: [unknown, string][] = [
      [{ window: '1m', max: 0 }, 'max'],
      [{ window: '1m', max: 2.5 }, 'max'],
      [{ window: '1m' }, 'max'],
      [{ max: 5 }, 'window'],
      [{ window: '1 minute', max: 5 }, 'window'],
      [{ window: '1m', max: 5, by: 'ip' }, 'by'],
      [{ window: '1m', max: 5, name: 'a b' }, 'name'],
      [{ window: '1m', max: 5, name: '' }, 'name'],
      [{ window: '1m', max: 5, name: 'x'.repeat(65) }, 'name'],
      [{ window: '1m', max: 5, name: 'a:b' }, 'name'],
      [{ window: '1m', max: 5, windowMs: 60_000 }, 'windowMs'],
      [{ window: '1m', max: 5, onStoreFailure: 'ignore' }, 'onStoreFailure'],
      [null, 'options'],
    ];
    for (const [options, option] of bad) {
      let error: unknown;
      try {
        rateLimit(options as RateLimitOptions);
      } catch (thrown) {
        error = thrown;
      }
      expect(error, JSON.stringify(options)).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).option).toBe(option);
    }
  });
});
