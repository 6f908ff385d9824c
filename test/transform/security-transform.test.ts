import { describe, expect, it } from 'vitest';
import {
  Access,
  AuthenticatedUser,
  AuthorizationManager,
  ConfigurationError,
  SecurityEvents,
  SecurityTransform,
  User,
  createSecurityRequest,
  type Authenticator,
  type Authorizer,
  type SecurityEvent,
  type SecurityOutcome,
} from '../../src/index.js';

const request = (url: string, headers: Record<string, string> = {}) =>
  createSecurityRequest({ method: 'GET', url, header: (name) => headers[name] });

const alice = new User('alice', 'x').withRoles(['USER']);
const fixed = (user: User | null): Authenticator => ({ getUser: () => user });
const adminOnly = () =>
  AuthorizationManager.requestMatcher()
    .httpBasic()
    .addMatcher('/admin', Access.roles(['ADMIN']))
    .anyRequest(Access.permitAll()); // the rest is public, explicitly

function recorder(): { events: SecurityEvents; seen: SecurityEvent[] } {
  const events = new SecurityEvents();
  const seen: SecurityEvent[] = [];
  events.on('*', (event) => {
    seen.push(event);
  });
  return { events, seen };
}

const denied = (outcome: SecurityOutcome) => {
  if (outcome.proceed) throw new Error('expected a denial');
  return outcome.response;
};

describe('SecurityTransform', () => {
  it('denies by default without an authorizer: an authenticated user is needed', async () => {
    const { events, seen } = recorder();
    const closed = await new SecurityTransform({ events }).handle(request('/admin'));
    expect(denied(closed).status).toBe(401);
    expect(seen).toContainEqual(
      expect.objectContaining({
        type: 'access-denied',
        rule: 'authenticated() (no authorizer configured: deny by default)',
      }),
    );
    const known = await new SecurityTransform()
      .configAuthenticator(() => fixed(alice))
      .handle(request('/x'));
    expect(known.proceed && known.user?.username).toBe('alice');
    expect(known.user?.authenticationMethod).toBe('custom');
    // Granting everyone is one explicit line.
    const open = await new SecurityTransform()
      .configAuthorizer(() => AuthorizationManager.requestMatcher().anyRequest(Access.permitAll()))
      .handle(request('/admin'));
    expect(open).toEqual({ proceed: true, user: null });
  });

  it('resolves synchronously when every step is synchronous', () => {
    const outcome = new SecurityTransform()
      .configAuthenticator(() => fixed(alice))
      .configAuthorizer(adminOnly)
      .handle(request('/admin'));
    expect(outcome).not.toBeInstanceOf(Promise);
    expect(denied(outcome as SecurityOutcome).status).toBe(403);
  });

  it('answers 401 with the challenge for anonymous and 403 for a user without the role', async () => {
    const anonymous = new SecurityTransform().configAuthorizer(adminOnly);
    const response = denied(await anonymous.handle(request('/admin')));
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm="Restricted"/u);
    const user = new SecurityTransform()
      .configAuthenticator(() => fixed(alice))
      .configAuthorizer(adminOnly);
    expect(denied(await user.handle(request('/admin'))).status).toBe(403);
  });

  it('uses an authenticator’s own authenticate() and an async authorizer', async () => {
    const rich: Authenticator = {
      getUser: () => null,
      authenticate: () =>
        Promise.resolve(
          AuthenticatedUser.from(alice, { authenticationMethod: 'api-key', attributes: { k: 1 } }),
        ),
    };
    const asyncAuthorizer: Authorizer = {
      authorize: (user) =>
        Promise.resolve(
          user?.hasRole('USER')
            ? { granted: true }
            : { granted: false, reason: 'forbidden', rule: 'custom' },
        ),
    };
    const outcome = await new SecurityTransform({
      authenticator: rich,
      authorizer: asyncAuthorizer,
    }).handle(request('/'));
    expect(outcome.proceed).toBe(true);
    expect(outcome.user?.authenticationMethod).toBe('api-key');
  });

  it('answers an authorizer without onDenied with plain or JSON bodies by Accept', async () => {
    const never: Authorizer = {
      authorize: () => ({ granted: false, reason: 'unauthenticated', rule: 'secret rule text' }),
    };
    const transform = new SecurityTransform({ authorizer: never });
    const plain = denied(await transform.handle(request('/')));
    expect(plain.status).toBe(401);
    expect(plain.body).not.toContain('secret rule');
    const json = denied(await transform.handle(request('/', { accept: 'application/json' })));
    expect(json.headers['content-type']).toContain('application/problem+json');
    expect(JSON.parse(json.body)).toMatchObject({ status: 401 });
  });

  it.each([
    [
      'throws',
      (): never => {
        throw new Error('database down: password=hunter2');
      },
    ],
    ['rejects', () => Promise.reject(new Error('database down: password=hunter2'))],
  ])(
    'treats an authenticator that %s as a failed authentication, never a 500',
    async (_name, getUser) => {
      const { events, seen } = recorder();
      const transform = new SecurityTransform({ events })
        .configAuthenticator(() => ({ authenticationMethod: 'db', getUser }))
        .configAuthorizer(adminOnly);
      const publicPage = await transform.handle(request('/'));
      expect(publicPage).toEqual({ proceed: true, user: null });
      expect(denied(await transform.handle(request('/admin'))).status).toBe(401);
      expect(seen[0]).toMatchObject({
        type: 'authentication-failure',
        reason: 'other',
        authenticationMethod: 'db',
      });
      expect(JSON.stringify(seen)).not.toContain('hunter2');
    },
  );

  it('rethrows a misconfigured authenticator instead of hiding it behind 401s', async () => {
    const syncMisconfigured = new SecurityTransform().configAuthenticator(() => ({
      getUser: () => {
        throw new ConfigurationError('store', 'is not set');
      },
    }));
    expect(() => syncMisconfigured.handle(request('/'))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'store' }),
    );
    const asyncMisconfigured = new SecurityTransform().configAuthenticator(() => ({
      getUser: () => Promise.reject(new ConfigurationError('store', 'is not connected')),
    }));
    await expect(asyncMisconfigured.handle(request('/'))).rejects.toMatchObject({
      option: 'store',
    });
  });

  it('publishes request-rejected and access-denied events', async () => {
    const { events, seen } = recorder();
    const transform = new SecurityTransform({ events })
      .configAuthenticator(() => fixed(alice))
      .configAuthorizer(adminOnly);
    expect(denied(await transform.handle(request('/admin/..;/'))).status).toBe(400);
    expect(denied(await transform.handle(request('/admin'))).status).toBe(403);
    expect(seen).toMatchObject([
      { type: 'request-rejected', reason: 'semicolon', request: { path: '/admin/..;/' } },
      {
        type: 'access-denied',
        username: 'alice',
        rule: expect.stringContaining('ADMIN') as string,
      },
    ]);
  });

  it('runs the firewall first, with its options, and only without it when told', async () => {
    const authenticatorCalls: string[] = [];
    const spy: Authenticator = {
      getUser: (req) => {
        authenticatorCalls.push(req.rawPath);
        return null;
      },
    };
    const everyone = AuthorizationManager.requestMatcher().anyRequest(Access.permitAll());
    const strict = new SecurityTransform({ authenticator: spy, authorizer: everyone });
    expect(denied(await strict.handle(request('//admin'))).status).toBe(400);
    expect(authenticatorCalls).toEqual([]);
    const lenient = new SecurityTransform({
      authenticator: spy,
      authorizer: everyone,
      firewall: { allowDoubleSlash: true },
    });
    expect((await lenient.handle(request('//x'))).proceed).toBe(true);
    const none = new SecurityTransform({ authenticator: spy, authorizer: everyone }).configFirewall(
      false,
    );
    expect((await none.handle(request('/a;b'))).proceed).toBe(true);
    expect(authenticatorCalls).toEqual(['//x', '/a;b']);
  });

  it('refuses factories that return no authenticator or authorizer', () => {
    expect(() => new SecurityTransform().configAuthenticator(() => ({}) as Authenticator)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'configAuthenticator' }),
    );
    expect(() =>
      new SecurityTransform().configAuthorizer(() => null as unknown as Authorizer),
    ).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'configAuthorizer' }));
    expect(
      () => new SecurityTransform({ firewall: { allowDoubleSlashes: true } as never }),
    ).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTION' }));
  });
});
