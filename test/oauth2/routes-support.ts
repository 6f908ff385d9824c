import { expect } from 'vitest';
import { SecurityEvents, type SecurityEvent } from '../../src/index.js';
import { OAuth2Error } from '../../src/oauth2/errors.js';
import { oauth2Login } from '../../src/oauth2/index.js';
import type { SecurityRoutes } from '../../src/index.js';
import type { OAuth2LoginOptions } from '../../src/oauth2/routes/options.js';
import type {
  OAuth2ClientLike,
  OAuth2Expectations,
  OAuth2LoginResult,
  OAuth2Tokens,
  OAuth2User,
} from '../../src/oauth2/types.js';
import { SessionAuthenticator, SessionConfig } from '../../src/session/index.js';
import {
  CookieJar,
  harnessOf,
  sessionUser,
  setCookieOf,
  type Harness,
  type Reply,
} from './routes-support-http.js';

import { NOW, testClock, type TestClock } from '../support/clock.js';

export { NOW, testClock, type TestClock };
export const PASSWORD = 'password-for-the-oauth2-route-tests-0123456789';
/** The code the fake provider accepts. */
export const GOOD_CODE = 'good-code';

/** What the fake client was asked to check. */
export interface CallbackCall {
  readonly url: URL;
  readonly expected: OAuth2Expectations;
}

/**
 * A client honouring the `OAuth2ClientLike` contract without a provider: fresh random
 * values per authorization URL; the callback checks the state it is given against the
 * URL's (as oauth4webapi does), turns `error=` into a provider error and accepts
 * {@link GOOD_CODE} only.
 */
export class FakeClient implements OAuth2ClientLike {
  readonly registrationId: string;
  issuer: string;
  readonly calls: CallbackCall[] = [];
  /** The user the next successful callback returns. */
  user: OAuth2User;
  /** Thrown by the next callbacks instead of validating, when set. */
  failure: Error | undefined = undefined;
  /** Thrown by `authorizationUrl`, when set. */
  startFailure: Error | undefined = undefined;
  readonly tokens: OAuth2Tokens = {
    accessToken: 'provider-access-token',
    tokenType: 'Bearer',
    expiresIn: 3600,
    refreshToken: 'provider-refresh-token',
    idToken: undefined,
    scope: 'openid',
  };
  #count = 0;

  constructor(registrationId: string, subject = `${registrationId}-subject`) {
    this.registrationId = registrationId;
    this.issuer = `https://${registrationId}.idp.example`;
    this.user = oauth2User(registrationId, subject);
  }

  authorizationUrl(): Promise<readonly [URL, string, string, string | undefined]> {
    if (this.startFailure !== undefined) return Promise.reject(this.startFailure);
    this.#count++;
    const state = `${this.registrationId}-state-${this.#count}-${Math.random().toString(36).slice(2)}`;
    const url = new URL(`${this.issuer}/authorize`);
    url.searchParams.set('client_id', 'app');
    url.searchParams.set('state', state);
    return Promise.resolve([url, state, `verifier-${this.#count}`, `nonce-${this.#count}`]);
  }

  handleCallback(
    currentUrl: URL | string,
    expected: OAuth2Expectations,
  ): Promise<OAuth2LoginResult> {
    const url = new URL(currentUrl);
    this.calls.push({ url, expected });
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const params = url.searchParams;
    if (params.get('state') !== expected.state) {
      return Promise.reject(new OAuth2Error('ERR_OAUTH2_STATE', 'unexpected state'));
    }
    const error = params.get('error');
    if (error !== null) {
      return Promise.reject(
        new OAuth2Error('ERR_OAUTH2_PROVIDER_ERROR', 'The provider refused', {
          providerError: error,
        }),
      );
    }
    if (params.get('code') !== GOOD_CODE) {
      return Promise.reject(new OAuth2Error('ERR_OAUTH2_TOKEN_EXCHANGE', 'bad code'));
    }
    return Promise.resolve({ user: this.user, tokens: this.tokens });
  }

  refresh(): Promise<OAuth2Tokens> {
    return Promise.resolve(this.tokens);
  }
}

/** A provider's user. */
export function oauth2User(
  provider: string,
  subject: string,
  extra: Partial<OAuth2User> = {},
): OAuth2User {
  return {
    provider,
    subject,
    email: `${subject}@example.com`,
    emailVerified: false,
    name: undefined,
    picture: undefined,
    claims: Object.freeze({ sub: subject }),
    ...extra,
  };
}

/** Everything a routes test needs. */
export interface Fixture {
  readonly login: SecurityRoutes;
  readonly sessions: SessionAuthenticator;
  readonly google: FakeClient;
  readonly github: FakeClient;
  readonly clock: TestClock;
  readonly received: SecurityEvent[];
  readonly failures: string[];
}

/** The routes over a fake google and github, sessions on a manual clock, events recorded. */
export function makeFixture(
  options: Partial<OAuth2LoginOptions> = {},
  sessionOptions: { insecure?: boolean } = {},
): Fixture {
  const clock = testClock();
  const events = new SecurityEvents();
  const received: SecurityEvent[] = [];
  events.on('*', (event) => {
    received.push(event);
  });
  const failures: string[] = [];
  const sessions = new SessionAuthenticator(
    new SessionConfig({
      passwords: PASSWORD,
      ...(sessionOptions.insecure === true ? { dangerouslyAllowInsecureCookie: true } : {}),
    }),
    { events, clock: clock.now },
  );
  const google = new FakeClient('google');
  const github = new FakeClient('github');
  const login = oauth2Login({
    clients: [google, github],
    sessions,
    events,
    clock: clock.now,
    onFailure: (error) => failures.push(error.code),
    ...options,
  });
  return { login, sessions, google, github, clock, received, failures };
}

/**
 * The refusal every failure gets: a 303 to the login page with the flag (and nothing
 * else), no session cookie and no session in `jar`, the typed code given to
 * `onFailure`, an `authentication-failure` event (method `oauth2`) and no success.
 */
export async function refusedCheck(
  fixture: Fixture,
  jar: CookieJar,
  reply: Reply,
  code: string,
  before: number,
  location = '/login?error=oauth2',
): Promise<void> {
  expect(reply.status).toBe(303);
  expect(reply.location).toBe(location);
  expect(reply.body).toBe('');
  expect(setCookieOf(reply, '__Host-session')).toBeUndefined();
  expect(await sessionUser(fixture.sessions, jar)).toBeNull();
  expect(fixture.failures.at(-1)).toBe(code);
  const events = fixture.received.slice(before);
  expect(events).toContainEqual({
    type: 'authentication-failure',
    username: undefined,
    authenticationMethod: 'oauth2',
    reason: expect.any(String) as unknown,
    request: expect.objectContaining({ method: 'GET' }) as unknown,
  });
  expect(events.some((e) => e.type === 'authentication-success')).toBe(false);
}

/** A fresh fixture, its harness of `kind` and an empty cookie jar (close the harness). */
export async function routeSetup(
  kind: Harness['kind'],
  options: Partial<OAuth2LoginOptions> = {},
): Promise<{ fixture: Fixture; harness: Harness; jar: CookieJar }> {
  const fixture = makeFixture(options);
  return { fixture, harness: await harnessOf(kind, fixture.login), jar: new CookieJar() };
}

export * from './routes-support-http.js';
