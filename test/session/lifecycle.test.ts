import { describe, expect, it } from 'vitest';
import { User } from '../../src/index.js';
import { formLogin, MemorySessionStore } from '../../src/session/index.js';
import {
  ALICE,
  answer,
  MALLORY,
  cookiePair,
  cookieValue,
  form,
  makeSessions,
  request,
  testClock,
  userStore,
  type SessionsFixture,
} from './support.js';

const sameOrigin = { 'sec-fetch-site': 'same-origin' };
const get = (cookie: string) => request({ cookie, headers: sameOrigin });

async function sessionId(fixture: SessionsFixture, cookie: string): Promise<string | undefined> {
  const user = await fixture.sessions.authenticate(get(cookie));
  const sid = user?.attributes['sessionId'];
  return typeof sid === 'string' ? sid : undefined;
}

/** The login page (GET) and the login form post a browser holding `cookie` makes. */
async function browserLogin(
  fixture: SessionsFixture,
  cookie: string | undefined,
  username: string,
): Promise<{ status: number; setCookie: string | null; planted: string }> {
  const page = await fixture.sessions.csrfToken(request({ cookie, headers: sameOrigin }));
  const planted = page.setCookie ?? cookie ?? '';
  const login = formLogin({ sessions: fixture.sessions, credentials: userStore(fixture.events) });
  const response = await answer(
    login,
    new Request('http://app.example/login', {
      method: 'POST',
      headers: {
        cookie: cookiePair(planted),
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
      },
      body: form({ username, password: `${username}-pw`, _csrf: page.token }),
    }),
  );
  return { status: response.status, setCookie: response.headers.get('set-cookie'), planted };
}

describe('the fresh-session rule', () => {
  it('login makes a new session: new id, nothing of the pre-login cookie kept', async () => {
    const fixture = makeSessions();
    const { status, setCookie, planted } = await browserLogin(fixture, undefined, 'alice');
    expect(status).toBe(303);
    const session = setCookie ?? '';
    const preLoginToken = (await fixture.sessions.csrfToken(get(planted))).token;
    const loggedInToken = (await fixture.sessions.csrfToken(get(session))).token;
    // Different session ids: the CSRF tokens (bound to the id) differ and do not cross over.
    expect(loggedInToken).not.toBe(preLoginToken);
    expect(await fixture.sessions.verifyCsrfToken(get(session), preLoginToken)).toBe(false);
    expect(await fixture.sessions.verifyCsrfToken(get(planted), loggedInToken)).toBe(false);
    expect(cookieValue(session)).not.toBe(cookieValue(planted));
    // The pre-login cookie did not become a login.
    expect(await fixture.sessions.authenticate(get(planted))).toBeNull();
    expect((await fixture.sessions.authenticate(get(session)))?.username).toBe('alice');
  });

  it('two logins of the same user are two sessions', async () => {
    const fixture = makeSessions();
    const a = await fixture.sessions.logIn(ALICE);
    const b = await fixture.sessions.logIn(ALICE);
    const [sidA, sidB] = [await sessionId(fixture, a), await sessionId(fixture, b)];
    expect(sidA).toMatch(/^[A-Za-z0-9_-]{22}$/u);
    expect(sidB).toMatch(/^[A-Za-z0-9_-]{22}$/u);
    expect(sidA).not.toBe(sidB);
  });

  it('session fixation: an anonymous cookie an attacker planted is not the victim session', async () => {
    const fixture = makeSessions();
    // The attacker fetches the login page and plants its pre-login cookie in the victim's browser.
    const attacker = (await fixture.sessions.csrfToken(request())).setCookie ?? '';
    const { status, setCookie } = await browserLogin(fixture, attacker, 'alice');
    expect(status).toBe(303);
    expect(setCookie).not.toBeNull();
    expect(cookieValue(setCookie ?? '')).not.toBe(cookieValue(attacker));
    // The attacker's cookie is still nobody's.
    expect(await fixture.sessions.authenticate(get(attacker))).toBeNull();
    expect(await fixture.sessions.authenticate(request({ method: 'POST', cookie: attacker }))).toBe(
      null,
    );
  });

  it("session fixation: a cookie logged in as the attacker stays the attacker's", async () => {
    const fixture = makeSessions();
    const attacker = await fixture.sessions.logIn(MALLORY);
    const { status, setCookie } = await browserLogin(fixture, attacker, 'alice');
    expect(status).toBe(303);
    expect((await fixture.sessions.authenticate(get(setCookie ?? '')))?.username).toBe('alice');
    expect((await fixture.sessions.authenticate(get(attacker)))?.username).toBe('mallory');
    expect(await sessionId(fixture, setCookie ?? '')).not.toBe(await sessionId(fixture, attacker));
  });
});

describe('logout', () => {
  it('replaying the cookie after logout is anonymous (session-revoked, logout)', async () => {
    const fixture = makeSessions();
    const cookie = await fixture.sessions.logIn(ALICE);
    const other = await fixture.sessions.logIn(ALICE);
    const deleting = await fixture.sessions.logOut(get(cookie));
    expect(deleting).toMatch(/^__Host-session=; /u);
    expect(fixture.received).toEqual([
      {
        type: 'logout',
        username: 'alice',
        request: { method: 'GET', path: '/', clientAddress: '127.0.0.1' },
      },
    ]);
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
    expect(fixture.received.at(-1)).toMatchObject({
      type: 'session-revoked',
      username: 'alice',
      reason: 'logout',
    });
    // Only that session ended.
    expect((await fixture.sessions.authenticate(get(other)))?.username).toBe('alice');
  });

  it('logout without a session, or of a bad cookie, still deletes the cookie', async () => {
    const fixture = makeSessions();
    expect(await fixture.sessions.logOut(request())).toBe(fixture.sessions.clearCookie());
    expect(await fixture.sessions.logOut(get('__Host-session=garbage'))).toBe(
      fixture.sessions.clearCookie(),
    );
    expect(fixture.received.filter((e) => e.type === 'logout')).toEqual([]);
  });

  it('accepts node and Fetch requests as well', async () => {
    const fixture = makeSessions();
    const cookie = await fixture.sessions.logIn(ALICE);
    await fixture.sessions.logOut(
      new Request('https://app.example/logout', { headers: { cookie: cookiePair(cookie) } }),
    );
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
  });

  it('the default store runs on the session clock (a revocation does not expire early)', async () => {
    // A clock well before the real time: a store reading Date.now would see every
    // revocation as long expired, and the logged-out cookie would work again.
    const fixture = makeSessions({}, { clock: testClock(Date.UTC(2001, 0, 1)) });
    const cookie = await fixture.sessions.logIn(ALICE);
    await fixture.sessions.logOut(get(cookie));
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
  });
});

describe('log out everywhere', () => {
  it('refuses every earlier cookie of the user (user-revoked); a later login works', async () => {
    const fixture = makeSessions();
    const first = await fixture.sessions.logIn(ALICE);
    fixture.clock.advance(60_000);
    const second = await fixture.sessions.logIn(ALICE);
    const mallory = await fixture.sessions.logIn(MALLORY);
    // The clock does not move: the same millisecond as the last login.
    await fixture.sessions.logOutEverywhere('alice');
    expect(await fixture.sessions.authenticate(get(first))).toBeNull();
    expect(await fixture.sessions.authenticate(get(second))).toBeNull();
    expect(fixture.received).toMatchObject([
      { type: 'session-revoked', username: 'alice', reason: 'user-revoked' },
      { type: 'session-revoked', username: 'alice', reason: 'user-revoked' },
    ]);
    expect((await fixture.sessions.authenticate(get(mallory)))?.username).toBe('mallory');
    const later = await fixture.sessions.logIn(ALICE);
    expect((await fixture.sessions.authenticate(get(later)))?.username).toBe('alice');
    // Still refused after the later login.
    expect(await fixture.sessions.authenticate(get(second))).toBeNull();
  });

  it('"log out my other sessions, keep me logged in" works on the real clock', async () => {
    const { sessions } = makeSessions({}, { clock: { now: Date.now, advance() {}, set() {} } });
    for (let i = 0; i < 20; i++) {
      const old = await sessions.logIn(ALICE);
      await sessions.logOutEverywhere('alice');
      const kept = await sessions.logIn(ALICE);
      expect(await sessions.authenticate(get(old))).toBeNull();
      expect((await sessions.authenticate(get(kept)))?.username).toBe('alice');
    }
  });

  it('the revocation lasts as long as the sessions it ends', async () => {
    const fixture = makeSessions({ maxAgeSeconds: 3600 });
    const cookie = await fixture.sessions.logIn(ALICE);
    fixture.clock.advance(1);
    await fixture.sessions.logOutEverywhere('alice');
    fixture.clock.advance(3599 * 1000 - 2);
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
    expect(fixture.received.at(-1)).toMatchObject({ reason: 'user-revoked' });
  });
});

describe('loadUser: the account is checked on every request', () => {
  function withAccounts(accounts: Map<string, User>) {
    return makeSessions({}, { loadUser: (name) => accounts.get(name) ?? null });
  }

  it('unchanged rights: the session works', async () => {
    const accounts = new Map([['alice', ALICE]]);
    const fixture = withAccounts(accounts);
    const cookie = await fixture.sessions.logIn(ALICE);
    expect((await fixture.sessions.authenticate(get(cookie)))?.username).toBe('alice');
  });

  it('a role change revokes the session (rights-changed), also when changed back', async () => {
    const accounts = new Map([['alice', ALICE]]);
    const fixture = withAccounts(accounts);
    const cookie = await fixture.sessions.logIn(ALICE);
    accounts.set('alice', ALICE.withRoles(['USER', 'ADMIN']));
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
    expect(fixture.received).toMatchObject([
      { type: 'session-revoked', username: 'alice', reason: 'rights-changed' },
    ]);
    accounts.set('alice', ALICE);
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
    // A new login picks up the current rights.
    accounts.set('alice', ALICE.withRoles([]));
    const fresh = await fixture.sessions.logIn(ALICE.withRoles([]));
    expect((await fixture.sessions.authenticate(get(fresh)))?.roles.size).toBe(0);
  });

  it('an authority change, a deleted user, or a failing lookup revokes the session', async () => {
    const accounts = new Map([['alice', ALICE]]);
    const fixture = withAccounts(accounts);
    const a = await fixture.sessions.logIn(ALICE);
    accounts.set('alice', ALICE.withAuthorities(['posts:write']));
    expect(await fixture.sessions.authenticate(get(a))).toBeNull();

    accounts.set('alice', ALICE);
    const b = await fixture.sessions.logIn(ALICE);
    accounts.delete('alice');
    expect(await fixture.sessions.authenticate(get(b))).toBeNull();

    const failing = makeSessions(
      {},
      {
        loadUser: () => {
          throw new Error('database down');
        },
      },
    );
    const c = await failing.sessions.logIn(ALICE);
    expect(await failing.sessions.authenticate(get(c))).toBeNull();
    expect(failing.received).toMatchObject([{ reason: 'rights-changed' }]);
  });
});

describe('idle timeout', () => {
  it('a session unused longer than the timeout ends; activity keeps it alive', async () => {
    const clock = testClock();
    const fixture = makeSessions(
      { idleTimeoutSeconds: 600 },
      { clock, store: new MemorySessionStore({ clock: clock.now }) },
    );
    const cookie = await fixture.sessions.logIn(ALICE);
    for (let i = 0; i < 5; i++) {
      clock.advance(600 * 1000);
      expect((await fixture.sessions.authenticate(get(cookie)))?.username).toBe('alice');
    }
    clock.advance(600 * 1000 + 1);
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
    expect(fixture.received).toMatchObject([{ reason: 'invalid-session' }]);
    // Activity afterwards does not revive it.
    clock.advance(1000);
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
  });

  it('counts from login when the session was never used', async () => {
    const fixture = makeSessions({ idleTimeoutSeconds: 600 });
    const cookie = await fixture.sessions.logIn(ALICE);
    fixture.clock.advance(600 * 1000 + 1);
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
  });

  it('a refused request (CSRF) is not activity: it cannot keep a session alive', async () => {
    const fixture = makeSessions({ idleTimeoutSeconds: 600 });
    const cookie = await fixture.sessions.logIn(ALICE);
    const crossSite = () =>
      request({ method: 'POST', cookie, headers: { 'sec-fetch-site': 'cross-site' } });
    for (let i = 0; i < 3; i++) {
      fixture.clock.advance(300 * 1000);
      expect(await fixture.sessions.authenticate(crossSite())).toBeNull();
    }
    // 900 s since login: idle, although cross-site requests came every 300 s.
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
  });

  it('activity never extends the absolute maxAge', async () => {
    const fixture = makeSessions({ idleTimeoutSeconds: 600, maxAgeSeconds: 3600 });
    const cookie = await fixture.sessions.logIn(ALICE);
    for (let t = 300; t < 3600; t += 300) {
      fixture.clock.advance(300 * 1000);
      expect(await fixture.sessions.authenticate(get(cookie))).not.toBeNull();
    }
    fixture.clock.advance(300 * 1000);
    expect(await fixture.sessions.authenticate(get(cookie))).toBeNull();
  });
});

describe('session size', () => {
  it('refuses at login a user whose session would not fit in a cookie', async () => {
    const fixture = makeSessions();
    const roles = Array.from({ length: 400 }, (_, i) => `ROLE_NUMBER_${i}`);
    const crowded = new User('crowded', '{noop}x').withRoles(roles);
    await expect(fixture.sessions.logIn(crowded)).rejects.toMatchObject({
      code: 'ERR_SESSION_TOO_LARGE',
    });
    const cookie = await fixture.sessions.logIn(ALICE);
    expect(cookie.length).toBeLessThan(4096);
  });
});
