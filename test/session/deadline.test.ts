import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, SecurityTransform, type User } from '../../src/index.js';
import { MemoryAuthenticator } from '../../src/authentication/index.js';
import { formLogin, formLogout } from '../../src/session/index.js';
import { ALICE, answer, cookiePair, form, makeSessions, request } from './support.js';

const never = <T>(): Promise<T> =>
  new Promise<T>(() => {
    // never settles
  });

/** Tracks whether a promise settled, so a hang fails an assertion instead of the test timeout. */
function track<T>(value: T | Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let settled = false;
  const result = Promise.resolve(value).finally(() => {
    settled = true;
  });
  return { settled: () => settled, result };
}

describe('a session loadUser that never settles', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fails the request closed with 503 at loadUserTimeoutMs and keeps the session', async () => {
    let hang = true;
    let called!: () => void;
    const loading = new Promise<void>((resolve) => {
      called = resolve;
    });
    const fixture = makeSessions(
      {},
      {
        loadUser: (name): User | null | Promise<User | null> => {
          called();
          if (hang) return never();
          return name === 'alice' ? ALICE : null;
        },
        loadUserTimeoutMs: 500,
      },
    );
    const transform = new SecurityTransform({ events: fixture.events }).configAuthenticator(
      () => fixture.sessions,
    );
    const cookie = await fixture.sessions.logIn(ALICE);
    const outcome = track(transform.handle(request({ cookie })));
    await loading; // the cookie is unsealed (real crypto) before the loader is asked
    await vi.advanceTimersByTimeAsync(499);
    expect(outcome.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.settled()).toBe(true);
    const result = await outcome.result;
    expect(!result.proceed && result.response.status).toBe(503);
    expect(!result.proceed && result.response.headers['retry-after']).toBe('5');
    expect(fixture.received).toEqual([
      {
        type: 'deadline-exceeded',
        operation: 'load-user',
        timeoutMs: 500,
        request: expect.objectContaining({ path: '/' }) as unknown,
      },
    ]);
    // Not revoked: once the loader answers again, the same cookie works.
    hang = false;
    const again = await transform.handle(request({ cookie }));
    expect(again.proceed && again.user?.username).toBe('alice');
  });

  it('refuses a loadUserTimeoutMs that is not whole milliseconds in range', () => {
    expect(() => makeSessions({}, { loadUserTimeoutMs: 0 })).toThrow(ConfigurationError);
    expect(() => makeSessions({}, { loadUserTimeoutMs: 600_001 })).toThrow(/loadUserTimeoutMs/u);
  });
});

describe('form login whose password encoder never settles', () => {
  it('answers 503 with Retry-After (not 500, not a hang) and sets no session', async () => {
    const fixture = makeSessions();
    const hanging = {
      encode: () => Promise.resolve('{hang}x'),
      matches: () => never<boolean>(),
      upgradeEncoding: () => false,
    };
    const credentials = new MemoryAuthenticator({
      passwordEncoder: hanging,
      users: [ALICE],
      cache: false,
      passwordEncoderTimeoutMs: 50,
    });
    const login = formLogin({ sessions: fixture.sessions, credentials });
    const { token, setCookie } = await fixture.sessions.csrfToken(request());
    const response = await answer(
      login,
      new Request('https://app.example/login', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'sec-fetch-site': 'same-origin',
          cookie: cookiePair(setCookie ?? ''),
        },
        body: form({ _csrf: token, username: 'alice', password: 'alice-pw' }),
      }),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.headers.get('set-cookie')).toBeNull();
  });
});

describe('form login and logout whose dependencies never answer', () => {
  const post = async (
    fixture: ReturnType<typeof makeSessions>,
    fields: Readonly<Record<string, string>>,
  ): Promise<Request> => {
    const { token, setCookie } = await fixture.sessions.csrfToken(request());
    return new Request('https://app.example/login', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
        cookie: cookiePair(setCookie ?? ''),
      },
      body: form({ _csrf: token, ...fields }),
    });
  };

  it('a custom credential check that never settles: 503 at timeoutMs, nobody logged in', async () => {
    const fixture = makeSessions();
    const login = formLogin({
      sessions: fixture.sessions,
      credentials: { verifyCredentials: () => never<User | null>() },
      timeoutMs: 50,
    });
    const response = await answer(login, await post(fixture, { username: 'alice', password: 'x' }));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(fixture.received).toContainEqual(
      expect.objectContaining({ type: 'deadline-exceeded', operation: 'form-login' }),
    );
  });

  it('a session store that never answers at logout: 503 at timeoutMs', async () => {
    const fixture = makeSessions();
    const cookie = await fixture.sessions.logIn(ALICE);
    const { token } = await fixture.sessions.csrfToken(request({ cookie }));
    fixture.sessions.logOut = () => never<string>();
    const logout = formLogout({ sessions: fixture.sessions, timeoutMs: 50 });
    const response = await answer(
      logout,
      new Request('https://app.example/logout', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'sec-fetch-site': 'same-origin',
          cookie: cookiePair(cookie),
        },
        body: form({ _csrf: token }),
      }),
    );
    expect(response.status).toBe(503);
  });

  it('timeoutMs is validated', () => {
    const fixture = makeSessions();
    expect(() =>
      formLogin({
        sessions: fixture.sessions,
        credentials: { verifyCredentials: () => Promise.resolve(null) },
        timeoutMs: 0,
      }),
    ).toThrow(expect.objectContaining({ option: 'timeoutMs' }));
  });
});
