import { describe, expect, it } from 'vitest';
import {
  Access,
  AuthenticationManager,
  AuthorizationManager,
  SecurityContext,
  SecurityTransform,
  User,
  type Authenticator,
} from '../../src/index.js';
import { withSecurity } from '../../src/fetch/index.js';
import { JwtConfig } from '../../src/jwt/index.js';
import { SessionAuthenticator, SessionConfig } from '../../src/session/index.js';
import {
  manualClock,
  mockUser,
  sessionCookieFor,
  sessionFor,
  testJwt,
} from '../../src/testing/index.js';

/** A Fetch application behind withSecurity: /admin/* for ADMIN, the rest authenticated. */
function app(authenticator: Authenticator) {
  const transform = new SecurityTransform()
    .configAuthenticator(() => authenticator)
    .configAuthorizer(() =>
      AuthorizationManager.requestMatcher()
        .bearer()
        .addMatcher('/admin/.*', new Access().roles(['ADMIN']))
        .anyRequest(new Access().authenticated()),
    );
  return withSecurity(transform, (_request, { user }) => {
    const current = SecurityContext.requireUser();
    return new Response(`${user?.username ?? ''} ${current.authenticationMethod}`);
  });
}

const admin = mockUser('ann', { roles: ['ADMIN'] });
const user = mockUser('bob');

describe('testJwt', () => {
  it("mints tokens the pipeline accepts: bearerFor(user) through withSecurity's rules", async () => {
    const jwt = await testJwt({ issuer: 'https://api.test', audience: 'web' });
    const handler = app(jwt.authenticator);
    const get = async (path: string, authorization?: string) =>
      handler(
        new Request(`https://api.test${path}`, authorization ? { headers: { authorization } } : {}),
      );
    const asAdmin = await get('/admin/stats', await jwt.bearerFor(admin));
    expect(asAdmin.status).toBe(200);
    expect(await asAdmin.text()).toBe('ann jwt');
    expect((await get('/admin/stats', await jwt.bearerFor(user))).status).toBe(403);
    expect((await get('/me', await jwt.bearerFor(user))).status).toBe(200);
    const anonymous = await get('/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/u);
    const { claims } = await jwt.authenticator.validateToken(await jwt.tokenFor(admin));
    expect(claims).toMatchObject({
      sub: 'ann',
      roles: ['ADMIN'],
      iss: 'https://api.test',
      aud: 'web',
    });
  });

  it('makes a random secret per call: its tokens open nothing else', async () => {
    const one = await testJwt();
    const other = await testJwt();
    const token = await one.bearerFor(admin);
    const refused = await app(other.authenticator)(
      new Request('https://api.test/me', { headers: { authorization: token } }),
    );
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/u);
  });

  it("signs for an application's own JwtConfig, with extra claims and a lifetime", async () => {
    const config = new JwtConfig('a-secret-of-at-least-32-bytes-long!!').issuer('app');
    const jwt = await testJwt(config);
    expect(jwt.config).toBe(config);
    const token = await jwt.tokenFor(new User('carol', '', ['USER']), {
      claims: { tenant: 't1' },
      expiresInSeconds: 60,
    });
    const { claims } = await jwt.authenticator.validateToken(token);
    expect(claims).toMatchObject({ sub: 'carol', roles: ['USER'], tenant: 't1', iss: 'app' });
    expect(claims.exp - (claims.iat as number)).toBe(60);
    await expect(jwt.tokenFor(admin, { claims: { sub: 'mallory' } })).rejects.toThrow(/sub/u);
    await expect(jwt.tokenFor(admin, { ttl: 60 } as never)).rejects.toThrow(
      /did you mean "expiresInSeconds"/u,
    );
  });

  it('expires a token when the manual clock passes its lifetime and the leeway', async () => {
    const clock = manualClock();
    const jwt = await testJwt({ clock, expirationSeconds: 900, leewaySeconds: 30 });
    const handler = app(jwt.authenticator);
    const authorization = await jwt.bearerFor(user);
    const request = () => new Request('https://api.test/me', { headers: { authorization } });
    expect((await handler(request())).status).toBe(200);
    clock.advance('15m');
    expect((await handler(request())).status).toBe(200); // within the leeway
    clock.advance('31s');
    const expired = await handler(request());
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(/expired/u);
  });
});

describe('sessionCookieFor and sessionFor', () => {
  const config = new SessionConfig().passwords({ 1: 'a-password-of-at-least-32-characters' });

  it("makes the session cookie of the application's SessionAuthenticator", async () => {
    const sessions = new SessionAuthenticator(config);
    const handler = app(AuthenticationManager.anyOf(sessions));
    const cookie = await sessionCookieFor(admin, sessions);
    expect(cookie).toMatch(/^__Host-session=[^;]+$/u);
    const response = await handler(
      new Request('https://app.test/admin/x', { headers: { cookie } }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ann session');
    const asUser = await sessionCookieFor(user, config); // from the config: the same passwords
    expect(
      (await handler(new Request('https://app.test/admin/x', { headers: { cookie: asUser } })))
        .status,
    ).toBe(403);
  });

  it('gives the CSRF token an unsafe request needs', async () => {
    const sessions = new SessionAuthenticator(config);
    const handler = app(sessions);
    const session = await sessionFor(user, sessions);
    expect(Object.keys(session.headers).sort()).toEqual(['cookie', 'x-csrf-token']);
    const post = (headers: Record<string, string>) =>
      handler(new Request('https://app.test/posts', { method: 'POST', headers }));
    expect((await post(session.headers)).status).toBe(200);
    expect((await post({ cookie: session.cookie })).status).toBe(403);
  });

  it('makes a cookie another password cannot open', async () => {
    const cookie = await sessionCookieFor(user, config);
    const other = new SessionAuthenticator(
      new SessionConfig().passwords({ 1: 'another-password-of-at-least-32-chars' }),
    );
    const response = await app(other)(new Request('https://app.test/me', { headers: { cookie } }));
    expect(response.status).toBe(401);
  });
});
