import { describe, expect, it } from 'vitest';
import { OAuth2Error } from '../../src/oauth2/errors.js';
import { oauth2Login } from '../../src/oauth2/index.js';
import type { OAuth2LoginOptions } from '../../src/oauth2/routes/options.js';
import { SessionAuthenticator, SessionConfig } from '../../src/session/index.js';
import {
  CookieJar,
  fetchHarness,
  FakeClient,
  GOOD_CODE,
  PASSWORD,
  callback,
  sessionUser,
  startLogin,
} from './routes-support.js';

const sessions = new SessionAuthenticator(new SessionConfig({ passwords: PASSWORD }));
const google = new FakeClient('google');

function thrown(options: unknown): { code?: string; option?: string } {
  try {
    oauth2Login(options as OAuth2LoginOptions);
  } catch (error) {
    return error as { code?: string; option?: string };
  }
  throw new Error('expected a ConfigurationError');
}

describe('oauth2Login options', () => {
  it.each([
    ['options', null],
    ['sessions', { clients: [google] }],
    ['sessions', { clients: [google], sessions: {} }],
    ['repository', { sessions }],
    ['repository', { sessions, clients: [google], repository: { get: () => google } }],
    ['repository', { sessions, repository: {} }],
    ['clients', { sessions, clients: [] }],
    ['clients', { sessions, clients: [google, new FakeClient('google')] }],
    ['clients', { sessions, clients: [new FakeClient('bad id')] }],
    ['clients', { sessions, clients: [{ registrationId: 'x' }] }],
    ['mapper', { sessions, clients: [google], mapper: 'x' }],
    ['loginUrl', { sessions, clients: [google], loginUrl: '//evil.com/login' }],
    ['loginUrl', { sessions, clients: [google], loginUrl: 'https://evil.com/login' }],
    ['defaultTarget', { sessions, clients: [google], defaultTarget: 'javascript:alert(1)' }],
    ['authorizationPath', { sessions, clients: [google], authorizationPath: '/oauth2' }],
    ['callbackPath', { sessions, clients: [google], callbackPath: 'login/' }],
    ['callbackPath', { sessions, clients: [google], callbackPath: '/a/../b/' }],
    ['callbackPath', { sessions, clients: [google], callbackPath: '/oauth2/authorization/x/' }],
    ['transactionTtlSeconds', { sessions, clients: [google], transactionTtlSeconds: 5 }],
    ['transactionTtlSeconds', { sessions, clients: [google], transactionTtlSeconds: 1e6 }],
    ['maxPendingLogins', { sessions, clients: [google], maxPendingLogins: 0 }],
    ['passwords', { sessions, clients: [google], passwords: 'short' }],
    ['passwords', { sessions: { logIn: () => Promise.resolve('') }, clients: [google] }],
    [
      'dangerouslyAllowInsecureCookie',
      { sessions, clients: [google], dangerouslyAllowInsecureCookie: 'yes' },
    ],
    ['onFailure', { sessions, clients: [google], onFailure: 1 }],
    ['events', { sessions, clients: [google], events: {} }],
    ['clock', { sessions, clients: [google], clock: 1 }],
    ['loginUlr', { sessions, clients: [google], loginUlr: '/login' }],
  ])('%s is checked at construction', (option, options) => {
    const error = thrown(options);
    expect(error.code).toBe('ERR_INVALID_OPTION');
    expect(error.option).toBe(option);
  });

  it('does not mutate the caller’s options', () => {
    const options = Object.freeze({ sessions, clients: Object.freeze([google]) });
    expect(() => oauth2Login(options)).not.toThrow();
  });

  it('a repository: get() returning undefined or throwing "unknown registration" is 404', async () => {
    const login = oauth2Login({
      sessions,
      repository: {
        get: (id) => {
          if (id === 'google') return Promise.resolve(google);
          if (id === 'gone') {
            throw new OAuth2Error('ERR_OAUTH2_UNKNOWN_REGISTRATION', 'unknown');
          }
          return undefined;
        },
      },
    });
    const harness = fetchHarness(login);
    expect((await harness.send('/oauth2/authorization/gone')).status).toBe(404);
    expect((await harness.send('/oauth2/authorization/other')).status).toBe(404);
    expect((await harness.send('/oauth2/authorization/google')).status).toBe(302);
  });

  it('a repository failing otherwise: 500 without details', async () => {
    const login = oauth2Login({
      sessions,
      repository: {
        get: () => {
          throw new Error('database password=hunter2');
        },
      },
    });
    const reply = await fetchHarness(login).send('/oauth2/authorization/google');
    expect(reply.status).toBe(500);
    expect(reply.body).toBe('Internal Server Error');
  });

  it('custom paths, login URL and target parameter', async () => {
    const client = new FakeClient('corp');
    const login = oauth2Login({
      sessions,
      clients: [client],
      authorizationPath: '/auth/start/',
      callbackPath: '/auth/callback/',
      loginUrl: '/signin?x=1',
      defaultTarget: '/home',
      targetParameter: 'next',
    });
    const harness = fetchHarness(login);
    const jar = new CookieJar();
    const { state } = await harness.send('/auth/start/corp?next=/dash').then((reply) => {
      jar.apply(reply.setCookies);
      return { state: new URL(reply.location ?? '').searchParams.get('state') ?? '' };
    });
    const bad = await harness.send(`/auth/callback/corp?code=wrong&state=${state}`, {
      cookie: jar.header,
    });
    expect(bad.location).toBe('/signin?x=1&error=oauth2&next=%2Fdash');
    const again = await harness.send('/auth/start/corp', { cookie: jar.header });
    jar.apply(again.setCookies);
    const s2 = new URL(again.location ?? '').searchParams.get('state') ?? '';
    const ok = await harness.send(`/auth/callback/corp?code=${GOOD_CODE}&state=${s2}`, {
      cookie: jar.header,
    });
    jar.apply(ok.setCookies);
    expect(ok.location).toBe('/home');
    expect(await sessionUser(sessions, jar)).toBe('corp:corp-subject');
    expect((await harness.send('/oauth2/authorization/corp')).handled).toBe(false);
  });

  it('explicit passwords for custom sessions', async () => {
    const cookies: string[] = [];
    const login = oauth2Login({
      sessions: {
        logIn: (user) => {
          cookies.push(user.username);
          return Promise.resolve('app-session=1; Path=/');
        },
      },
      passwords: { 1: 'x'.repeat(32), 2: 'y'.repeat(40) },
      clients: [google],
    });
    const harness = fetchHarness(login);
    const jar = new CookieJar();
    const { state } = await startLogin(harness, jar);
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    expect(reply.setCookies).toContain('app-session=1; Path=/');
    expect(cookies).toEqual(['google:google-subject']);
  });
});
