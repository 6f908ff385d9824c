import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationManager,
  MemoryAuthenticator,
  RepositoryAuthenticator,
} from '../../src/authentication/index.js';
import {
  Access,
  AuthenticatedUser,
  AuthorizationManager,
  ConfigurationError,
  DeadlineExceededError,
  MemoryUserChangeNotifier,
  SecurityTransform,
  StoreUnavailableError,
  User,
  type SecurityOutcome,
} from '../../src/index.js';
import { MemoryUserRepository } from '../../src/users/index.js';
import { basic, failures, gate, recordEvents, requestWith, TestEncoder } from './helpers.js';
import { repositorySetup } from './repository-support.js';

afterEach(() => {
  vi.useRealTimers();
});

const login = (auth: RepositoryAuthenticator, username: string, password: string) =>
  auth.attempt(requestWith(basic(username, password)));

describe('RepositoryAuthenticator', () => {
  it('authenticates against the repository, with outcomes, users and events', async () => {
    const { auth, received } = repositorySetup();
    const outcome = await login(auth, 'alice', 'wonderland');
    expect(outcome.kind).toBe('authenticated');
    const user = outcome.kind === 'authenticated' ? outcome.user : undefined;
    expect(user).toBeInstanceOf(AuthenticatedUser);
    expect(user?.authenticationMethod).toBe('basic');
    expect(user?.hasAuthority('posts:read')).toBe(true);
    expect(await login(auth, 'alice', 'nope')).toEqual({
      kind: 'failed',
      reason: 'bad-credentials',
      username: 'alice',
      challenge: undefined,
    });
    expect(await auth.attempt(requestWith())).toEqual({ kind: 'anonymous' });
    expect(await auth.attempt(requestWith('Basic !!!'))).toMatchObject({
      kind: 'failed',
      reason: 'malformed-credentials',
    });
    expect(received.map((e) => e.type)).toEqual([
      'authentication-success',
      'authentication-failure',
      'authentication-failure',
    ]);
    expect((await auth.getUser(requestWith(basic('alice', 'wonderland'))))?.username).toBe('alice');
    expect((await auth.authenticate(requestWith(basic('alice', 'wonderland'))))?.username).toBe(
      'alice',
    );
  });

  it('checks form credentials with attemptCredentials and verifyCredentials', async () => {
    const { auth, received } = repositorySetup();
    const outcome = await auth.attemptCredentials('alice', 'wonderland', {
      authenticationMethod: 'form',
    });
    expect(outcome.kind === 'authenticated' && outcome.user.authenticationMethod).toBe('form');
    expect(await auth.attemptCredentials(42, 'x')).toMatchObject({
      kind: 'failed',
      reason: 'malformed-credentials',
    });
    expect((await auth.verifyCredentials('alice', 'wonderland'))?.username).toBe('alice');
    expect(await auth.verifyCredentials('alice', 'x')).toBeNull();
    expect(failures(received).map((e) => e.reason)).toEqual([
      'malformed-credentials',
      'bad-credentials',
    ]);
  });

  it('is built by AuthenticationManager.repositoryAuthentication', async () => {
    const encoder = new TestEncoder();
    const auth = AuthenticationManager.repositoryAuthentication({
      users: new MemoryUserRepository([new User('alice', encoder.hash('pw'))]),
      passwordEncoder: encoder,
    });
    expect(auth).toBeInstanceOf(RepositoryAuthenticator);
    expect(await login(auth, 'alice', 'pw')).toMatchObject({ kind: 'authenticated' });
  });

  it('needs a repository and an encoder at construction', () => {
    const encoder = new TestEncoder();
    expect(
      () => new RepositoryAuthenticator({ users: {} as never, passwordEncoder: encoder }),
    ).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'users' }));
    expect(
      () => new RepositoryAuthenticator({ users: new MemoryUserRepository() } as never),
    ).toThrow(expect.objectContaining({ option: 'passwordEncoder' }));
    expect(
      () =>
        new RepositoryAuthenticator({
          users: new MemoryUserRepository(),
          passwordEncoder: encoder,
          repositoryTimeoutMs: 0,
        }),
    ).toThrow(ConfigurationError);
    expect(
      () =>
        new RepositoryAuthenticator({
          users: new MemoryUserRepository(),
          passwordEncoder: encoder,
          userChanges: { publish: () => undefined } as never,
        }),
    ).toThrow(expect.objectContaining({ option: 'userChanges' }));
    expect(
      () => new RepositoryAuthenticator({ repository: {}, passwordEncoder: encoder } as never),
    ).toThrow(/did you mean "users"/u);
  });
});

describe('unknown usernames cost what known ones cost, even with a slow repository', () => {
  it('one repository lookup and exactly one matches() each, unknown or known', async () => {
    const { auth, encoder, repository, received } = repositorySetup();
    repository.delayMs = 20;
    const matches = vi.spyOn(encoder, 'matches');
    await login(auth, 'mallory', 'wonderland'); // warm-up: the dummy hash is made once
    matches.mockClear();
    repository.findCalls = 0;

    expect(await login(auth, 'mallory', 'guess')).toMatchObject({ kind: 'failed' });
    expect(repository.findCalls).toBe(1);
    expect(matches).toHaveBeenCalledTimes(1);
    expect(matches.mock.calls[0]?.[1]).toMatch(/^\{test\}/u); // a hash from the encoder

    expect(await login(auth, 'alice', 'guess')).toMatchObject({ kind: 'failed' });
    expect(repository.findCalls).toBe(2);
    expect(matches).toHaveBeenCalledTimes(2);

    // What the client sees is the same; only the server-side event tells them apart.
    const [unknown, wrong] = [failures(received).at(-2), failures(received).at(-1)];
    expect([unknown?.reason, wrong?.reason]).toEqual(['unknown-user', 'bad-credentials']);
  });
});

describe('account states', () => {
  const states = [
    ['account-disabled', { enabled: false }],
    ['account-locked', { locked: true }],
    ['account-expired', { accountExpired: true }],
    ['credentials-expired', { credentialsExpired: true }],
  ] as const;

  it.each(states)(
    'refuses %s with its own reason after the right password',
    async (reason, state) => {
      const { auth, received } = repositorySetup({}, (encoder) => [
        new User('alice', encoder.hash('wonderland'), ['USER']).withAccountState(state),
      ]);
      expect(await login(auth, 'alice', 'wonderland')).toEqual({
        kind: 'failed',
        reason,
        username: 'alice',
        challenge: undefined,
      });
      expect(received).toEqual([
        expect.objectContaining({ type: 'authentication-failure', username: 'alice', reason }),
      ]);
      expect(await auth.verifyCredentials('alice', 'wonderland')).toBeNull();
    },
  );

  it.each(states)(
    'gives plain bad-credentials for a wrong password of a %s account',
    async (_r, state) => {
      const { auth, received, encoder } = repositorySetup({}, (enc) => [
        new User('alice', enc.hash('wonderland')).withAccountState(state),
        new User('bob', enc.hash('builder')),
      ]);
      const lockedOutcome = await login(auth, 'alice', 'guess');
      const activeOutcome = await login(auth, 'bob', 'guess');
      expect(lockedOutcome).toEqual({ ...activeOutcome, username: 'alice' });
      expect(failures(received).map((e) => e.reason)).toEqual([
        'bad-credentials',
        'bad-credentials',
      ]);
      expect(encoder.matchesCalls).toBe(2);
    },
  );

  it('never caches a refused account, and never upgrades its hash', async () => {
    const { auth, encoder, repository } = repositorySetup({}, (enc) => [
      new User('alice', enc.hash('wonderland')).withAccountState({ locked: true }),
    ]);
    encoder.upgrade = () => true;
    await login(auth, 'alice', 'wonderland');
    await login(auth, 'alice', 'wonderland');
    expect(encoder.matchesCalls).toBe(2);
    expect(repository.updateCalls).toBe(0);
  });
});

describe('the verified-credential cache', () => {
  it('answers a hit synchronously without asking the repository', async () => {
    const { auth, repository } = repositorySetup();
    await login(auth, 'alice', 'wonderland');
    const hit = login(auth, 'alice', 'wonderland');
    expect(hit).not.toBeInstanceOf(Promise);
    expect(hit).toMatchObject({ kind: 'authenticated' });
    expect(repository.findCalls).toBe(1);
  });

  it('never outlives its TTL', async () => {
    let now = 0;
    const { auth, repository, encoder } = repositorySetup({
      cache: { ttlMs: 1_000, now: () => now },
    });
    await login(auth, 'alice', 'wonderland');
    now = 999;
    await login(auth, 'alice', 'wonderland');
    expect(repository.findCalls).toBe(1);
    now = 1_000;
    await login(auth, 'alice', 'wonderland');
    expect(repository.findCalls).toBe(2);
    expect(encoder.matchesCalls).toBe(2);
  });

  it('a user locked on one instance is refused on another right after the announcement', async () => {
    const encoder = new TestEncoder();
    const users = new MemoryUserRepository([new User('alice', encoder.hash('wonderland'))]);
    const userChanges = new MemoryUserChangeNotifier(); // stands in for Redis between instances
    const { events, received } = recordEvents();
    const a = new RepositoryAuthenticator({ users, passwordEncoder: encoder, userChanges });
    const b = new RepositoryAuthenticator({ users, passwordEncoder: encoder, userChanges, events });
    expect(await login(a, 'alice', 'wonderland')).toMatchObject({ kind: 'authenticated' });
    expect(await login(b, 'alice', 'wonderland')).toMatchObject({ kind: 'authenticated' });

    const alice = users.findByUsername('alice');
    users.updateUser((alice as User).withAccountState({ locked: true }));
    // Before the announcement, B's cache still answers (what the notifier exists for).
    expect(login(b, 'alice', 'wonderland')).toMatchObject({ kind: 'authenticated' });
    await a.userChanged('alice');
    expect(await login(b, 'alice', 'wonderland')).toMatchObject({
      kind: 'failed',
      reason: 'account-locked',
    });
    expect(failures(received).map((e) => e.reason)).toEqual(['account-locked']);
  });

  it('a password changed through one instance stops the old one on another at once', async () => {
    const encoder = new TestEncoder();
    const userChanges = new MemoryUserChangeNotifier();
    const users = new MemoryUserRepository([new User('alice', encoder.hash('old'))], {
      userChanges,
    });
    const a = new RepositoryAuthenticator({ users, passwordEncoder: encoder, userChanges });
    const b = new RepositoryAuthenticator({ users, passwordEncoder: encoder, userChanges });
    expect(await login(b, 'alice', 'old')).toMatchObject({ kind: 'authenticated' });
    users.changePassword('alice', encoder.hash('new')); // the repository announces it
    expect(await login(b, 'alice', 'old')).toMatchObject({ reason: 'bad-credentials' });
    expect(await login(a, 'alice', 'new')).toMatchObject({ kind: 'authenticated' });
    a.close();
    b.close();
  });

  it('MemoryAuthenticator forgets a user changed through its repository at once', async () => {
    const encoder = new TestEncoder();
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('alice', encoder.hash('wonderland'))],
    });
    expect(await login(auth, 'alice', 'wonderland')).toMatchObject({ kind: 'authenticated' });
    const alice = auth.findUser('alice') as User;
    auth.repository.updateUser(alice.withAccountState({ enabled: false }));
    expect(await login(auth, 'alice', 'wonderland')).toMatchObject({
      kind: 'failed',
      reason: 'account-disabled',
    });
    auth.repository.updateUser(alice);
    auth.repository.changePassword('alice', encoder.hash('new'));
    expect(await login(auth, 'alice', 'wonderland')).toMatchObject({ reason: 'bad-credentials' });
    expect(await login(auth, 'alice', 'new')).toMatchObject({ kind: 'authenticated' });
  });

  it('does not cache a verification that was in flight when the user changed', async () => {
    const { auth, repository, encoder } = repositorySetup();
    const held = gate();
    encoder.hold = held.promise;
    const inFlight = login(auth, 'alice', 'wonderland');
    await vi.waitFor(() => {
      expect(encoder.matchesCalls).toBe(1);
    });
    await auth.userChanged('alice');
    held.open();
    encoder.hold = undefined;
    expect(await inFlight).toMatchObject({ kind: 'authenticated' });
    await login(auth, 'alice', 'wonderland');
    expect(repository.findCalls).toBe(2);
  });
});

describe('password upgrade through the repository', () => {
  it('calls updatePassword exactly once under 20 concurrent logins, then announces it', async () => {
    const userChanges = new MemoryUserChangeNotifier();
    const announced: string[] = [];
    userChanges.subscribe((name) => announced.push(name));
    const hook = vi.fn();
    const { auth, encoder, repository } = repositorySetup({
      userChanges,
      onPasswordUpgrade: hook,
      cache: false,
    });
    encoder.upgrade = (encoded) => encoded.startsWith('{test}fixed$');
    const before = repository.inner.findByUsername('alice');
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, async () => login(auth, 'alice', 'wonderland')),
    );
    expect(outcomes.every((o) => o.kind === 'authenticated')).toBe(true);
    // And 20 more, after it: the stored hash is the new one, nothing to upgrade.
    await Promise.all(Array.from({ length: 20 }, async () => login(auth, 'alice', 'wonderland')));
    expect(repository.updateCalls).toBe(1);
    expect(encoder.encodeCalls).toBe(1);
    const after = repository.inner.findByUsername('alice');
    expect(after?.password).not.toBe(before?.password);
    expect(after?.roles.has('USER')).toBe(true);
    expect(announced).toEqual(['alice']);
    expect(hook).toHaveBeenCalledTimes(1);
  });

  it('keeps the login when updatePassword hangs past repositoryTimeoutMs', async () => {
    vi.useFakeTimers();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const { auth, encoder, repository } = repositorySetup({ repositoryTimeoutMs: 1_000 });
      repository.delayMs = 0;
      encoder.upgrade = () => true;
      repository.holdUpdates = new Promise(() => undefined);
      const attempt = Promise.resolve(login(auth, 'alice', 'wonderland'));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await attempt).toMatchObject({ kind: 'authenticated' });
      expect(repository.updateCalls).toBe(1);
      expect(repository.inner.findByUsername('alice')?.password).toBe(encoder.hash('wonderland'));
      expect(String(warn.mock.calls[0]?.[0])).toContain('DeadlineExceededError');
    } finally {
      warn.mockRestore();
    }
  });

  it('does not cache the upgraded user when the repository reads it back locked', async () => {
    const { auth, encoder, repository } = repositorySetup();
    encoder.upgrade = (encoded) => encoded.startsWith('{test}fixed$');
    // Like SqlUserRepository: a compare-and-set on the hash, then the row as it is now
    // (an administrator locked the account between the check and the upgrade).
    repository.updatePassword = (user, encoded) => {
      const updated = repository.inner.updatePassword(user, encoded);
      if (updated !== null) repository.inner.updateUser(updated.withAccountState({ locked: true }));
      return Promise.resolve(repository.inner.findByUsername(user.username));
    };
    expect(await login(auth, 'alice', 'wonderland')).toMatchObject({ kind: 'authenticated' });
    expect(await login(auth, 'alice', 'wonderland')).toMatchObject({
      kind: 'failed',
      reason: 'account-locked',
    });
  });

  it('keeps the login when the repository refuses the compare-and-set', async () => {
    const { auth, encoder, repository } = repositorySetup();
    encoder.upgrade = () => true;
    const original = repository.updatePassword.bind(repository);
    repository.updatePassword = async (user, encoded) => {
      repository.inner.changePassword('alice', encoder.hash('changed-meanwhile'));
      return original(user, encoded);
    };
    expect(await login(auth, 'alice', 'wonderland')).toMatchObject({ kind: 'authenticated' });
    expect(repository.inner.findByUsername('alice')?.password).toBe(
      encoder.hash('changed-meanwhile'),
    );
  });
});

describe('a repository that fails or hangs fails closed', () => {
  function transformFor(auth: RepositoryAuthenticator) {
    return new SecurityTransform()
      .configAuthenticator(() => auth)
      .configAuthorizer(() =>
        AuthorizationManager.requestMatcher()
          .httpBasic()
          .addMatcher('/private', Access.authenticated()),
      );
  }
  const status = (outcome: SecurityOutcome): number =>
    outcome.proceed ? 200 : outcome.response.status;

  it('a rejecting repository gives StoreUnavailableError, 503 with Retry-After through SecurityTransform', async () => {
    const { auth, repository, encoder } = repositorySetup();
    repository.failWith = new Error('connect ECONNREFUSED password=hunter2');
    await expect(login(auth, 'alice', 'wonderland')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(auth.verifyCredentials('mallory', 'x')).rejects.toMatchObject({
      code: 'ERR_STORE_UNAVAILABLE',
      store: 'user-repository',
    });
    const outcome = await transformFor(auth).handle(requestWith(basic('alice', 'wonderland')));
    expect(status(outcome)).toBe(503);
    expect(!outcome.proceed && outcome.response.headers['retry-after']).toBe('1');
    expect(!outcome.proceed && outcome.response.body).not.toContain('hunter2');
    expect(encoder.matchesCalls).toBe(0);
    repository.failWith = undefined;
    expect(status(await transformFor(auth).handle(requestWith(basic('alice', 'wonderland'))))).toBe(
      200,
    );
  });

  it('a repository that throws synchronously fails closed too', async () => {
    const encoder = new TestEncoder();
    const auth = new RepositoryAuthenticator({
      passwordEncoder: encoder,
      users: {
        findByUsername: () => {
          throw new Error('pool exhausted');
        },
      },
    });
    await expect(auth.attemptCredentials('alice', 'x')).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await expect(login(auth, 'alice', 'x')).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('a hung repository gives DeadlineExceededError at repositoryTimeoutMs, with an event', async () => {
    vi.useFakeTimers();
    const { auth, repository, received } = repositorySetup({ repositoryTimeoutMs: 1_500 });
    repository.delayMs = 0;
    repository.hold = new Promise(() => undefined);
    let settled = false;
    const attempt = Promise.resolve(login(auth, 'alice', 'wonderland')).finally(() => {
      settled = true;
    });
    const assertion = expect(attempt).rejects.toMatchObject({
      code: 'ERR_DEADLINE_EXCEEDED',
      operation: 'user-repository',
      timeoutMs: 1_500,
    });
    await vi.advanceTimersByTimeAsync(1_499);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await assertion;
    await expect(attempt).rejects.toBeInstanceOf(DeadlineExceededError);
    expect(received).toEqual([
      expect.objectContaining({ type: 'deadline-exceeded', operation: 'user-repository' }),
    ]);
  });
});
