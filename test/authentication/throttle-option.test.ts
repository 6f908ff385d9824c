/**
 * The password authenticators throttle by default: the sixth wrong password for a
 * username is refused before any hashing, whichever way the authenticator was built.
 */
import { describe, expect, it } from 'vitest';
import {
  AuthenticationManager,
  LoginThrottle,
  MemoryAuthenticator,
  MemoryUserRepository,
  RepositoryAuthenticator,
  TooManyRequestsError,
  User,
  type AuthenticationOutcome,
} from '../../src/index.js';
import { basic, requestWith, TestEncoder } from './helpers.js';

type Attempt = (password: string) => AuthenticationOutcome | Promise<AuthenticationOutcome>;

async function guesses(attempt: Attempt, count: number): Promise<string[]> {
  const kinds: string[] = [];
  for (let i = 0; i < count; i++) {
    try {
      kinds.push((await attempt(`guess-${i}`)).kind);
    } catch (error) {
      kinds.push(error instanceof TooManyRequestsError ? `429:${error.scope}` : 'error');
    }
  }
  return kinds;
}

const FIVE_FAILED = ['failed', 'failed', 'failed', 'failed', 'failed'];

describe('the default login throttle of the password authenticators', () => {
  it('MemoryAuthenticator (options): 5 guesses checked, the 6th refused unhashed', async () => {
    const encoder = new TestEncoder();
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('alice', encoder.hash('wonderland'))],
    });
    const kinds = await guesses((p) => auth.attempt(requestWith(basic('alice', p))), 6);
    expect(kinds).toEqual([...FIVE_FAILED, '429:username']);
    expect(encoder.matchesCalls).toBe(5);
  });

  it('the in-memory builder, and attemptCredentials', async () => {
    const encoder = new TestEncoder();
    const auth = AuthenticationManager.inMemoryAuthentication()
      .passwordEncoder(encoder)
      .withUser(new User('alice', encoder.hash('wonderland')));
    const kinds = await guesses((p) => auth.attemptCredentials('alice', p), 6);
    expect(kinds).toEqual([...FIVE_FAILED, '429:username']);
    expect(encoder.matchesCalls).toBe(5);
  });

  it('RepositoryAuthenticator', async () => {
    const encoder = new TestEncoder();
    const auth = new RepositoryAuthenticator({
      users: new MemoryUserRepository([new User('alice', encoder.hash('wonderland'))]),
      passwordEncoder: encoder,
    });
    const kinds = await guesses((p) => auth.attemptCredentials('alice', p), 6);
    expect(kinds).toEqual([...FIVE_FAILED, '429:username']);
    expect(encoder.matchesCalls).toBe(5);
  });

  it('throttle(false) on the builder turns it off; throttle(t) sets one; both only before the first login', async () => {
    const encoder = new TestEncoder();
    const off = AuthenticationManager.inMemoryAuthentication()
      .passwordEncoder(encoder)
      .throttle(false)
      .withUser(new User('alice', encoder.hash('wonderland')));
    expect(await guesses((p) => off.attemptCredentials('alice', p), 7)).toEqual([
      ...FIVE_FAILED,
      'failed',
      'failed',
    ]);
    expect(() => off.throttle(new LoginThrottle())).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'throttle' }),
    );

    const strict = AuthenticationManager.inMemoryAuthentication()
      .passwordEncoder(encoder)
      .throttle(new LoginThrottle({ username: { max: 2 } }))
      .withUser(new User('bob', encoder.hash('builder')));
    expect(await guesses((p) => strict.attemptCredentials('bob', p), 3)).toEqual([
      'failed',
      'failed',
      '429:username',
    ]);
  });

  it('refuses a throttle that is not a LoginThrottle', () => {
    const encoder = new TestEncoder();
    expect(
      () =>
        new MemoryAuthenticator({
          passwordEncoder: encoder,
          throttle: { admit: () => undefined } as unknown as LoginThrottle,
        }),
    ).toThrow(expect.objectContaining({ option: 'throttle' }));
    expect(() =>
      new MemoryAuthenticator({ passwordEncoder: encoder }).throttle('off' as unknown as false),
    ).toThrow(expect.objectContaining({ option: 'throttle' }));
  });
});
