import { describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  SecurityTransform,
  StoreUnavailableError,
  UnavailableError,
  User,
} from '../../src/index.js';
import {
  MemorySessionStore,
  SessionStoreFullError,
  type SessionStore,
} from '../../src/session/index.js';
import { ALICE, makeSessions, request, type TestClock, testClock } from './support.js';

/**
 * Our own in-memory store answering every call with a promise, a macrotask later (as
 * a networked store does); `fail` turns every call into a rejection, `hang` into a
 * promise that never settles.
 */
class AsyncSessionStore implements SessionStore {
  mode: 'ok' | 'fail' | 'hang' = 'ok';
  calls = 0;
  readonly #memory: MemorySessionStore;

  constructor(clock: TestClock) {
    this.#memory = new MemorySessionStore({ clock: clock.now });
  }

  revokeSession(sid: string, expiresAtMs: number): Promise<void> {
    return this.#later(() => {
      this.#memory.revokeSession(sid, expiresAtMs);
    });
  }

  revokeUser(username: string, atMs: number, expiresAtMs: number): Promise<void> {
    return this.#later(() => {
      this.#memory.revokeUser(username, atMs, expiresAtMs);
    });
  }

  isRevoked(sid: string, username: string | undefined, createdAtMs: number) {
    return this.#later(() => this.#memory.isRevoked(sid, username, createdAtMs));
  }

  touch(sid: string, nowMs: number, expiresAtMs: number): Promise<number | undefined> {
    return this.#later(() => this.#memory.touch(sid, nowMs, expiresAtMs));
  }

  #later<T>(run: () => T): Promise<T> {
    this.calls += 1;
    if (this.mode === 'hang') return new Promise<T>(() => undefined);
    return new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        if (this.mode === 'fail') reject(new Error('ECONNRESET 10.0.0.7:6379'));
        else resolve(run());
      });
    });
  }
}

function fixture(
  config: Parameters<typeof makeSessions>[0] = {},
  options: Parameters<typeof makeSessions>[1] = {},
) {
  const clock = testClock();
  const store = new AsyncSessionStore(clock);
  const made = makeSessions(config, { ...options, clock, store });
  return { ...made, store };
}

const username = async (promise: unknown) => ((await promise) as User | null)?.username ?? null;

describe('an asynchronous session store', () => {
  it('logout, log out everywhere and rights changes are honoured', async () => {
    let roles = ['USER'];
    const { sessions, store, clock } = fixture(
      {},
      { loadUser: (name) => new User(name, '').withRoles(roles) },
    );
    const first = await sessions.logIn(ALICE);
    const second = await sessions.logIn(ALICE);
    expect(await username(sessions.authenticate(request({ cookie: first })))).toBe('alice');
    expect(store.calls).toBeGreaterThan(0);

    await sessions.logOut(request({ cookie: first }));
    expect(await sessions.attempt(request({ cookie: first }))).toMatchObject({
      kind: 'failed',
      reason: 'invalid-session',
    });
    expect(await username(sessions.authenticate(request({ cookie: second })))).toBe('alice');

    roles = ['ADMIN'];
    expect(await sessions.attempt(request({ cookie: second }))).toMatchObject({ kind: 'failed' });
    roles = ['USER'];
    // Revoked for good: the rights coming back does not revive it.
    expect(await sessions.attempt(request({ cookie: second }))).toMatchObject({ kind: 'failed' });

    clock.advance(1);
    const third = await sessions.logIn(ALICE);
    await sessions.logOutEverywhere('alice');
    expect(await sessions.attempt(request({ cookie: third }))).toMatchObject({ kind: 'failed' });
    clock.advance(1);
    const fourth = await sessions.logIn(ALICE);
    expect(await username(sessions.getUser(request({ cookie: fourth })))).toBe('alice');
  });

  it('the idle timeout is kept through touch', async () => {
    const { sessions, clock } = fixture({ idleTimeoutSeconds: 60 });
    const cookie = await sessions.logIn(ALICE);
    clock.advance(30_000);
    expect(await username(sessions.authenticate(request({ cookie })))).toBe('alice');
    clock.advance(59_000);
    expect(await username(sessions.authenticate(request({ cookie })))).toBe('alice');
    clock.advance(61_000);
    expect(await sessions.attempt(request({ cookie }))).toMatchObject({
      kind: 'failed',
      reason: 'invalid-session',
    });
    // Idle once is revoked for good.
    clock.advance(1_000);
    expect(await sessions.attempt(request({ cookie }))).toMatchObject({ kind: 'failed' });
  });
});

describe('a session store that cannot answer fails closed', () => {
  function pipeline(sessions: ReturnType<typeof makeSessions>['sessions']) {
    return new SecurityTransform()
      .configAuthenticator(() => sessions)
      .configAuthorizer(() =>
        AuthorizationManager.requestMatcher()
          .addMatcher('/api/.*', Access.authenticated())
          .addMatcher('/.*', Access.permitAll()),
      );
  }

  it('a rejecting store: 503 with Retry-After through SecurityTransform, never anonymous', async () => {
    const { sessions, store } = fixture();
    const cookie = await sessions.logIn(ALICE);
    store.mode = 'fail';
    const error = await Promise.resolve(sessions.attempt(request({ cookie }))).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ store: 'session', operation: 'session-revocation-check' });
    // The cause is kept for the logs; the message names no host or key.
    expect((error as Error).message).not.toContain('10.0.0.7');
    const transform = pipeline(sessions);
    // A public page too: the request must not go on as anonymous.
    for (const url of ['/api/me', '/public']) {
      const outcome = await transform.handle(request({ cookie, url }));
      expect(outcome.proceed).toBe(false);
      if (!outcome.proceed) {
        expect(outcome.response.status).toBe(503);
        expect(outcome.response.headers['retry-after']).toBe('1');
      }
    }
    // Logout does not pretend: the revocation was not recorded.
    await expect(sessions.logOut(request({ cookie }))).rejects.toBeInstanceOf(UnavailableError);
    await expect(sessions.logOutEverywhere('alice')).rejects.toBeInstanceOf(UnavailableError);
    // Requests without a session cookie need no store.
    const anonymous = await transform.handle(request({ url: '/public' }));
    expect(anonymous.proceed).toBe(true);
  });

  it('a hung store: DeadlineExceededError past storeTimeoutMs, 503, a deadline event', async () => {
    const { sessions, store, received } = fixture({}, { storeTimeoutMs: 50 });
    const cookie = await sessions.logIn(ALICE);
    store.mode = 'hang';
    const outcome = await pipeline(sessions).handle(request({ cookie, url: '/public' }));
    expect(!outcome.proceed && outcome.response.status).toBe(503);
    expect(received).toContainEqual(
      expect.objectContaining({
        type: 'deadline-exceeded',
        operation: 'session-revocation-check',
        timeoutMs: 50,
      }),
    );
  });

  it('a hung touch (idle timeouts) fails closed too', async () => {
    const { sessions, store } = fixture({ idleTimeoutSeconds: 60 }, { storeTimeoutMs: 50 });
    const cookie = await sessions.logIn(ALICE);
    const original = store.touch.bind(store);
    store.touch = () => new Promise<number | undefined>(() => undefined);
    await expect(sessions.attempt(request({ cookie }))).rejects.toMatchObject({
      code: 'ERR_DEADLINE_EXCEEDED',
      operation: 'session-touch',
    });
    store.touch = original;
    expect(await sessions.attempt(request({ cookie }))).toMatchObject({ kind: 'authenticated' });
  });

  it('a store answering outside its contract, or throwing synchronously, is unavailable', async () => {
    const clock = testClock();
    const memory = new MemorySessionStore({ clock: clock.now });
    const garbage: SessionStore = {
      revokeSession: (sid, until) => {
        memory.revokeSession(sid, until);
      },
      revokeUser: (name, at, until) => {
        memory.revokeUser(name, at, until);
      },
      isRevoked: () => 'maybe' as unknown as false,
      touch: () => {
        throw new Error('boom');
      },
    };
    const { sessions } = makeSessions({ idleTimeoutSeconds: 60 }, { clock, store: garbage });
    const cookie = await sessions.logIn(ALICE);
    await expect(sessions.attempt(request({ cookie }))).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    garbage.isRevoked = () => false;
    await expect(sessions.attempt(request({ cookie }))).rejects.toMatchObject({
      code: 'ERR_STORE_UNAVAILABLE',
      operation: 'session-touch',
    });
  });

  it('a loadUser whose repository is unavailable: 503, and the session is kept', async () => {
    let down = true;
    const { sessions } = fixture(
      {},
      {
        loadUser: (name) => {
          if (down) throw new StoreUnavailableError('sql', 'find-user');
          return new User(name, '').withRoles(['USER']);
        },
      },
    );
    const cookie = await sessions.logIn(ALICE);
    await expect(sessions.attempt(request({ cookie }))).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    down = false;
    expect(await sessions.attempt(request({ cookie }))).toMatchObject({ kind: 'authenticated' });
  });

  it('a full memory store is a 503, not a 500', async () => {
    const clock = testClock();
    const store = new MemorySessionStore({ clock: clock.now, maxRevocations: 1 });
    const { sessions } = makeSessions({}, { clock, store });
    await sessions.logOut(request({ cookie: await sessions.logIn(ALICE) }));
    const error = await sessions
      .logOut(request({ cookie: await sessions.logIn(ALICE) }))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SessionStoreFullError);
    expect(error).toBeInstanceOf(UnavailableError);
  });

  it('stays synchronous without a cookie and refuses a bad storeTimeoutMs by name', () => {
    const { sessions } = fixture();
    expect(sessions.attempt(request())).toEqual({ kind: 'anonymous' });
    expect(() => makeSessions({}, { storeTimeoutMs: 0 })).toThrow(
      expect.objectContaining({ option: 'storeTimeoutMs' }),
    );
  });
});
