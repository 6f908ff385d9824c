import { describe, expect, it } from 'vitest';
import { AuthenticationManager, MemoryAuthenticator } from '../../src/authentication/index.js';
import { ConfigurationError, User } from '../../src/core/index.js';
import { basic, memorySetup, requestWith, TestEncoder } from './helpers.js';

describe('MemoryAuthenticator configuration', () => {
  it('is built fluently from AuthenticationManager.inMemoryAuthentication()', async () => {
    const encoder = new TestEncoder();
    const auth = AuthenticationManager.inMemoryAuthentication()
      .passwordEncoder(encoder)
      .withUser(User.withEncodedPassword('alice', encoder.hash('pw')).withRoles(['USER']))
      .withUser(User.withEncodedPassword('bob', encoder.hash('pw2')));
    expect(auth).toBeInstanceOf(MemoryAuthenticator);
    expect(auth.authenticationMethod).toBe('basic');
    expect(auth.findUser('alice')?.roles.has('USER')).toBe(true);
    expect(await auth.getUser(requestWith(basic('bob', 'pw2')))).toBe(auth.findUser('bob'));
  });

  it('returns a new authenticator each time', () => {
    expect(AuthenticationManager.inMemoryAuthentication()).not.toBe(
      AuthenticationManager.inMemoryAuthentication(),
    );
  });

  it('refuses a duplicate username', () => {
    const auth = new MemoryAuthenticator().withUser(new User('alice', 'x'));
    expect(() => auth.withUser(new User('alice', 'y'))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'users' }),
    );
    expect(
      () => new MemoryAuthenticator({ users: [new User('a', 'x'), new User('a', 'y')] }),
    ).toThrow(ConfigurationError);
  });

  it('refuses a username containing ":" (RFC 7617)', () => {
    expect(() => new MemoryAuthenticator().withUser(new User('a:b', 'x'))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'users' }),
    );
  });

  it('refuses things that are not users', () => {
    const fake = { username: 'a', password: 'x', roles: new Set(), authorities: new Set() };
    expect(() => new MemoryAuthenticator().withUser(fake as unknown as User)).toThrow(
      ConfigurationError,
    );
    expect(() => new MemoryAuthenticator({ users: 'alice' as unknown as User[] })).toThrow(
      ConfigurationError,
    );
  });

  it('refuses an encoder without the PasswordEncoder methods', () => {
    const bad = { encode: () => Promise.resolve('') } as unknown as TestEncoder;
    expect(() => new MemoryAuthenticator().passwordEncoder(bad)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'passwordEncoder' }),
    );
  });

  it.each([
    ['maxConcurrentVerifications', { maxConcurrentVerifications: 0 }],
    ['maxConcurrentVerifications', { maxConcurrentVerifications: 1.5 }],
    ['maxQueuedVerifications', { maxQueuedVerifications: -1 }],
    ['maxHeaderLength', { maxHeaderLength: 10 }],
    ['cache.ttlMs', { cache: { ttlMs: 0 } }],
    ['cache.maxEntries', { cache: { maxEntries: 0 } }],
    ['cache', { cache: true }],
    ['events', { events: {} }],
    ['onPasswordUpgrade', { onPasswordUpgrade: 'persist' }],
  ])('validates %s', (option, options) => {
    expect(() => new MemoryAuthenticator(options as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option }),
    );
  });

  it.each([
    ['encoder', 'passwordEncoder'],
    ['maxConcurrency', 'maxConcurrentVerifications'],
  ])('catches the typo %s (did you mean %s?)', (typo, meant) => {
    let caught: unknown;
    try {
      new MemoryAuthenticator({ [typo]: 1 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'ERR_INVALID_OPTION', option: typo });
    expect((caught as Error).message).toContain(meant);
  });

  it('catches a typo in the cache options', () => {
    expect(() => new MemoryAuthenticator({ cache: { ttl: 5 } as never })).toThrow(
      expect.objectContaining({ option: 'cache.ttl' }),
    );
  });

  it('does not mutate the caller’s options', () => {
    const encoder = new TestEncoder();
    const users = [new User('alice', encoder.hash('pw'))];
    const options = Object.freeze({
      passwordEncoder: encoder,
      users,
      cache: Object.freeze({ ttlMs: 5 }),
    });
    expect(() => new MemoryAuthenticator(options)).not.toThrow();
    expect(users).toHaveLength(1);
  });

  it('freezes users and encoder once it has authenticated', async () => {
    const { auth } = memorySetup();
    await auth.getUser(requestWith());
    expect(() => auth.withUser(new User('carol', 'x'))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'users' }),
    );
    expect(() => auth.passwordEncoder(new TestEncoder())).toThrow(ConfigurationError);
  });

  it('refuses to authenticate without an encoder', () => {
    const auth = new MemoryAuthenticator().withUser(new User('alice', 'x'));
    expect(() => auth.getUser(requestWith(basic('alice', 'x')))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'passwordEncoder' }),
    );
  });
});

describe('MemoryAuthenticator.findUser', () => {
  it('finds users by exact, case-sensitive name', () => {
    const { auth, alice } = memorySetup();
    expect(auth.findUser('alice')).toBe(alice);
    expect(auth.findUser('Alice')).toBeNull();
    expect(auth.findUser('alice ')).toBeNull();
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'knows no user named %s',
    (name) => {
      const { auth } = memorySetup();
      expect(auth.findUser(name)).toBeNull();
    },
  );

  it('answers null for a non-string', () => {
    const { auth } = memorySetup();
    expect(auth.findUser(undefined as unknown as string)).toBeNull();
    expect(auth.findUser({} as unknown as string)).toBeNull();
  });
});
