import { describe, expect, it } from 'vitest';
import { failures, memorySetup, requestWith } from './helpers.js';

describe('MemoryAuthenticator.verifyCredentials', () => {
  it('checks a username and password with its own method name', async () => {
    const { auth, alice, received } = memorySetup();
    const request = requestWith();
    expect(
      await auth.verifyCredentials('alice', 'wonderland', {
        request,
        authenticationMethod: 'form',
      }),
    ).toBe(alice);
    expect(await auth.verifyCredentials('alice', 'nope')).toBeNull();
    expect(received).toEqual([
      expect.objectContaining({ type: 'authentication-success', authenticationMethod: 'form' }),
      expect.objectContaining({
        type: 'authentication-failure',
        authenticationMethod: 'password',
        reason: 'bad-credentials',
        request: undefined,
      }),
    ]);
  });

  it.each([
    ['a non-string username', 42, 'pw', 'malformed-credentials'],
    [
      'a non-string password',
      'alice',
      { toString: (): string => 'wonderland' },
      'malformed-credentials',
    ],
    ['an empty username', '', 'pw', 'malformed-credentials'],
    ['a control character', 'alice\u0000', 'wonderland', 'malformed-credentials'],
    ['oversized credentials', 'alice', 'x'.repeat(9000), 'credentials-too-large'],
  ])('refuses %s', async (_name, username, password, reason) => {
    const { auth, received, encoder } = memorySetup();
    expect(await auth.verifyCredentials(username, password)).toBeNull();
    expect(failures(received).map((e) => [e.username, e.reason])).toEqual([[undefined, reason]]);
    expect(encoder.matchesCalls).toBe(0);
  });

  it('treats a username with a colon as unknown', async () => {
    const { auth, received } = memorySetup();
    expect(await auth.verifyCredentials('alice:x', 'wonderland')).toBeNull();
    expect(failures(received).map((e) => e.reason)).toEqual(['unknown-user']);
  });
});
