import { describe, expect, it } from 'vitest';
import { User, type AccountState } from '../../src/index.js';
import { ALICE, makeSessions, request, testClock } from './support.js';

describe('a session whose account may no longer be used', () => {
  it.each([
    ['locked', { locked: true }],
    ['disabled', { enabled: false }],
    ['expired', { accountExpired: true }],
  ] as const)(
    'is ended when loadUser finds the account %s',
    async (_, state: Partial<AccountState>) => {
      let current = new User('alice', '', ALICE.roles, ALICE.authorities);
      const { sessions } = makeSessions({}, { clock: testClock(), loadUser: () => current });
      const cookie = await sessions.logIn(ALICE);
      expect(await sessions.attempt(request({ cookie }))).toMatchObject({ kind: 'authenticated' });
      current = current.withAccountState(state);
      expect(await sessions.attempt(request({ cookie }))).toMatchObject({
        kind: 'failed',
        reason: 'invalid-session',
      });
      // Ended for good: unlocking the account does not revive this session.
      current = current.withAccountState({ locked: false, enabled: true, accountExpired: false });
      expect(await sessions.attempt(request({ cookie }))).toMatchObject({ kind: 'failed' });
    },
  );

  it('an expired password alone does not end a session (the account itself may be used)', async () => {
    const current = new User('alice', '', ALICE.roles, ALICE.authorities).withAccountState({
      credentialsExpired: true,
    });
    const { sessions } = makeSessions({}, { clock: testClock(), loadUser: () => current });
    const cookie = await sessions.logIn(ALICE);
    expect(await sessions.attempt(request({ cookie }))).toMatchObject({ kind: 'authenticated' });
  });
});
