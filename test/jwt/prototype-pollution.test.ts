import { describe, expect, it } from 'vitest';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import { NOW, SECRET, bearer, hmacToken, requestWith } from './support.js';

describe('prototype-pollution-style claims grant nothing', () => {
  const jwt = () =>
    new JwtAuthenticator(
      new JwtConfig(SECRET).attributeClaims(['tenant', 'toString']).clock(() => NOW),
    );
  const raw = (json: string) => hmacToken(SECRET, { alg: 'HS256', typ: 'at+jwt' }, json);
  const base = `"sub":"mallory","iat":${String(NOW / 1000)},"exp":${String(NOW / 1000 + 60)}`;

  it('__proto__ and constructor claims add no role, authority or attribute', async () => {
    for (const extra of [
      `"__proto__":{"roles":["ADMIN"],"authorities":["users:write"],"tenant":"acme"}`,
      `"constructor":{"prototype":{"roles":["ADMIN"]}}`,
      `"__proto__":{"__proto__":{"roles":["ADMIN"]}}`,
    ]) {
      const user = await jwt().authenticate(requestWith(bearer(raw(`{${base},${extra}}`))));
      expect(user?.username, extra).toBe('mallory');
      expect(user?.roles.size, extra).toBe(0);
      expect(user?.authorities.size, extra).toBe(0);
      expect(user?.hasRole('ADMIN')).toBe(false);
      expect(Object.keys(user?.attributes ?? {}), extra).toEqual([]);
    }
    expect(({} as Record<string, unknown>)['roles']).toBeUndefined();
  });

  it('a claim path does not walk into __proto__', async () => {
    const nested = new JwtAuthenticator(
      new JwtConfig(SECRET).rolesClaim('realm_access.roles').clock(() => NOW),
    );
    const token = raw(`{${base},"realm_access":{"__proto__":{"roles":["ADMIN"]}}}`);
    expect((await nested.authenticate(requestWith(bearer(token))))?.roles.size).toBe(0);
    const viaProto = new JwtAuthenticator(
      new JwtConfig(SECRET).rolesClaim('__proto__.roles').clock(() => NOW),
    );
    const polluted = raw(`{${base},"__proto__":{"roles":["ADMIN"]}}`);
    // An own "__proto__" claim is data: the path reads it, and no prototype.
    expect([
      ...((await viaProto.authenticate(requestWith(bearer(polluted))))?.roles ?? []),
    ]).toEqual(['ADMIN']);
    const plain = raw(`{${base}}`);
    expect((await viaProto.authenticate(requestWith(bearer(plain))))?.roles.size).toBe(0);
  });

  it('roles inherited from a polluted Object.prototype are not read', async () => {
    const proto = Object.prototype as Record<string, unknown>;
    Object.defineProperty(proto, 'roles', { value: ['ADMIN'], configurable: true, writable: true });
    Object.defineProperty(proto, 'tenant', { value: 'evil', configurable: true, writable: true });
    try {
      const user = await jwt().authenticate(requestWith(bearer(raw(`{${base}}`))));
      expect(user?.roles.size).toBe(0);
      expect(Object.hasOwn(user?.attributes ?? {}, 'tenant')).toBe(false);
    } finally {
      delete proto['roles'];
      delete proto['tenant'];
    }
  });

  it('roles named __proto__ or constructor are plain names', async () => {
    const token = raw(`{${base},"roles":["__proto__","constructor"]}`);
    const user = await jwt().authenticate(requestWith(bearer(token)));
    expect([...(user?.roles ?? [])]).toEqual(['__proto__', 'constructor']);
    expect(user?.hasAnyRole('ADMIN', 'USER')).toBe(false);
  });
});
