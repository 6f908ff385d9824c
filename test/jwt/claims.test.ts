import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { Claims, JwtAuthenticator, JwtConfig, REGISTERED_CLAIMS } from '../../src/jwt/index.js';
import { NOW, NOW_S, SECRET, bearer, requestWith, thrown } from './support.js';

const invalid = (option: string) => ({ code: 'ERR_INVALID_OPTION', option });

describe('Claims', () => {
  it('has readable fields: sub, iat, exp, jti, iss, aud, roles, authorities, customClaims', () => {
    const claims = new Claims('alice', 3600, NOW + 999);
    expect(claims.sub).toBe('alice');
    expect(claims.iat).toBe(NOW_S);
    expect(claims.exp).toBe(NOW_S + 3600);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/u);
    expect(claims.iss).toBeUndefined();
    expect(claims.aud).toBeUndefined();
    expect(claims.roles).toEqual([]);
    expect(claims.authorities).toEqual([]);
    expect(claims.customClaims).toEqual({});
  });

  it('is immutable: each method returns a new Claims and leaves the old one as it was', () => {
    const base = new Claims('alice', 60, NOW);
    const next = base
      .issuer('https://i.example')
      .audience(['api', 'web'])
      .withRoles(['USER', 'USER', 'ADMIN'])
      .withAuthorities(['posts:read'])
      .custom({ tenant: 'acme' })
      .custom({ plan: 'pro' });
    expect(next).not.toBe(base);
    expect(base.iss).toBeUndefined();
    expect(base.roles).toEqual([]);
    expect(base.customClaims).toEqual({});
    expect(next.iss).toBe('https://i.example');
    expect(next.aud).toEqual(['api', 'web']);
    expect(next.roles).toEqual(['USER', 'ADMIN']);
    expect(next.authorities).toEqual(['posts:read']);
    expect(next.customClaims).toEqual({ tenant: 'acme', plan: 'pro' });
    // The same token identity and times through the builders.
    expect([next.sub, next.iat, next.exp, next.jti]).toEqual([
      base.sub,
      base.iat,
      base.exp,
      base.jti,
    ]);
    for (const value of [next.aud, next.roles, next.authorities, next.customClaims]) {
      expect(Object.isFrozen(value)).toBe(true);
    }
    expect(() => {
      (next.roles as string[]).push('ROOT');
    }).toThrow(TypeError);
  });

  it('copies its inputs: changing the caller array or object later changes nothing', () => {
    const roles = ['USER'];
    const nested = { level: 1 };
    const claims = new Claims('alice', 60, NOW).withRoles(roles).custom({ nested });
    roles.push('ADMIN');
    nested.level = 2;
    expect(claims.roles).toEqual(['USER']);
    expect(claims.customClaims).toEqual({ nested: { level: 1 } });
  });

  it('refuses registered and library claim names in custom()', () => {
    for (const name of [...REGISTERED_CLAIMS, '__proto__']) {
      const claims = JSON.parse(`{"${name}": "x"}`) as Record<string, unknown>;
      expect(
        thrown(() => new Claims('alice', 60).custom(claims)),
        name,
      ).toMatchObject(invalid(`custom.${name}`));
    }
    expect(REGISTERED_CLAIMS).toEqual(
      expect.arrayContaining([
        'iss',
        'sub',
        'aud',
        'exp',
        'nbf',
        'iat',
        'jti',
        'roles',
        'authorities',
      ]),
    );
  });

  it('refuses values JSON cannot carry unchanged', () => {
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    const values: readonly unknown[] = [
      undefined,
      () => 1,
      Symbol('s'),
      10n,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      circular,
      { nested: undefined },
      [1, () => 2],
      { deep: [Number.NaN] },
    ];
    for (const value of values) {
      expect(
        thrown(() => new Claims('alice', 60).custom({ x: value })),
        typeof value,
      ).toMatchObject(invalid('custom.x'));
    }
    const ok = new Claims('alice', 60).custom({ a: null, b: [1, 'two', true], c: { d: 1.5 } });
    expect(ok.customClaims).toEqual({ a: null, b: [1, 'two', true], c: { d: 1.5 } });
  });

  it('validates its arguments', () => {
    expect(thrown(() => new Claims('', 60))).toMatchObject(invalid('subject'));
    expect(thrown(() => new Claims('a\nb', 60))).toMatchObject(invalid('subject'));
    expect(thrown(() => new Claims('alice', 0))).toMatchObject(invalid('ttlSeconds'));
    expect(thrown(() => new Claims('alice', 1.5))).toMatchObject(invalid('ttlSeconds'));
    expect(thrown(() => new Claims('alice', 60).audience([]))).toMatchObject(invalid('audience'));
    expect(thrown(() => new Claims('alice', 60).withRoles('ADMIN'))).toMatchObject(
      invalid('roles'),
    );
    expect(thrown(() => new Claims('alice', 60).withAuthorities(['']))).toMatchObject(
      invalid('authorities'),
    );
    expect(thrown(() => new Claims('alice', 60).custom(null as never))).toMatchObject(
      invalid('custom'),
    );
    expect(thrown(() => new Claims('alice', 60).custom([] as never))).toMatchObject(
      invalid('custom'),
    );
  });

  it('signs into a token with exactly its claims, readable by the authenticator', async () => {
    const jwt = new JwtAuthenticator(
      new JwtConfig(SECRET).attributeClaims(['tenant']).clock(() => NOW),
    );
    const claims = new Claims('alice', 120, NOW)
      .audience('api')
      .withRoles(['USER'])
      .withAuthorities(['posts:read'])
      .custom({ tenant: 'acme', profile: { locale: 'fr' } });
    const token = await jwt.generateTokenWithClaims(claims);
    expect(decodeJwt(token)).toEqual({
      sub: 'alice',
      iat: NOW_S,
      exp: NOW_S + 120,
      jti: claims.jti,
      aud: 'api',
      roles: ['USER'],
      authorities: ['posts:read'],
      tenant: 'acme',
      profile: { locale: 'fr' },
    });
    const user = await jwt.authenticate(requestWith(bearer(token)));
    expect(user?.hasRole('USER')).toBe(true);
    expect(user?.hasAuthority('posts:read')).toBe(true);
    expect(user?.attributes).toEqual({ tenant: 'acme' });
    expect(user?.authenticationMethod).toBe('jwt');
  });
});
