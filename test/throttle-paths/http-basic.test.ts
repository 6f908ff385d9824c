/**
 * HTTP Basic over real HTTP (node adapter) and through the Fetch adapter: the login
 * throttle refuses guesses before any hashing. Each test is an attack that got
 * through before logins were throttled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LoginThrottleOptions } from '../../src/throttle/index.js';
import { ADAPTERS, nodeHarness, type Harness } from './basic-harness.js';
import { ALICE_PASSWORD, MINUTE, throttledScopes } from './support.js';

describe.each(['node', 'fetch'] as const)('HTTP Basic guessing (%s)', (kind) => {
  let harness: Harness | undefined;
  const open = async (options?: LoginThrottleOptions): Promise<Harness> => {
    harness = await ADAPTERS[kind](options);
    return harness;
  };
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('N+1 wrong passwords: the last is 429 with Retry-After before any hashing; the right password is refused too, then accepted after the delay', async () => {
    const { site, send } = await open();
    for (let i = 0; i < 5; i++) {
      expect((await send('alice', `guess-${i}`)).status).toBe(401);
    }
    expect(site.encoder.matchesCalls).toBe(5);
    const refused = await send('alice', 'guess-5');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('60');
    expect(refused.body).not.toContain('alice');
    // Not hashed, not even looked up.
    expect(site.encoder.matchesCalls).toBe(5);
    expect(site.lookups()).toBe(5);
    expect(throttledScopes(site.received)).toEqual(['username']);

    // No oracle: the right password meets the same 429, unchecked.
    expect((await send('alice', ALICE_PASSWORD)).status).toBe(429);
    expect(site.encoder.matchesCalls).toBe(5);

    site.clock.advance(MINUTE);
    expect((await send('alice', ALICE_PASSWORD)).status).toBe(200);
    expect(site.encoder.matchesCalls).toBe(6);
  });

  it('a success forgets the username counter: five fresh failures before the next 429, whose delay starts over', async () => {
    const { site, send } = await open();
    for (let i = 0; i < 4; i++) await send('alice', `guess-${i}`);
    expect((await send('alice', ALICE_PASSWORD)).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      expect((await send('alice', `again-${i}`)).status).toBe(401);
    }
    const refused = await send('alice', 'again-5');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('60');
    expect(site.encoder.matchesCalls).toBe(10);
  });

  it('the delays grow: one guess let through after the first delay is followed by a doubled one', async () => {
    const { site, send } = await open();
    for (let i = 0; i < 5; i++) await send('alice', `guess-${i}`);
    site.clock.advance(MINUTE);
    expect((await send('alice', 'guess-5')).status).toBe(401);
    const refused = await send('alice', 'guess-6');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('120');
    expect(site.encoder.matchesCalls).toBe(6);
  });

  it('one address guessing many usernames is slowed by the address counter', async () => {
    const { site, send } = await open();
    const attacker = '198.51.100.7';
    for (let i = 0; i < 100; i++) {
      expect((await send(`user-${i}`, 'Password1', attacker)).status).toBe(401);
    }
    const refused = await send('user-100', 'Password1', attacker);
    expect(refused.status).toBe(429);
    expect(site.encoder.matchesCalls).toBe(100);
    expect(throttledScopes(site.received)).toEqual(['address']);
    // Even alice's right password, from that address.
    expect((await send('alice', ALICE_PASSWORD, attacker)).status).toBe(429);
    // Alice from her own address is not held up.
    expect((await send('alice', ALICE_PASSWORD, '203.0.113.50')).status).toBe(200);
  });

  it('many addresses guessing one username are slowed by the username counter', async () => {
    const { site, send } = await open();
    for (let i = 1; i <= 5; i++) {
      expect((await send('alice', `guess-${i}`, `198.51.100.${i}`)).status).toBe(401);
    }
    const refused = await send('alice', 'guess-6', '198.51.100.6');
    expect(refused.status).toBe(429);
    expect(throttledScopes(site.received)).toEqual(['username']);
    // Case and compatibility forms share the counter.
    expect((await send('ALICE', 'guess-7', '198.51.100.7')).status).toBe(429);
    expect(site.encoder.matchesCalls).toBe(5);
    // Temporary: after the delay the owner gets in.
    site.clock.advance(MINUTE);
    expect((await send('alice', ALICE_PASSWORD, '203.0.113.50')).status).toBe(200);
  });

  it('an IPv6 attacker rotating through one /64 is counted as one address', async () => {
    const { site, send } = await open({ username: false, address: { max: 3 } });
    for (let i = 1; i <= 3; i++) {
      expect((await send(`user-${i}`, 'x', `2001:db8:abcd:12::${i.toString(16)}`)).status).toBe(
        401,
      );
    }
    expect((await send('user-4', 'x', '2001:db8:abcd:12:ffff:1:2:3')).status).toBe(429);
    expect(throttledScopes(site.received)).toEqual(['address']);
    // The next /64 is another client.
    expect((await send('user-5', 'x', '2001:db8:abcd:13::1')).status).toBe(401);
  });
});

describe('HTTP Basic: the client address behind proxies (node)', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('a forged X-Forwarded-For is ignored without trustedProxies: every guess counts against the socket address', async () => {
    harness = await nodeHarness({ username: false, address: { max: 3 } });
    const { send, site } = harness;
    for (let i = 1; i <= 3; i++) {
      expect((await send(`user-${i}`, 'x', `10.0.0.${i}`)).status).toBe(401);
    }
    expect((await send('user-4', 'x', '10.0.0.4')).status).toBe(429);
    expect(site.received).toContainEqual(
      expect.objectContaining({
        type: 'throttled',
        scope: 'address',
        request: expect.objectContaining({ clientAddress: '127.0.0.1' }) as unknown,
      }),
    );
  });

  it('X-Forwarded-For is honoured with trustedProxies: each forwarded client has its own counter', async () => {
    harness = await nodeHarness({
      username: false,
      address: { max: 3 },
      trustedProxies: ['127.0.0.1'],
    });
    const { send } = harness;
    for (let i = 1; i <= 10; i++) {
      expect((await send(`user-${i}`, 'x', `10.0.0.${i}`)).status).toBe(401);
    }
    // And the forwarded address is what is counted.
    for (let i = 0; i < 2; i++) expect((await send('user-x', 'x', '10.0.0.1')).status).toBe(401);
    expect((await send('user-y', 'x', '10.0.0.1')).status).toBe(429);
  });

  it('a concurrent burst of 200 guesses at one username: exactly 5 checked, 195 refused with 429', async () => {
    harness = await nodeHarness();
    const { send, site } = harness;
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => send('alice', `burst-${i}`)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(195);
    expect(site.encoder.matchesCalls).toBe(5);
    expect(site.lookups()).toBe(5);
  });
});
