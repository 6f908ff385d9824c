import { afterEach, describe, expect, it, vi } from 'vitest';
import { CredentialKeyer } from '../../src/authentication/credential-key.js';
import {
  CredentialVerifier,
  type CachedCredential,
} from '../../src/authentication/credential-verifier.js';
import { RepositoryCalls } from '../../src/authentication/repository-calls.js';
import {
  MemoryAuthenticator,
  type CredentialCacheOptions,
} from '../../src/authentication/index.js';
import { User } from '../../src/core/index.js';
import { Semaphore } from '../../src/lib/semaphore.js';
import { TtlCache } from '../../src/lib/ttl-cache.js';
import { MemoryUserRepository } from '../../src/users/index.js';
import { basic, flush, gate, requestWith, TestEncoder } from './helpers.js';

function setup(cache?: CredentialCacheOptions | false, maxConcurrentVerifications = 2) {
  const encoder = new TestEncoder();
  const alice = new User('alice', encoder.hash('wonderland'));
  const bob = new User('bob', encoder.hash('builder'));
  const auth = new MemoryAuthenticator({
    passwordEncoder: encoder,
    users: [alice, bob],
    maxConcurrentVerifications,
    ...(cache === undefined ? {} : { cache }),
  });
  const login = (username: string, password: string) =>
    auth.getUser(requestWith(basic(username, password)));
  return { encoder, auth, alice, bob, login };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('verified-credential cache', () => {
  it('verifies repeated identical credentials once', async () => {
    const { encoder, login, alice } = setup();
    for (let i = 0; i < 5; i++) expect(await login('alice', 'wonderland')).toBe(alice);
    expect(encoder.matchesCalls).toBe(1);
  });

  it('does not authenticate a wrong password after the right one was cached', async () => {
    const { encoder, login, alice } = setup();
    expect(await login('alice', 'wonderland')).toBe(alice);
    expect(await login('alice', 'wonderland ')).toBeNull();
    expect(await login('alice', 'Wonderland')).toBeNull();
    expect(await login('alice', '')).toBeNull();
    expect(encoder.matchesCalls).toBe(4);
  });

  it('does not give one user the cached success of another', async () => {
    const encoder = new TestEncoder();
    const same = encoder.hash('shared');
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('alice', same), new User('alicex', encoder.hash('other'))],
    });
    expect(await auth.getUser(requestWith(basic('alice', 'shared')))).not.toBeNull();
    // Same concatenation "alice" + "xshared"… must not collide with ("alice", "shared").
    expect(await auth.getUser(requestWith(basic('alicex', 'shared')))).toBeNull();
  });

  it('never caches failures', async () => {
    const { encoder, login } = setup();
    for (let i = 0; i < 3; i++) expect(await login('alice', 'nope')).toBeNull();
    for (let i = 0; i < 3; i++) expect(await login('nobody', 'nope')).toBeNull();
    expect(encoder.matchesCalls).toBe(6);
  });

  it('is off with cache: false', async () => {
    const { encoder, login } = setup(false);
    for (let i = 0; i < 3; i++) expect(await login('alice', 'wonderland')).not.toBeNull();
    expect(encoder.matchesCalls).toBe(3);
  });

  it('expires entries after ttlMs (fake timers)', async () => {
    vi.useFakeTimers();
    const { encoder, login } = setup({ ttlMs: 60_000 });
    await login('alice', 'wonderland');
    vi.advanceTimersByTime(59_999);
    await login('alice', 'wonderland');
    expect(encoder.matchesCalls).toBe(1);
    vi.advanceTimersByTime(1);
    await login('alice', 'wonderland');
    expect(encoder.matchesCalls).toBe(2);
  });

  it('expires entries by 60 seconds by default, on an injected clock', async () => {
    let now = 1_000;
    const { encoder, login } = setup({ now: () => now });
    await login('alice', 'wonderland');
    now += 59_000;
    await login('alice', 'wonderland');
    expect(encoder.matchesCalls).toBe(1);
    now += 1_000;
    await login('alice', 'wonderland');
    expect(encoder.matchesCalls).toBe(2);
  });

  it('does not extend an entry’s life by using it', async () => {
    let now = 0;
    const { encoder, login } = setup({ ttlMs: 1_000, now: () => now });
    await login('alice', 'wonderland');
    for (let i = 0; i < 4; i++) {
      now += 300;
      await login('alice', 'wonderland');
    }
    expect(encoder.matchesCalls).toBe(2);
  });

  it('evicts the least recently used entry beyond maxEntries', async () => {
    const { encoder, login } = setup({ maxEntries: 1 });
    await login('alice', 'wonderland');
    await login('bob', 'builder');
    await login('alice', 'wonderland');
    expect(encoder.matchesCalls).toBe(3);
  });

  it('answers from the cache without waiting for a verification slot', async () => {
    const { encoder, login, alice } = setup(undefined, 1);
    await login('alice', 'wonderland');
    const held = gate();
    encoder.hold = held.promise;
    const slow = login('bob', 'builder');
    await flush();
    expect(encoder.matchesCalls).toBe(2);
    expect(await login('alice', 'wonderland')).toBe(alice);
    held.open();
    expect((await slow)?.username).toBe('bob');
  });

  it('forgets a user’s cached credentials when the user’s change is announced', async () => {
    const encoder = new TestEncoder();
    const users = new MemoryUserRepository([new User('alice', encoder.hash('old-password'))]);
    const verifier = new CredentialVerifier({
      encoder,
      users: new RepositoryCalls(users, 1_000),
      cache: new TtlCache<string, CachedCredential>({ maxEntries: 10, ttlMs: 60_000 }),
      semaphore: new Semaphore(1, 10),
      onPasswordUpgrade: undefined,
      announce: () => undefined,
    });
    expect(await verifier.verify('alice', 'old-password')).toMatchObject({ ok: true });
    expect(await verifier.verify('alice', 'old-password')).toMatchObject({ ok: true });
    expect(encoder.matchesCalls).toBe(1);
    users.changePassword('alice', encoder.hash('new-password'));
    // Not announced yet: the cache answers (bounded by its TTL), without asking the repository.
    expect(verifier.verify('alice', 'old-password')).toMatchObject({ ok: true });
    verifier.forget('alice');
    expect(await verifier.verify('alice', 'old-password')).toEqual({
      ok: false,
      reason: 'bad-credentials',
    });
    expect(await verifier.verify('alice', 'new-password')).toMatchObject({ ok: true });
    expect(encoder.matchesCalls).toBe(3);
  });
});

describe('CredentialKeyer', () => {
  const keyer = new CredentialKeyer();

  it('gives a base64 HMAC-SHA256 that contains no part of its input', () => {
    const key = keyer.key('alice', 'wonderland', '{test}hash');
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(key).not.toContain('wonderland');
    expect(keyer.key('alice', 'wonderland', '{test}hash')).toBe(key);
  });

  it('frames its parts unambiguously', () => {
    const keys = new Set([
      keyer.key('ab', 'c', 'h'),
      keyer.key('a', 'bc', 'h'),
      keyer.key('a', 'b', 'ch'),
      keyer.key('', 'abc', 'h'),
      keyer.key('abc', '', 'h'),
    ]);
    expect(keys.size).toBe(5);
  });

  it('tells apart strings that UTF-8 would merge (lone surrogates)', () => {
    expect(keyer.key('a', 'x\ud800', 'h')).not.toBe(keyer.key('a', 'x\udc00', 'h'));
    expect(keyer.key('a', 'x\ud800', 'h')).not.toBe(keyer.key('a', 'x\ufffd', 'h'));
  });

  it('uses a random key per instance', () => {
    expect(new CredentialKeyer().key('a', 'b', 'c')).not.toBe(keyer.key('a', 'b', 'c'));
  });
});
