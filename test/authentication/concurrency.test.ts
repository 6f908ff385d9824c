import { describe, expect, it, vi } from 'vitest';
import {
  MemoryAuthenticator,
  type MemoryAuthenticatorOptions,
} from '../../src/authentication/index.js';
import { User, type AuthenticationFailureEvent } from '../../src/core/index.js';
import { basic, flush, gate, recordEvents, requestWith, TestEncoder } from './helpers.js';

function setup(options: MemoryAuthenticatorOptions = {}) {
  const encoder = new TestEncoder();
  const { events, received } = recordEvents();
  const alice = new User('alice', encoder.hash('wonderland'));
  const auth = new MemoryAuthenticator({
    passwordEncoder: encoder,
    users: [alice],
    events,
    ...options,
  });
  const held = gate();
  encoder.hold = held.promise;
  const login = async (username: string, password: string) =>
    auth.getUser(requestWith(basic(username, password)));
  const reasons = () =>
    received
      .filter((e): e is AuthenticationFailureEvent => e.type === 'authentication-failure')
      .map((e) => e.reason);
  return { encoder, alice, login, held, reasons, received };
}

describe('bounded verification concurrency', () => {
  it('runs at most maxConcurrentVerifications (default 2) at once', async () => {
    const { encoder, login, held } = setup();
    const attempts = ['a', 'b', 'c', 'd', 'e'].map((pw) => login('alice', pw));
    await flush();
    expect(encoder.matchesCalls).toBe(2);
    held.open();
    expect(await Promise.all(attempts)).toEqual([null, null, null, null, null]);
    expect(encoder.matchesCalls).toBe(5);
  });

  it('honours a configured maxConcurrentVerifications', async () => {
    const { encoder, login, held } = setup({ maxConcurrentVerifications: 3 });
    const attempts = ['a', 'b', 'c', 'd', 'e'].map((pw) => login('alice', pw));
    await flush();
    expect(encoder.matchesCalls).toBe(3);
    held.open();
    await Promise.all(attempts);
  });

  it('fails at once with too-many-attempts when the queue is full, and does not hang', async () => {
    const { encoder, login, held, reasons } = setup({
      maxConcurrentVerifications: 1,
      maxQueuedVerifications: 2,
    });
    const attempts = ['a', 'b', 'c', 'd', 'wonderland'].map((pw) => login('alice', pw));
    // The last two are refused before any verification finished.
    expect(await attempts[3]).toBeNull();
    expect(await attempts[4]).toBeNull();
    expect(reasons()).toEqual(['too-many-attempts', 'too-many-attempts']);
    expect(encoder.matchesCalls).toBe(1);
    held.open();
    expect(await Promise.all(attempts.slice(0, 3))).toEqual([null, null, null]);
    expect(reasons().filter((r) => r === 'bad-credentials')).toHaveLength(3);
    expect(encoder.matchesCalls).toBe(3);
  });

  it('refuses unknown users too when the queue is full', async () => {
    const { login, held, reasons } = setup({
      maxConcurrentVerifications: 1,
      maxQueuedVerifications: 0,
    });
    const first = login('alice', 'x');
    await flush();
    expect(await login('mallory', 'y')).toBeNull();
    expect(reasons()).toEqual(['too-many-attempts']);
    held.open();
    await first;
  });

  it('serves the queue again once it drained', async () => {
    const { login, held, alice } = setup({
      maxConcurrentVerifications: 1,
      maxQueuedVerifications: 1,
    });
    const first = [login('alice', 'a'), login('alice', 'b'), login('alice', 'c')];
    held.open();
    await Promise.all(first);
    expect(await login('alice', 'wonderland')).toBe(alice);
  });

  it('releases its slot when the encoder throws', async () => {
    const { encoder, login, alice } = setup({
      maxConcurrentVerifications: 1,
      maxQueuedVerifications: 0,
    });
    encoder.hold = undefined;
    const original = encoder.matches.bind(encoder);
    encoder.matches = () => Promise.reject(new Error('transient'));
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      expect(await login('alice', 'wonderland')).toBeNull();
      encoder.matches = original;
      expect(await login('alice', 'wonderland')).toBe(alice);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('single flight', () => {
  it('shares one verification among identical concurrent requests', async () => {
    const { encoder, login, held, alice, received } = setup();
    const attempts = [1, 2, 3, 4].map(() => login('alice', 'wonderland'));
    await flush();
    held.open();
    expect(await Promise.all(attempts)).toEqual([alice, alice, alice, alice]);
    expect(encoder.matchesCalls).toBe(1);
    expect(received.filter((e) => e.type === 'authentication-success')).toHaveLength(4);
  });

  it('shares identical wrong attempts, but never a right one with a wrong one', async () => {
    const { encoder, login, held, alice } = setup();
    const attempts = [
      login('alice', 'wonderland'),
      login('alice', 'wrong'),
      login('alice', 'wrong'),
      login('alice', 'wonderland'),
    ];
    await flush();
    held.open();
    expect(await Promise.all(attempts)).toEqual([alice, null, null, alice]);
    expect(encoder.matchesCalls).toBe(2);
  });

  it('does not hold followers in the queue: they need no slot', async () => {
    const { encoder, login, held, reasons } = setup({
      maxConcurrentVerifications: 1,
      maxQueuedVerifications: 0,
    });
    const attempts = [1, 2, 3].map(() => login('alice', 'wonderland'));
    await flush();
    held.open();
    expect((await Promise.all(attempts)).every((u) => u?.username === 'alice')).toBe(true);
    expect(reasons()).toEqual([]);
    expect(encoder.matchesCalls).toBe(1);
  });
});
