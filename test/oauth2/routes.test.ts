import { unsealData } from 'iron-session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityRequest, User } from '../../src/index.js';
import {
  derivePasswords,
  readTransactions,
  type TransactionCookieSettings,
} from '../../src/oauth2/transaction.js';
import {
  callback,
  CookieJar,
  fetchHarness,
  type Fixture,
  GOOD_CODE,
  type Harness,
  HARNESS_KINDS,
  harnessOf,
  makeFixture,
  NOW,
  PASSWORD,
  sessionUser,
  setCookieOf,
  startLogin,
} from './routes-support.js';

const TX = '__Host-oauth2';

function cookieSettings(fixture: Fixture, ttlSeconds = 600): TransactionCookieSettings {
  return {
    passwords: derivePasswords('passwords', PASSWORD),
    secure: true,
    ttlSeconds,
    maxPending: 3,
    clock: fixture.clock.now,
  };
}

describe.each(HARNESS_KINDS)('oauth2Login routes (%s)', (kind) => {
  let fixture: Fixture;
  let harness: Harness;

  beforeAll(async () => {
    fixture = makeFixture();
    harness = await harnessOf(kind, fixture.login);
  });
  afterAll(() => harness.close());

  describe('GET /oauth2/authorization/{registrationId}', () => {
    it('302 to the provider with a sealed, short-lived, HttpOnly, Lax, __Host- cookie', async () => {
      const jar = new CookieJar();
      const { reply, state } = await startLogin(
        harness,
        jar,
        'google',
        '?continue=%2Fme%3Ftab%3D1',
      );
      expect(reply.status).toBe(302);
      expect(reply.location).toMatch(/^https:\/\/google\.idp\.example\/authorize\?/u);
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(reply.setCookies).toHaveLength(1);
      const cookie = setCookieOf(reply, TX) ?? '';
      expect(cookie).toMatch(
        /^__Host-oauth2=Fe26\.2\*1\*[^;]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/u,
      );
      expect(cookie).not.toMatch(/domain=/iu);
      // Nothing readable in the cookie: not the state, not the verifier.
      expect(cookie).not.toContain(state);
      expect(cookie).not.toContain('verifier-');

      const stored = await readTransactions(cookieSettings(fixture), jar.get(TX) ?? '');
      expect(stored).toHaveLength(1);
      const [transaction] = stored ?? [];
      expect(transaction).toEqual({
        id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/u) as unknown,
        registrationId: 'google',
        issuer: 'https://google.idp.example',
        state,
        pkceVerifier: expect.stringMatching(/^verifier-\d+$/u) as unknown,
        nonce: expect.stringMatching(/^nonce-\d+$/u) as unknown,
        returnTarget: '/me?tab=1',
        createdAt: NOW,
      });
    });

    it('the seal is not readable with the session password itself (a separate key)', async () => {
      const jar = new CookieJar();
      await startLogin(harness, jar);
      // iron-session answers {} for a seal it cannot open.
      expect(await unsealData(jar.get(TX) ?? '', { password: { 1: PASSWORD } })).toEqual({});
      const opened = await unsealData(jar.get(TX) ?? '', {
        password: derivePasswords('passwords', PASSWORD),
      });
      expect(opened).toHaveProperty('v', 1);
    });

    it('fresh values each time: two logins never share a state or a transaction id', async () => {
      const jar = new CookieJar();
      const a = await startLogin(harness, jar);
      const b = await startLogin(harness, jar);
      expect(a.state).not.toBe(b.state);
      const stored = (await readTransactions(cookieSettings(fixture), jar.get(TX) ?? '')) ?? [];
      expect(stored.map((t) => t.state)).toEqual([b.state, a.state]);
      expect(new Set(stored.map((t) => t.id)).size).toBe(2);
    });

    it('a repeated continue parameter is refused (400) without a transaction', async () => {
      const reply = await harness.send('/oauth2/authorization/google?continue=/a&continue=/b');
      expect(reply.status).toBe(400);
      expect(reply.setCookies).toEqual([]);
    });
  });

  describe('GET /login/oauth2/code/{registrationId}', () => {
    it('success: a fresh session, the transaction consumed, 303 to the saved target', async () => {
      const before = fixture.received.length;
      const jar = new CookieJar();
      const { state } = await startLogin(harness, jar, 'google', '?continue=/me');
      const stored = (await readTransactions(cookieSettings(fixture), jar.get(TX) ?? '')) ?? [];
      const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
      expect(reply.status).toBe(303);
      expect(reply.location).toBe('/me');
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(reply.headers['referrer-policy']).toBe('no-referrer');
      expect(setCookieOf(reply, TX)).toMatch(/^__Host-oauth2=; Path=\/; Max-Age=0; /u);
      expect(setCookieOf(reply, '__Host-session')).toMatch(/^__Host-session=Fe26\.2\*/u);
      expect(jar.get(TX)).toBeUndefined();
      expect(await sessionUser(fixture.sessions, jar)).toBe('google:google-subject');

      const call = fixture.google.calls.at(-1);
      expect(call?.expected).toEqual({
        state,
        pkceVerifier: stored[0]?.pkceVerifier,
        nonce: stored[0]?.nonce,
      });
      expect(call?.url.searchParams.get('code')).toBe(GOOD_CODE);
      expect(call?.url.pathname).toBe('/login/oauth2/code/google');
      expect(fixture.received.slice(before)).toContainEqual({
        type: 'authentication-success',
        username: 'google:google-subject',
        authenticationMethod: 'oauth2',
        request: expect.objectContaining({
          method: 'GET',
          path: '/login/oauth2/code/google',
        }) as unknown,
      });
    });

    it('the default mapper gives role USER and never takes the (unverified) email', async () => {
      const jar = new CookieJar();
      const { state } = await startLogin(harness, jar);
      await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
      const user = await fixture.sessions.authenticate(
        createSecurityRequest({
          method: 'GET',
          url: '/',
          header: (n) => (n === 'cookie' ? jar.header : undefined),
        }),
      );
      expect([...(user?.roles ?? [])]).toEqual(['USER']);
      expect(user?.username).not.toContain('@');
    });

    it('the default target without a continue parameter', async () => {
      const jar = new CookieJar();
      const { state } = await startLogin(harness, jar, 'github');
      const reply = await callback(harness, jar, 'github', `code=${GOOD_CODE}&state=${state}`);
      expect(reply.location).toBe('/');
      expect(await sessionUser(fixture.sessions, jar)).toBe('github:github-subject');
    });
  });

  describe('open redirects: the return target is a same-origin path or the default', () => {
    it.each([
      '//evil.com',
      '/\\evil.com',
      'https://app@evil.com',
      'https://evil.com/',
      'javascript:alert(1)',
      '/.//evil.com',
      '/%2e%2e//evil.com',
      '\t//evil.com',
      '/me\r\nSet-Cookie: x=y',
    ])('%j → /', async (target) => {
      const jar = new CookieJar();
      const { state } = await startLogin(
        harness,
        jar,
        'google',
        `?continue=${encodeURIComponent(target)}`,
      );
      const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
      expect(reply.status).toBe(303);
      expect(reply.location).toBe('/');
    });

    it('a target too long for the cookie → the default (the login still works)', async () => {
      const jar = new CookieJar();
      const { state } = await startLogin(harness, jar, 'google', `?continue=/${'a'.repeat(1500)}`);
      const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
      expect(reply.location).toBe('/');
      expect(await sessionUser(fixture.sessions, jar)).toBe('google:google-subject');
    });
  });

  describe('routing', () => {
    it('an unknown or malformed registration id is 404, without a cookie', async () => {
      for (const path of [
        '/oauth2/authorization/unknown',
        '/oauth2/authorization/',
        '/oauth2/authorization/goo%20gle',
        '/login/oauth2/code/unknown?code=x&state=y',
      ]) {
        const reply = await harness.send(path);
        expect([path, reply.status]).toEqual([path, 404]);
        expect(reply.setCookies).toEqual([]);
      }
    });

    it('another method than GET is 405 (Allow: GET)', async () => {
      for (const path of ['/oauth2/authorization/google', '/login/oauth2/code/google']) {
        const reply = await harness.send(path, { method: 'POST' });
        expect(reply.status).toBe(405);
        expect(reply.headers['allow']).toBe('GET');
        expect(reply.setCookies).toEqual([]);
      }
    });

    it('other paths are left to the application', async () => {
      for (const path of [
        '/',
        '/login',
        '/oauth2/authorizationx/google',
        '/login/oauth2/google',
        // Only one segment below a prefix is a registration id (`paths`' `{registrationId}`).
        '/oauth2/authorization/google/x',
        '/login/oauth2/code/google/x?code=x&state=y',
      ]) {
        expect((await harness.send(path)).handled).toBe(false);
      }
    });
  });
});

describe('oauth2Login cookie settings', () => {
  it('transactionTtlSeconds sets Max-Age', async () => {
    const fixture = makeFixture({ transactionTtlSeconds: 120 });
    const reply = await startLogin(fetchHarness(fixture.login), new CookieJar());
    expect(setCookieOf(reply.reply, TX)).toContain('; Max-Age=120;');
  });

  it('insecure development sessions: `oauth2` without Secure', async () => {
    const fixture = makeFixture({}, { insecure: true });
    const { reply } = await startLogin(fetchHarness(fixture.login), new CookieJar());
    const cookie = setCookieOf(reply, 'oauth2') ?? '';
    expect(cookie).toMatch(
      /^oauth2=Fe26\.2\*1\*[^;]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/u,
    );
  });

  it('a custom mapper decides the user and sees the provider tokens', async () => {
    const seen: unknown[] = [];
    const fixture = makeFixture({
      mapper: (user, context) => {
        seen.push({
          subject: user.subject,
          id: context.registrationId,
          rt: context.tokens.refreshToken,
        });
        return new User(`account-${user.subject}`, '', ['ADMIN']);
      },
    });
    const harness = fetchHarness(fixture.login);
    const jar = new CookieJar();
    const { state } = await startLogin(harness, jar, 'github');
    const reply = await callback(harness, jar, 'github', `code=${GOOD_CODE}&state=${state}`);
    expect(reply.status).toBe(303);
    expect(await sessionUser(fixture.sessions, jar)).toBe('account-github-subject');
    expect(seen).toEqual([
      { subject: 'github-subject', id: 'github', rt: 'provider-refresh-token' },
    ]);
  });
});
