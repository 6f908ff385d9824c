import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formLogin, formLogout } from '../../src/session/index.js';
import {
  cookiePair,
  form,
  harnessOf,
  HARNESS_KINDS,
  makeSessions,
  request,
  userStore,
  type Harness,
  type Reply,
  type SessionsFixture,
} from './support.js';

const FORM = 'application/x-www-form-urlencoded';

interface Page {
  readonly cookie: string;
  readonly token: string;
}

describe.each(HARNESS_KINDS)('formLogin / formLogout (%s)', (kind) => {
  let fixture: SessionsFixture;
  let harness: Harness;

  beforeAll(async () => {
    fixture = makeSessions();
    const credentials = userStore(fixture.events);
    const login = formLogin({ sessions: fixture.sessions, credentials, maxBodyBytes: 1024 });
    const logout = formLogout({ sessions: fixture.sessions });
    harness = await harnessOf(kind, login, logout);
  });
  afterAll(() => harness.close());

  /** GET /login: a pre-login session and its token, as the page would render them. */
  async function loginPage(): Promise<Page> {
    const { token, setCookie } = await fixture.sessions.csrfToken(request());
    return { cookie: cookiePair(setCookie ?? ''), token };
  }

  function post(
    page: Page | undefined,
    fields: Readonly<Record<string, string>>,
    headers: Readonly<Record<string, string>> = { 'sec-fetch-site': 'same-origin' },
    path: '/login' | '/logout' = '/login',
  ): Promise<Reply> {
    return harness.send(path, {
      headers: {
        'content-type': FORM,
        ...(page ? { cookie: page.cookie } : {}),
        ...headers,
      },
      body: form({ ...(page ? { _csrf: page.token } : {}), ...fields }),
    });
  }

  const alice = { username: 'alice', password: 'alice-pw' };

  async function userOf(setCookie: string | undefined): Promise<string | null> {
    const user = await fixture.sessions.authenticate(request({ cookie: setCookie ?? '' }));
    return user?.username ?? null;
  }

  describe('login', () => {
    it('success: 303 to the default target with a fresh session cookie', async () => {
      const before = fixture.received.length;
      const page = await loginPage();
      const reply = await post(page, alice);
      expect(reply.status).toBe(303);
      expect(reply.location).toBe('/');
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(reply.setCookies).toHaveLength(1);
      const [session] = reply.setCookies;
      expect(session).toMatch(/^__Host-session=Fe26\.2\*1\*.+; HttpOnly; SameSite=Lax; Secure$/u);
      expect(await userOf(session)).toBe('alice');
      expect(cookiePair(session ?? '')).not.toBe(page.cookie);
      expect(await userOf(page.cookie)).toBeNull();
      expect(fixture.received.slice(before)).toContainEqual(
        expect.objectContaining({
          type: 'authentication-success',
          username: 'alice',
          authenticationMethod: 'form',
        }),
      );
    });

    it('success: 303 to the saved same-origin target', async () => {
      for (const target of ['/me', '/me?tab=1&x=%2F', '/a/b#c', '/%E2%9C%93']) {
        const reply = await post(await loginPage(), { ...alice, continue: target });
        expect(reply.status).toBe(303);
        expect(reply.location).toBe(target);
        expect(await userOf(reply.setCookies[0])).toBe('alice');
      }
    });

    it('Origin only (no Sec-Fetch-Site): the own origin passes', async () => {
      const reply = await post(await loginPage(), alice, { origin: harness.origin });
      expect(reply.status).toBe(303);
      expect(reply.location).toBe('/');
    });

    it('wrong password and unknown user: the same 303 to /login?error, no cookie', async () => {
      const before = fixture.received.length;
      const wrong = await post(await loginPage(), { username: 'alice', password: 'nope' });
      const unknown = await post(await loginPage(), { username: 'nobody', password: 'nope' });
      for (const reply of [wrong, unknown]) {
        expect(reply.status).toBe(303);
        expect(reply.location).toBe('/login?error');
        expect(reply.setCookies).toEqual([]);
      }
      const comparable = (reply: Reply) => {
        const headers = { ...reply.headers };
        delete headers['date'];
        return { ...reply, headers };
      };
      expect(comparable(unknown)).toEqual(comparable(wrong));
      expect(fixture.received.slice(before)).toMatchObject([
        {
          type: 'authentication-failure',
          username: 'alice',
          authenticationMethod: 'form',
          reason: 'bad-credentials',
        },
        {
          type: 'authentication-failure',
          username: 'nobody',
          authenticationMethod: 'form',
          reason: 'unknown-user',
        },
      ]);
    });

    it('a failed login keeps a safe saved target, and drops an unsafe one', async () => {
      const bad = { username: 'alice', password: 'nope' };
      const kept = await post(await loginPage(), { ...bad, continue: '/me?tab=1' });
      expect(kept.location).toBe('/login?error&continue=%2Fme%3Ftab%3D1');
      const dropped = await post(await loginPage(), { ...bad, continue: '//evil.com' });
      expect(dropped.location).toBe('/login?error');
    });

    it('missing fields are a failed login, not an error', async () => {
      expect((await post(await loginPage(), { username: 'alice' })).location).toBe('/login?error');
      expect((await post(await loginPage(), {})).location).toBe('/login?error');
    });
  });

  describe('CSRF on the login form: 403, credentials never checked', () => {
    async function expectForbidden(reply: Promise<Reply>): Promise<void> {
      const before = fixture.received.length;
      const answered = await reply;
      expect(answered.status).toBe(403);
      expect(answered.location).toBeUndefined();
      expect(answered.setCookies).toEqual([]);
      expect(
        fixture.received.slice(before).filter((e) => e.type.startsWith('authentication')),
      ).toEqual([]);
    }

    it('token missing, wrong, or from another session', async () => {
      const page = await loginPage();
      await expectForbidden(post({ ...page, token: '' }, alice));
      await expectForbidden(post({ cookie: page.cookie, token: 'forged' }, alice));
      await expectForbidden(post({ ...page, token: `${page.token}x` }, alice));
      const other = await loginPage();
      await expectForbidden(post({ cookie: page.cookie, token: other.token }, alice));
      // No cookie at all: a token alone proves nothing.
      await expectForbidden(post(undefined, { ...alice, _csrf: page.token }));
      // The token form field is read from the body only.
      await expectForbidden(
        post(undefined, alice, { 'sec-fetch-site': 'same-origin', 'x-csrf-token': page.token }),
      );
    });

    it('cross-site or same-site, even with a valid token (login CSRF)', async () => {
      const page = await loginPage();
      await expectForbidden(post(page, alice, { 'sec-fetch-site': 'cross-site' }));
      await expectForbidden(post(page, alice, { 'sec-fetch-site': 'same-site' }));
      await expectForbidden(post(page, alice, { origin: 'https://evil.example' }));
      await expectForbidden(post(page, alice, { origin: 'null' }));
      // The same page still works from the own origin.
      expect((await post(page, alice)).status).toBe(303);
    });
  });

  describe('open redirects: every attempt goes to the default target', () => {
    const attempts = [
      '//evil.com',
      '///evil.com',
      '/\\evil.com',
      '/\\\\evil.com',
      '\\\\evil.com',
      'https://app@evil.com',
      'https://evil.com',
      'http:evil.com',
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      '\t//evil.com',
      ' /evil',
      '/\t/evil.com',
      '/\n/evil.com',
      '/me\r\nSet-Cookie: a=b',
      '/.//evil.com',
      '/a/..//evil.com',
      '/%2e%2e//evil.com',
      'evil.com',
      '',
    ];
    for (const target of attempts) {
      it(JSON.stringify(target), async () => {
        const reply = await post(await loginPage(), { ...alice, continue: target });
        expect(reply.status).toBe(303);
        expect(reply.location).toBe('/');
        expect(await userOf(reply.setCookies[0])).toBe('alice');
      });
    }

    it('"/%2F%2Fevil.com" stays a same-origin path', async () => {
      const reply = await post(await loginPage(), { ...alice, continue: '/%2F%2Fevil.com' });
      const location = reply.location ?? '';
      expect(location.startsWith('/')).toBe(true);
      expect(location.startsWith('//')).toBe(false);
      expect(new URL(location, harness.origin).origin).toBe(harness.origin);
    });
  });

  describe('logout', () => {
    async function loggedIn(): Promise<Page> {
      const reply = await post(await loginPage(), alice);
      const cookie = cookiePair(reply.setCookies[0] ?? '');
      const { token } = await fixture.sessions.csrfToken(request({ cookie }));
      return { cookie, token };
    }

    it('revokes the session, deletes the cookie and redirects', async () => {
      const session = await loggedIn();
      const reply = await post(session, {}, undefined, '/logout');
      expect(reply.status).toBe(303);
      expect(reply.location).toBe('/login?logout');
      expect(reply.setCookies).toEqual([fixture.sessions.clearCookie()]);
      expect(fixture.received.at(-1)).toMatchObject({ type: 'logout', username: 'alice' });
      // The old cookie, replayed, is anonymous.
      expect(await userOf(session.cookie)).toBeNull();
      expect(fixture.received.at(-1)).toMatchObject({
        type: 'session-revoked',
        reason: 'logout',
      });
    });

    it('refuses a forged or cross-site logout (403), and the session lives on', async () => {
      const session = await loggedIn();
      expect((await post({ ...session, token: 'forged' }, {}, undefined, '/logout')).status).toBe(
        403,
      );
      expect((await post(session, {}, { 'sec-fetch-site': 'cross-site' }, '/logout')).status).toBe(
        403,
      );
      expect(await userOf(session.cookie)).toBe('alice');
    });
  });
});
