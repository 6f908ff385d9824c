/**
 * The form login under a login throttle: a browser is sent back to the login page
 * with `?error=throttled`, any other client gets 429 with `Retry-After`; never 503,
 * never a 500, and nothing is hashed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formLogin, formLogout } from '../../src/session/index.js';
import type { LoginThrottleOptions } from '../../src/throttle/index.js';
import {
  cookiePair,
  fetchHarness,
  form,
  harnessOf,
  HARNESS_KINDS,
  makeSessions,
  request,
  type Harness,
  type Reply,
  type SessionsFixture,
} from '../session/support.js';
import { ALICE_PASSWORD, makeSite, MINUTE, throttledScopes, type Site } from './support.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe.each(HARNESS_KINDS)('formLogin under a login throttle (%s)', (kind) => {
  let site: Site;
  let fixture: SessionsFixture;
  let harness: Harness;
  const opened: Harness[] = [];
  /** The client address the Fetch handler is given (node and Fastify: the socket's, 127.0.0.1). */
  let address = '192.0.2.10';

  const open = async (throttle: LoginThrottleOptions = {}, loginUrl?: string): Promise<Harness> => {
    site = makeSite(throttle);
    fixture = makeSessions();
    const login = formLogin({
      sessions: fixture.sessions,
      credentials: site.authenticator,
      ...(loginUrl === undefined ? {} : { loginUrl }),
    });
    const logout = formLogout({ sessions: fixture.sessions });
    harness =
      kind === 'fetch'
        ? fetchHarness(login, logout, () => address)
        : await harnessOf(kind, login, logout);
    opened.push(harness);
    return harness;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((h) => h.close()));
  });

  /** Posts the login form with a fresh pre-login session and its CSRF token. */
  const post = async (
    fields: Readonly<Record<string, string>>,
    /** The Accept header, or `null` for none. */
    accept: string | null = BROWSER,
  ): Promise<Reply> => {
    const { token, setCookie } = await fixture.sessions.csrfToken(request());
    return harness.send('/login', {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
        cookie: cookiePair(setCookie ?? ''),
        ...(accept === null ? {} : { accept }),
      },
      body: form({ _csrf: token, ...fields }),
    });
  };

  const guess = (i: number, accept?: string | null) =>
    post({ username: 'alice', password: `guess-${i}` }, accept);

  it('a browser: five failures to ?error, then ?error=throttled (target kept), no session, nothing hashed', async () => {
    await open();
    for (let i = 0; i < 5; i++) {
      const reply = await guess(i);
      expect(reply.status).toBe(303);
      expect(reply.location).toBe('/login?error');
    }
    const reply = await post({ username: 'alice', password: 'guess-5', continue: '/me' });
    expect(reply.status).toBe(303);
    expect(reply.location).toBe('/login?error=throttled&continue=%2Fme');
    expect(reply.setCookies).toEqual([]);
    expect(site.encoder.matchesCalls).toBe(5);
    expect(throttledScopes(site.received)).toEqual(['username']);
  });

  it('a non-browser client: 429 with Retry-After, never 503', async () => {
    await open();
    for (let i = 0; i < 5; i++) expect((await guess(i, 'application/json')).status).toBe(303);
    for (const accept of ['application/json', null]) {
      const reply = await guess(9, accept);
      expect(reply.status).toBe(429);
      expect(reply.headers['retry-after']).toBe('60');
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(reply.setCookies).toEqual([]);
    }
    expect(site.encoder.matchesCalls).toBe(5);
  });

  it('the right password is refused while throttled (no oracle) and logs in after the delay', async () => {
    await open();
    for (let i = 0; i < 5; i++) await guess(i);
    const refused = await post({ username: 'alice', password: ALICE_PASSWORD });
    expect(refused.location).toBe('/login?error=throttled');
    expect(refused.setCookies).toEqual([]);
    site.clock.advance(MINUTE);
    const reply = await post({ username: 'alice', password: ALICE_PASSWORD });
    expect(reply.status).toBe(303);
    expect(reply.location).toBe('/');
    expect(reply.setCookies).toHaveLength(1);
  });

  it('a login page with its own query: the marker is added to it', async () => {
    await open({}, '/signin?lang=en');
    for (let i = 0; i < 5; i++) {
      expect((await guess(i)).location).toBe('/signin?lang=en&error');
    }
    expect((await guess(5)).location).toBe('/signin?lang=en&error=throttled');
  });

  it('one address guessing many usernames is slowed by the address counter', async () => {
    await open({ address: { max: 3 } });
    address = '198.51.100.20';
    for (let i = 0; i < 3; i++) {
      expect((await post({ username: `user-${i}`, password: 'x' })).location).toBe('/login?error');
    }
    expect((await post({ username: 'user-3', password: 'x' })).location).toBe(
      '/login?error=throttled',
    );
    expect(throttledScopes(site.received)).toEqual(['address']);
  });
});
