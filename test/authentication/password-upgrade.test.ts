import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import {
  MemoryAuthenticator,
  type MemoryAuthenticatorOptions,
} from '../../src/authentication/index.js';
import { User } from '../../src/core/index.js';
import { basic, flush, gate, recordEvents, requestWith, TestEncoder } from './helpers.js';

/** Hashes made with the salt `fixed` count as outdated; fresh ones have a random salt. */
function setup(options: MemoryAuthenticatorOptions = {}) {
  const encoder = new TestEncoder();
  encoder.upgrade = (encoded) => encoded.startsWith('{test}fixed$');
  const { events, received } = recordEvents();
  const alice = new User('alice', encoder.hash('wonderland'), ['USER']);
  const auth = new MemoryAuthenticator({
    passwordEncoder: encoder,
    users: [alice],
    events,
    ...options,
  });
  const login = async (password: string) => auth.getUser(requestWith(basic('alice', password)));
  return { encoder, alice, auth, login, received };
}

let warn: MockInstance<typeof process.emitWarning>;
beforeEach(() => {
  warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
});
afterEach(() => {
  warn.mockRestore();
});

describe('password upgrade', () => {
  it('re-encodes an outdated hash after a successful login and keeps roles', async () => {
    const hook = vi.fn();
    const { encoder, alice, auth, login } = setup({ onPasswordUpgrade: hook });
    const user = await login('wonderland');
    const upgraded = auth.findUser('alice');
    expect(upgraded).not.toBe(alice);
    expect(upgraded?.password).not.toBe(alice.password);
    expect(upgraded?.roles.has('USER')).toBe(true);
    expect(await encoder.matches('wonderland', upgraded?.password ?? '')).toBe(true);
    expect(user).toBe(upgraded);
    expect(hook).toHaveBeenCalledTimes(1);
    expect(hook).toHaveBeenCalledWith('alice', upgraded?.password);
    expect(encoder.encodeCalls).toBe(1);
  });

  it('upgrades only once, and the new hash verifies from the cache', async () => {
    const hook = vi.fn();
    const { encoder, login } = setup({ onPasswordUpgrade: hook });
    await login('wonderland');
    const matchesAfterFirst = encoder.matchesCalls;
    for (let i = 0; i < 3; i++) expect(await login('wonderland')).not.toBeNull();
    expect(encoder.encodeCalls).toBe(1);
    expect(encoder.matchesCalls).toBe(matchesAfterFirst);
    expect(hook).toHaveBeenCalledTimes(1);
  });

  it('verifies the new hash when the cache is off', async () => {
    const { encoder, login, auth } = setup({ cache: false });
    await login('wonderland');
    expect(await login('wonderland')).toBe(auth.findUser('alice'));
    expect(encoder.matchesCalls).toBe(2);
    expect(encoder.encodeCalls).toBe(1);
  });

  it('does not upgrade on a failed login', async () => {
    const hook = vi.fn();
    const { encoder, alice, auth, login } = setup({ onPasswordUpgrade: hook });
    expect(await login('wrong')).toBeNull();
    expect(auth.findUser('alice')).toBe(alice);
    expect(encoder.encodeCalls).toBe(0);
    expect(hook).not.toHaveBeenCalled();
  });

  it('does not upgrade when the encoder does not ask for it', async () => {
    const { encoder, alice, auth, login } = setup();
    encoder.upgrade = () => false;
    await login('wonderland');
    expect(auth.findUser('alice')).toBe(alice);
    expect(encoder.encodeCalls).toBe(0);
  });

  it('never fails the login when re-encoding fails', async () => {
    const { encoder, alice, auth, login, received } = setup();
    encoder.encode = () => Promise.reject(new Error('hash-failed'));
    expect(await login('wonderland')).toBe(alice);
    expect(auth.findUser('alice')).toBe(alice);
    expect(received.map((e) => e.type)).toEqual(['authentication-success']);
    expect(warn).toHaveBeenCalled();
  });

  it('never fails the login when upgradeEncoding throws', async () => {
    const { encoder, alice, login } = setup();
    encoder.upgrade = () => {
      throw new Error('bug');
    };
    expect(await login('wonderland')).toBe(alice);
  });

  it('ignores an encoder that returns no string', async () => {
    const { encoder, alice, auth, login } = setup();
    encoder.encode = () => Promise.resolve(undefined as unknown as string);
    expect(await login('wonderland')).toBe(alice);
    expect(auth.findUser('alice')).toBe(alice);
  });

  it('never fails the login when the hook throws or rejects', async () => {
    const throwing = setup({
      onPasswordUpgrade: () => {
        throw new Error('db down');
      },
    });
    expect(await throwing.login('wonderland')).not.toBeNull();
    expect(throwing.auth.findUser('alice')).not.toBe(throwing.alice);

    const rejecting = setup({ onPasswordUpgrade: () => Promise.reject(new Error('db down')) });
    expect(await rejecting.login('wonderland')).not.toBeNull();
    await flush();
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls.map((call) => String(call[0])).join()).not.toContain('wonderland');
  });

  it('skips the upgrade when no verification slot is free, and retries at a later login', async () => {
    const { encoder, alice, auth, login } = setup({
      maxConcurrentVerifications: 1,
      maxQueuedVerifications: 0,
      cache: false,
    });
    const held = gate();
    let busy: Promise<User | null> | undefined;
    encoder.upgrade = (encoded) => {
      // Right before the upgrade asks for a slot, another verification takes the only one.
      if (busy === undefined) {
        encoder.hold = held.promise;
        busy = login('another-guess');
      }
      return encoded.startsWith('{test}fixed$');
    };
    expect(await login('wonderland')).toBe(alice);
    expect(auth.findUser('alice')).toBe(alice);
    expect(encoder.encodeCalls).toBe(0);
    held.open();
    encoder.hold = undefined;
    expect(await busy).toBeNull();
    expect(await login('wonderland')).not.toBeNull();
    expect(auth.findUser('alice')).not.toBe(alice);
    expect(encoder.encodeCalls).toBe(1);
  });
});
