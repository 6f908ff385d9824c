import { beforeEach, describe, expect, it } from 'vitest';
import { TooManyRequestsError, retryLaterStatus } from '../../src/core/errors.js';
import type { SecurityRequest, ThrottledEvent } from '../../src/index.js';
import {
  LoginThrottle,
  type LoginAttemptResult,
  type LoginThrottleOptions,
} from '../../src/throttle/index.js';
import { testClock } from '../support/clock.js';
import { recordEvents } from '../support/events.js';
import { requestFrom } from './request.js';
import { RecordingStore } from './stores.js';

const MINUTE = 60_000;
const ATTACKER = '198.51.100.66';
const clock = testClock();

function setup(options: LoginThrottleOptions = {}) {
  const store = new RecordingStore();
  const { events, received } = recordEvents();
  const throttle = new LoginThrottle({ store, events, clock: clock.now, ...options });
  /** One credential check settled as `result`; answers the refusal, or undefined when admitted. */
  const attempt = async (
    username: string | undefined,
    request: SecurityRequest | undefined = requestFrom(ATTACKER),
    result: LoginAttemptResult = 'failed',
  ): Promise<unknown> => {
    try {
      const admitted = await throttle.admit(username, request);
      await admitted.settle(result);
      return undefined;
    } catch (error) {
      return error;
    }
  };
  const keyOf = (prefix: 'login:u:' | 'login:a:') => {
    const key = store.keys.find((k) => k.startsWith(prefix));
    if (key === undefined) throw new Error(`no ${prefix} key was used`);
    return key;
  };
  const count = (key: string) => store.inner.peek(key, clock.now())?.count ?? 0;
  return { throttle, store, received, attempt, keyOf, count };
}

function refusal(error: unknown, scope: string, retryAfter: number): void {
  expect(error).toBeInstanceOf(TooManyRequestsError);
  const refused = error as TooManyRequestsError;
  expect(refused.code).toBe('ERR_TOO_MANY_REQUESTS');
  expect(refused.limiter).toBe('login');
  expect(refused.scope).toBe(scope);
  expect(refused.retryAfter).toBe(retryAfter);
  expect(retryLaterStatus(refused)).toBe(429);
}

beforeEach(() => {
  clock.set(Date.UTC(2030, 0, 1, 12));
});

describe('LoginThrottle by username', () => {
  it('admits 5 failures, then refuses the 6th for a minute without counting it', async () => {
    const { throttle, attempt, keyOf, count } = setup();
    for (let i = 0; i < 5; i++) expect(await attempt('alice')).toBeUndefined();
    refusal(await attempt('alice'), 'username', 60);
    refusal(await attempt('alice'), 'username', 60);
    expect(count(keyOf('login:u:'))).toBe(5);
    // Synchronous on the memory store: no promise per check.
    expect(throttle.admit('bob', requestFrom(ATTACKER))).not.toBeInstanceOf(Promise);
  });

  it('refuses the attacker from any address, and until the last millisecond of the delay', async () => {
    const { attempt } = setup();
    for (let i = 0; i < 5; i++) await attempt('alice', requestFrom(`203.0.113.${i + 1}`));
    refusal(await attempt('alice', requestFrom('192.0.2.200')), 'username', 60);
    clock.advance(MINUTE - 1);
    refusal(await attempt('alice', requestFrom('192.0.2.201')), 'username', 1);
    clock.advance(1);
    expect(await attempt('alice', requestFrom('192.0.2.202'))).toBeUndefined();
  });

  it('doubles the delay with each attempt let through after one, up to maxDelay', async () => {
    const { attempt } = setup();
    for (let i = 0; i < 5; i++) await attempt('alice');
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      const refused = (await attempt('alice')) as TooManyRequestsError;
      refusal(refused, 'username', refused.retryAfter);
      delays.push(refused.retryAfter);
      clock.advance(refused.retryAfter * 1_000);
      expect(await attempt('alice')).toBeUndefined();
    }
    expect(delays).toEqual([60, 120, 240, 480, 900, 900, 900]);
  });

  it('counts failures in a window: older ones are forgotten', async () => {
    const { attempt } = setup();
    for (let i = 0; i < 4; i++) await attempt('alice');
    clock.advance(15 * MINUTE);
    for (let i = 0; i < 5; i++) expect(await attempt('alice')).toBeUndefined();
    refusal(await attempt('alice'), 'username', 60);
  });

  it('folds case and Unicode compatibility forms into one counter', async () => {
    const { attempt } = setup();
    for (const name of ['Alice', 'ALICE', 'alice', 'Ａｌｉｃｅ', 'ａｌｉｃｅ']) {
      expect(await attempt(name)).toBeUndefined();
    }
    refusal(await attempt('aLiCe'), 'username', 60);
    expect(await attempt('bob')).toBeUndefined();
  });

  it('never puts the username in a store key', async () => {
    const { attempt, store } = setup();
    const names = ['victim.user@example.com', 'Ａｌｉｃｅ', 'x'.repeat(10_000)];
    for (const name of names) await attempt(name);
    const usernameKeys = store.keys.filter((key) => key.startsWith('login:u:'));
    expect(new Set(usernameKeys).size).toBe(3);
    for (const key of usernameKeys) {
      expect(key.length).toBeLessThan(40);
      expect(key.toLowerCase()).not.toMatch(/victim|alice|xxxx/u);
    }
    expect(store.keys).toContain(`login:a:${ATTACKER}`);
  });
});

describe('LoginThrottle on an asynchronous store', () => {
  it('admits exactly 5 of a concurrent burst of 200 guesses', async () => {
    const { store, attempt, keyOf, count, throttle } = setup();
    store.mode = 'async';
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => attempt('alice', requestFrom(`192.0.2.${i}`))),
    );
    expect(results.filter((result) => result === undefined)).toHaveLength(5);
    for (const refused of results.filter((result) => result !== undefined)) {
      refusal(refused, 'username', 60);
    }
    expect(count(keyOf('login:u:'))).toBe(5);
    const check = throttle.verified('alice', requestFrom(ATTACKER));
    expect(check).toBeInstanceOf(Promise);
    await expect(check).rejects.toBeInstanceOf(TooManyRequestsError);
  });
});

describe('LoginThrottle settling an attempt', () => {
  it('forgets the username counter on a match and takes the attempt back from the address', async () => {
    const { attempt, keyOf, count } = setup();
    for (let i = 0; i < 4; i++) await attempt('alice');
    expect(await attempt('alice', undefined, 'matched')).toBeUndefined();
    expect(count(keyOf('login:u:'))).toBe(0);
    expect(count(keyOf('login:a:'))).toBe(4);
    for (let i = 0; i < 5; i++) expect(await attempt('alice')).toBeUndefined();
    refusal(await attempt('alice'), 'username', 60);
  });

  it('lifts the block when the attempt that started it matched', async () => {
    const { attempt } = setup();
    for (let i = 0; i < 4; i++) await attempt('alice');
    await attempt('alice', undefined, 'matched');
    expect(await attempt('alice')).toBeUndefined();
  });

  it('keeps a failure counted, and takes back an unchecked attempt from both counters', async () => {
    const { attempt, keyOf, count } = setup();
    for (let i = 0; i < 2; i++) await attempt('alice');
    for (let i = 0; i < 10; i++)
      expect(await attempt('alice', undefined, 'unchecked')).toBeUndefined();
    expect(count(keyOf('login:u:'))).toBe(2);
    expect(count(keyOf('login:a:'))).toBe(2);
  });

  it('settles once: a second settle takes nothing more back', async () => {
    const { throttle, keyOf, count } = setup();
    for (let i = 0; i < 3; i++)
      await (await throttle.admit('alice', requestFrom(ATTACKER))).settle('failed');
    const attempt = await throttle.admit('alice', requestFrom(ATTACKER));
    await attempt.settle('unchecked');
    await attempt.settle('unchecked');
    await attempt.settle('matched');
    expect(count(keyOf('login:u:'))).toBe(3);
    expect(count(keyOf('login:a:'))).toBe(3);
  });
});

describe('LoginThrottle.verified (a credential known to be right)', () => {
  it('refuses while the username is blocked, and neither counts nor resets anything', async () => {
    const { throttle, attempt, keyOf, count } = setup();
    for (let i = 0; i < 5; i++) await attempt('alice');
    let error: unknown;
    try {
      await throttle.verified('ALICE', requestFrom(ATTACKER));
    } catch (thrown) {
      error = thrown;
    }
    refusal(error, 'username', 60);
    clock.advance(MINUTE);
    await throttle.verified('alice', requestFrom(ATTACKER));
    // A cached right password does not wipe a guesser's count: only a check made anew does.
    expect(count(keyOf('login:u:'))).toBe(5);
    expect(count(keyOf('login:a:'))).toBe(5);
    await throttle.verified('alice', requestFrom(ATTACKER));
    expect(count(keyOf('login:u:'))).toBe(5);
    expect(count(keyOf('login:a:'))).toBe(5);
  });

  it('refuses while the address is blocked', async () => {
    const { throttle, attempt } = setup({ address: { max: 3 } });
    for (const name of ['a', 'b', 'c']) await attempt(name);
    let error: unknown;
    try {
      await throttle.verified('alice', requestFrom(ATTACKER));
    } catch (thrown) {
      error = thrown;
    }
    refusal(error, 'address', 60);
  });
});

describe('LoginThrottle by address', () => {
  it('refuses the 101st failure from one address across many usernames', async () => {
    const { attempt } = setup();
    for (let i = 0; i < 100; i++) expect(await attempt(`user${i}`)).toBeUndefined();
    refusal(await attempt('someone-new'), 'address', 60);
    expect(await attempt('someone-new', requestFrom('192.0.2.1'))).toBeUndefined();
  });

  it('counts a check without a username (a refresh) on the address alone', async () => {
    const { attempt, store } = setup({ address: { max: 2 } });
    await attempt(undefined);
    await attempt(undefined);
    refusal(await attempt(undefined), 'address', 60);
    refusal(await attempt('alice'), 'address', 60);
    expect(store.keys.filter((key) => key.startsWith('login:u:'))).toHaveLength(0);
  });

  it('counts an IPv6 attacker rotating through one /64 as one address', async () => {
    const { attempt } = setup({ address: { max: 3 } });
    const rotated = [
      '2001:db8:7:7::1',
      '2001:db8:7:7:dead:beef:0:1',
      '2001:db8:7:7:ffff:ffff:ffff:ffff',
    ];
    for (const [i, address] of rotated.entries()) {
      expect(await attempt(`user${i}`, requestFrom(address))).toBeUndefined();
    }
    refusal(await attempt('u4', requestFrom('2001:db8:7:7::abcd')), 'address', 60);
    expect(await attempt('u4', requestFrom('2001:db8:7:8::1'))).toBeUndefined();
  });

  it('counts the forwarded address behind a trusted proxy, not the proxy', async () => {
    const { attempt } = setup({ address: { max: 2 }, trustedProxies: 1 });
    const behind = (client: string) => requestFrom('10.0.0.2', { 'x-forwarded-for': client });
    await attempt('a', behind(ATTACKER));
    await attempt('b', behind(ATTACKER));
    refusal(await attempt('c', behind(ATTACKER)), 'address', 60);
    expect(await attempt('c', behind('192.0.2.1'))).toBeUndefined();
  });

  it('counts by username alone without an address, and turns counters off with false', async () => {
    const none = setup();
    for (let i = 0; i < 5; i++) await none.attempt('alice', undefined);
    refusal(await none.attempt('alice', requestFrom(undefined)), 'username', 60);

    const addressOnly = setup({ username: false, address: { max: 2 } });
    await addressOnly.attempt('alice');
    await addressOnly.attempt('alice');
    refusal(await addressOnly.attempt('bob'), 'address', 60);
    expect(addressOnly.store.keys.some((key) => key.startsWith('login:u:'))).toBe(false);

    const usernameOnly = setup({ address: false, username: { max: 2 } });
    await usernameOnly.attempt('alice');
    await usernameOnly.attempt('alice');
    refusal(await usernameOnly.attempt('alice', requestFrom('192.0.2.9')), 'username', 60);
    expect(usernameOnly.store.keys.some((key) => key.startsWith('login:a:'))).toBe(false);

    const off = setup({ address: false, username: false });
    for (let i = 0; i < 20; i++) expect(await off.attempt('alice')).toBeUndefined();
    expect(off.store.keys).toEqual([]);
  });
});

describe('LoginThrottle events', () => {
  it('publishes throttled with the limiter, scope, username, delay and resolved address, never a password', async () => {
    const { attempt, received } = setup({ trustedProxies: 1 });
    const password = 'correct horse battery staple';
    const basic = Buffer.from(`alice:${password}`).toString('base64');
    const request = requestFrom('10.0.0.2', {
      'x-forwarded-for': ATTACKER,
      authorization: `Basic ${basic}`,
      cookie: `pw=${password}`,
    });
    for (let i = 0; i < 5; i++) await attempt('alice', request);
    expect(received).toEqual([]);
    await attempt('alice', request);
    expect(received).toHaveLength(1);
    const event = received[0] as ThrottledEvent;
    expect(event).toMatchObject({
      type: 'throttled',
      limiter: 'login',
      scope: 'username',
      username: 'alice',
      retryAfter: 60,
      request: { method: 'POST', path: '/login', clientAddress: ATTACKER },
    });
    const text = JSON.stringify(received);
    expect(text).not.toContain(password);
    expect(text).not.toContain(basic);
  });
});

describe('LoginThrottle.guard', () => {
  it('counts a failed check, takes back a matched one, and refuses before the check once throttled', async () => {
    const { throttle, keyOf, count } = setup();
    const request = requestFrom(ATTACKER);
    let checks = 0;
    const check = (right: boolean) => () => {
      checks++;
      return Promise.resolve(right);
    };
    const resultOf = (right: boolean): LoginAttemptResult => (right ? 'matched' : 'failed');
    expect(await throttle.guard('alice', request, check(false), resultOf)).toBe(false);
    expect(count(keyOf('login:u:'))).toBe(1);
    expect(await throttle.guard('alice', request, check(true), resultOf)).toBe(true);
    expect(count(keyOf('login:u:'))).toBe(0); // a right password forgets the username's count
    for (let i = 0; i < 5; i++) await throttle.guard('alice', request, check(false), resultOf);
    const before = checks;
    const refused = await throttle
      .guard('alice', request, check(true), resultOf)
      .catch((error: unknown) => error);
    refusal(refused, 'username', 60);
    expect(checks).toBe(before); // never ran
  });

  it('settles a check that throws as unchecked (taken back) and rethrows its error', async () => {
    const { throttle, keyOf, count } = setup();
    const broken = new Error('repository down');
    const thrown = await throttle
      .guard(
        'alice',
        requestFrom(ATTACKER),
        () => Promise.reject(broken),
        () => 'failed',
      )
      .catch((error: unknown) => error);
    expect(thrown).toBe(broken);
    expect(count(keyOf('login:u:'))).toBe(0);
    expect(count(keyOf('login:a:'))).toBe(0);
  });
});
