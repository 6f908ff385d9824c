import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { AuthenticationManager } from '../../src/authentication/index.js';
import { AuthorizationManager } from '../../src/authorization/index.js';
import {
  AuthenticatedUser,
  Outcome,
  SecurityEvents,
  User,
  attemptWith,
  authenticateWith,
  type AuthenticationOutcome,
  type Authenticator,
  type SecurityEvent,
} from '../../src/core/index.js';
import { SecurityTransform, type SecurityOutcome } from '../../src/transform/index.js';
import { requestWith } from '../authentication/helpers.js';

const alice = AuthenticatedUser.from(new User('alice', '', ['USER']), {
  authenticationMethod: 'api-key',
});

const challenge = {
  scheme: 'ApiKey',
  error: 'invalid_token',
  description: 'The key is not known',
} as const;

/** An authenticator answering `outcome` from attempt() (and never a user from getUser). */
function answering(outcome: unknown, method = 'api-key'): Authenticator {
  return {
    authenticationMethod: method,
    getUser: () => null,
    attempt: () => outcome as AuthenticationOutcome,
  };
}

async function run(
  transform: SecurityTransform,
  authorization?: string,
): Promise<
  Extract<SecurityOutcome, { proceed: false }> | Extract<SecurityOutcome, { proceed: true }>
> {
  return transform.handle(requestWith(authorization));
}

let warn: MockInstance<typeof process.emitWarning>;
beforeEach(() => {
  warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
});
afterEach(() => {
  warn.mockRestore();
});

describe('attemptWith', () => {
  it('prefers attempt() over authenticate() and getUser()', () => {
    const authenticator: Authenticator = {
      getUser: () => new User('mallory', ''),
      authenticate: () => AuthenticatedUser.from(new User('mallory', '')),
      attempt: () => Outcome.failed('bad-credentials'),
    };
    expect(attemptWith(authenticator, requestWith())).toEqual({
      kind: 'failed',
      reason: 'bad-credentials',
      username: undefined,
      challenge: undefined,
    });
    // Its user, for callers wanting only a user: none.
    expect(authenticateWith(authenticator, requestWith())).toBeNull();
  });

  it('bridges getUser: a user is authenticated with the method, null is anonymous', () => {
    const user = new User('bob', '', ['USER']);
    const found = attemptWith(
      {
        authenticationMethod: 'custom-x',
        getUser: (r) => (r.header('authorization') ? user : null),
      },
      requestWith('Key 1'),
    ) as AuthenticationOutcome;
    expect(found.kind).toBe('authenticated');
    expect(found.kind === 'authenticated' && found.user.authenticationMethod).toBe('custom-x');
    expect(attemptWith({ getUser: () => null }, requestWith())).toEqual({ kind: 'anonymous' });
  });

  it.each([
    ['undefined', undefined],
    ['a User instead of an outcome', new User('mallory', '', ['ADMIN'])],
    ['an unknown kind', { kind: 'admin' }],
    [
      'an authenticated look-alike without an AuthenticatedUser',
      { kind: 'authenticated', user: { username: 'mallory', roles: new Set(['ADMIN']) } },
    ],
  ])('an attempt() answering %s is a TypeError, never a user', (_, value) => {
    expect(() => attemptWith(answering(value), requestWith())).toThrow(TypeError);
  });

  it('outcomes are frozen', () => {
    const failed = Outcome.failed('invalid-token', { username: 'x', challenge });
    expect(Object.isFrozen(failed)).toBe(true);
    expect(Object.isFrozen(failed.challenge)).toBe(true);
    expect(Object.isFrozen(Outcome.refused('csrf'))).toBe(true);
    expect(Object.isFrozen(Outcome.authenticated(alice))).toBe(true);
  });
});

describe('SecurityTransform acts on each outcome', () => {
  const transformWith = (authenticator: Authenticator, events = new SecurityEvents()) =>
    new SecurityTransform({
      authenticator,
      authorizer: AuthorizationManager.requestMatcher({ challenges: ['ApiKey realm="api"'] }),
      events,
    });

  it('authenticated: the user proceeds', async () => {
    const result = await run(transformWith(answering(Outcome.authenticated(alice))));
    expect(result.proceed).toBe(true);
    expect(result.user?.username).toBe('alice');
  });

  it('failed: 401 whose challenge carries the refused credential’s error', async () => {
    const result = await run(
      transformWith(answering(Outcome.failed('bad-credentials', { challenge }))),
    );
    expect(result.proceed).toBe(false);
    if (result.proceed) return;
    expect(result.response.status).toBe(401);
    expect(result.response.headers['www-authenticate']).toBe(
      'ApiKey realm="api", error="invalid_token", error_description="The key is not known"',
    );
  });

  it('anonymous: 401 with the plain challenge', async () => {
    const result = await run(transformWith(answering(Outcome.anonymous())));
    expect(result.proceed).toBe(false);
    if (result.proceed) return;
    expect(result.response.status).toBe(401);
    expect(result.response.headers['www-authenticate']).toBe('ApiKey realm="api"');
  });

  it('refused: 403, never a 401 or a login redirect', async () => {
    const result = await run(transformWith(answering(Outcome.refused('csrf'))));
    expect(result.proceed).toBe(false);
    if (result.proceed) return;
    expect(result.response.status).toBe(403);
    expect(result.response.headers['www-authenticate']).toBeUndefined();
  });

  it('an attempt() answering garbage is a failed authentication (event reason other), never a user', async () => {
    const events = new SecurityEvents();
    const seen: SecurityEvent[] = [];
    events.on('*', (event) => {
      seen.push(event);
    });
    const result = await run(
      transformWith(answering({ kind: 'authenticated', user: { username: 'root' } }), events),
    );
    expect(result.proceed).toBe(false);
    expect(result.user).toBeNull();
    expect(seen).toContainEqual(
      expect.objectContaining({ type: 'authentication-failure', reason: 'other' }),
    );
  });

  it('a custom onDenied receives the outcome', async () => {
    const received: (AuthenticationOutcome | undefined)[] = [];
    const transform = new SecurityTransform({
      authenticator: answering(Outcome.failed('expired-token', { challenge })),
      authorizer: {
        authorize: () => ({ granted: false, reason: 'unauthenticated', rule: 'test' }),
        onDenied: (_decision, _request, authentication) => {
          received.push(authentication);
          return { status: 401, headers: {}, body: '' };
        },
      },
    });
    await run(transform);
    expect(received).toEqual([
      expect.objectContaining({ kind: 'failed', reason: 'expired-token' }),
    ]);
  });

  it('without onDenied, a refused request denied by the rules gets 403', async () => {
    const transform = new SecurityTransform({
      authenticator: answering(Outcome.refused('csrf')),
      authorizer: {
        authorize: () => ({ granted: false, reason: 'unauthenticated', rule: 'test' }),
      },
    });
    const result = await run(transform);
    expect(!result.proceed && result.response.status).toBe(403);
  });
});

describe('anyOf ranks the outcomes', () => {
  const refused = answering(Outcome.refused('csrf'), 'session');
  const failed = answering(Outcome.failed('invalid-token', { challenge }), 'jwt');
  const anonymous = answering(Outcome.anonymous(), 'basic');
  const authenticated = answering(Outcome.authenticated(alice), 'api-key');

  const attempt = (...list: Authenticator[]) =>
    AuthenticationManager.anyOf(...list).attempt?.(requestWith());

  it('the first authenticated outcome wins over refusals and failures before it', () => {
    expect(attempt(refused, failed, authenticated)).toEqual(Outcome.authenticated(alice));
  });

  it('without a user, a refusal of any member wins (a CSRF failure stays a 403)', () => {
    expect(attempt(failed, refused, anonymous)).toEqual(Outcome.refused('csrf'));
    expect(attempt(refused, failed)).toEqual(Outcome.refused('csrf'));
  });

  it('else the refused credential, with its challenge, over anonymous', () => {
    expect(attempt(anonymous, failed, anonymous)).toMatchObject({ kind: 'failed', challenge });
  });

  it('stays synchronous while its members are', () => {
    expect(attempt(anonymous, anonymous)).toEqual({ kind: 'anonymous' });
  });

  it('an asynchronous member keeps the ranking', async () => {
    const later = answering(Promise.resolve(Outcome.refused('csrf')), 'session');
    await expect(attempt(failed, later, anonymous)).resolves.toEqual(Outcome.refused('csrf'));
  });
});
