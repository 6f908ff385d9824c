import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { User } from '../../src/core/index.js';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import {
  NOW,
  NOW_S,
  SECRET,
  bearer,
  claimsAt,
  recordEvents,
  requestWith,
  sign,
} from './support.js';

const config = () => new JwtConfig(SECRET).clock(() => NOW);
const bob = new User('bob', '{noop}secret-pw')
  .withRoles(['USER', 'ADMIN'])
  .withAuthorities(['posts:read']);

describe('generateToken', () => {
  it('issues an at+jwt access token of the user, its roles and authorities', async () => {
    const jwt = new JwtAuthenticator(config().expirationSeconds(120));
    const token = await jwt.generateToken(bob);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    const payload = decodeJwt(token);
    expect(payload).toEqual({
      sub: 'bob',
      roles: ['USER', 'ADMIN'],
      authorities: ['posts:read'],
      iat: NOW_S,
      exp: NOW_S + 120,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/u) as string,
    });
    expect(token).not.toContain(Buffer.from('secret-pw').toString('base64url'));
    expect(JSON.stringify(payload)).not.toContain('secret-pw');
    expect(jwt.expiresIn).toBe(120);
  });

  it('gives each token its own jti', async () => {
    const jwt = new JwtAuthenticator(config());
    const [a, b] = await Promise.all([jwt.generateToken(bob), jwt.generateToken(bob)]);
    expect(decodeJwt(a).jti).not.toBe(decodeJwt(b).jti);
  });
});

describe('authenticate and getUser', () => {
  it('build the user from sub, roles and authorities', async () => {
    const jwt = new JwtAuthenticator(config());
    const token = await jwt.generateToken(bob);
    const user = await jwt.authenticate(requestWith(bearer(token)));
    expect(user?.username).toBe('bob');
    expect(user?.authenticationMethod).toBe('jwt');
    expect(user?.hasAnyRole('ADMIN')).toBe(true);
    expect(user?.hasAuthority('posts:read')).toBe(true);
    const plain = await jwt.getUser(requestWith(bearer(token)));
    expect(plain).toBeInstanceOf(User);
    expect(plain?.username).toBe('bob');
    expect([...(plain?.roles ?? [])]).toEqual(['USER', 'ADMIN']);
    expect(plain?.password).toBe('');
    expect(await jwt.getUser(requestWith())).toBeNull();
  });

  it('publish a success event, and a failure event with the reason', async () => {
    const { events, received } = recordEvents();
    const jwt = new JwtAuthenticator(config(), { events });
    await jwt.authenticate(requestWith(bearer(await jwt.generateToken(bob))));
    await jwt.authenticate(requestWith(bearer(await sign(SECRET, claimsAt({ exp: NOW_S - 60 })))));
    await jwt.authenticate(requestWith(bearer(await sign(SECRET, claimsAt({ nbf: NOW_S + 60 })))));
    await jwt.authenticate(requestWith(bearer('x.y.z')));
    expect(received).toMatchObject([
      { type: 'authentication-success', username: 'bob', authenticationMethod: 'jwt' },
      { type: 'authentication-failure', reason: 'expired-token', username: undefined },
      { type: 'authentication-failure', reason: 'expired-token' },
      { type: 'authentication-failure', reason: 'invalid-token' },
    ]);
    expect(received[0]).toMatchObject({ request: { method: 'GET', path: '/api/data' } });
  });

  it('share one user between tokens with the same claims, never across different ones', async () => {
    const jwt = new JwtAuthenticator(config().cache(false).attributeClaims(['tenant']));
    const of = async (claims: Record<string, unknown>) =>
      jwt.authenticate(requestWith(bearer(await sign(SECRET, claimsAt(claims)))));
    const first = await of({ roles: ['USER'], jti: '1' });
    const second = await of({ roles: ['USER'], jti: '2' });
    expect(second).toBe(first);
    const admin = await of({ roles: ['USER', 'ADMIN'] });
    expect(admin).not.toBe(first);
    expect(admin?.hasRole('ADMIN')).toBe(true);
    expect(first?.hasRole('ADMIN')).toBe(false);
    const tenant = await of({ roles: ['USER'], tenant: 'acme' });
    expect(tenant).not.toBe(first);
    expect(tenant?.attributes['tenant']).toBe('acme');
    const other = await of({ sub: 'carol', roles: ['USER'] });
    expect(other?.username).toBe('carol');
    // Back to fewer rights for the same subject: never the richer user built before.
    const demoted = await of({ roles: ['USER'], jti: '3' });
    expect(demoted?.hasRole('ADMIN')).toBe(false);
    expect(demoted?.attributes['tenant']).toBeUndefined();
    const writer = await of({ roles: ['USER'], authorities: ['posts:write'] });
    expect(writer?.hasAuthority('posts:write')).toBe(true);
    const reader = await of({ roles: ['USER'], authorities: ['posts:read'] });
    expect(reader?.hasAuthority('posts:write')).toBe(false);
    // A role that differs only by being split differently is another user.
    const split = await of({ roles: ['USER', 'ADMIN'], jti: '4' });
    const joined = await of({ roles: ['USERADMIN'], jti: '5' });
    expect(split?.hasRole('ADMIN')).toBe(true);
    expect(joined?.hasRole('ADMIN')).toBe(false);
  });

  it('an absent header is anonymous without an event', () => {
    const { events, received } = recordEvents();
    const jwt = new JwtAuthenticator(config(), { events });
    expect(jwt.authenticate(requestWith())).toBeNull();
    expect(received).toEqual([]);
  });
});

describe('claim readers', () => {
  const authenticate = async (
    configure: (c: JwtConfig) => JwtConfig,
    extra: Record<string, unknown>,
  ) => {
    const jwt = new JwtAuthenticator(configure(config()));
    return jwt.authenticate(requestWith(bearer(await sign(SECRET, claimsAt(extra)))));
  };

  it('a dotted path reads nested roles (Keycloak realm_access.roles)', async () => {
    const user = await authenticate((c) => c.rolesClaim('realm_access.roles'), {
      realm_access: { roles: ['ADMIN'] },
      roles: ['IGNORED'],
    });
    expect([...(user?.roles ?? [])]).toEqual(['ADMIN']);
  });

  it('a missing path or claim gives no roles', async () => {
    const user = await authenticate((c) => c.rolesClaim('realm_access.roles'), {
      realm_access: ['x'],
    });
    expect(user?.roles.size).toBe(0);
    expect((await authenticate((c) => c, {}))?.roles.size).toBe(0);
  });

  it('scope is split on spaces into authorities', async () => {
    const user = await authenticate((c) => c.authoritiesClaim('scope'), {
      scope: 'read  write\tadmin',
    });
    expect([...(user?.authorities ?? [])]).toEqual(['read', 'write', 'admin']);
  });

  it('a function reads any shape; one that throws refuses the token', async () => {
    const groups = await authenticate(
      (c) => c.rolesClaim((claims) => (claims['groups'] as string[]).map((g) => g.toUpperCase())),
      { groups: ['admin'] },
    );
    expect([...(groups?.roles ?? [])]).toEqual(['ADMIN']);
    const failing = await authenticate(
      (c) =>
        c.rolesClaim(() => {
          throw new Error('boom');
        }),
      {},
    );
    expect(failing).toBeNull();
  });

  it('attribute claims are copied when present, own claims only', async () => {
    const user = await authenticate(
      (c) => c.attributeClaims(['tenant', 'email', 'hasOwnProperty']),
      {
        tenant: 'acme',
        nested: { a: 1 },
      },
    );
    expect(user?.attributes).toEqual({ tenant: 'acme' });
  });

  it('accessTokenTypes widens the accepted typ values', async () => {
    const jwt = new JwtAuthenticator(config().accessTokenTypes(['at+jwt', 'application/JWT']));
    const typed = await sign(SECRET, claimsAt(), { typ: 'JWT' });
    expect((await jwt.authenticate(requestWith(bearer(typed))))?.username).toBe('alice');
    const refresh = await sign(SECRET, claimsAt(), { typ: 'refresh+jwt' });
    const wide = new JwtAuthenticator(config().accessTokenTypes(['refresh+jwt', 'at+jwt']));
    // A refresh token is never an access token, whatever the list says.
    expect(await wide.authenticate(requestWith(bearer(refresh)))).toBeNull();
  });
});
