import { describe, expect, it } from 'vitest';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import { NOW, NOW_S, SECRET, claimsAt, expectJwtError, sign } from './support.js';

/**
 * Every boundary of the clock checks, with the clock frozen at NOW (a whole second)
 * and at NOW + 999 ms (the same second for JWT's whole-second times):
 * - `exp` is refused when `exp <= now - leeway`;
 * - `nbf` and `iat` are refused when `> now + leeway`.
 */
const verifier = (leeway: number | undefined, now = NOW) => {
  const config = new JwtConfig(SECRET).clock(() => now);
  if (leeway !== undefined) config.leewaySeconds(leeway);
  return new JwtAuthenticator(config);
};

const token = (extra: Record<string, number>) => sign(SECRET, claimsAt(extra));

describe.each([
  { leeway: undefined, effective: 30, label: 'default leeway (30 s)' },
  { leeway: 5, effective: 5, label: 'leeway 5 s' },
  { leeway: 0, effective: 0, label: 'leeway 0' },
])('$label', ({ leeway, effective }) => {
  for (const offsetMs of [0, 999]) {
    describe(`clock at NOW + ${String(offsetMs)} ms`, () => {
      const jwt = verifier(leeway, NOW + offsetMs);
      const accepted = async (extra: Record<string, number>) => {
        await expect(jwt.validateToken(await token(extra))).resolves.toBeDefined();
      };

      it('exp = now - leeway is refused; now - leeway + 1 is accepted', async () => {
        await expectJwtError(
          jwt.validateToken(await token({ exp: NOW_S - effective })),
          'ERR_JWT_EXPIRED',
        );
        await expectJwtError(
          jwt.validateToken(await token({ exp: NOW_S - effective - 1 })),
          'ERR_JWT_EXPIRED',
        );
        await accepted({ exp: NOW_S - effective + 1, iat: NOW_S - 600 });
      });

      it('nbf = now + leeway is accepted; now + leeway + 1 is refused', async () => {
        await accepted({ nbf: NOW_S + effective });
        await expectJwtError(
          jwt.validateToken(await token({ nbf: NOW_S + effective + 1 })),
          'ERR_JWT_NOT_YET_VALID',
        );
      });

      it('iat = now + leeway is accepted; now + leeway + 1 is refused', async () => {
        await accepted({ iat: NOW_S + effective });
        await expectJwtError(
          jwt.validateToken(await token({ iat: NOW_S + effective + 1 })),
          'ERR_JWT_NOT_YET_VALID',
        );
      });

      it('fractional times are compared exactly', async () => {
        await accepted({ nbf: NOW_S + effective + 0.0 });
        await expectJwtError(
          jwt.validateToken(await token({ nbf: NOW_S + effective + 0.5 })),
          'ERR_JWT_NOT_YET_VALID',
        );
        await expectJwtError(
          jwt.validateToken(await token({ iat: NOW_S + effective + 0.5 })),
          'ERR_JWT_NOT_YET_VALID',
        );
        await accepted({ exp: NOW_S - effective + 0.5, iat: NOW_S - 600 });
      });
    });
  }
});

describe('the leeway option', () => {
  it('also applies through the authenticator (expired-token event reason)', async () => {
    const jwt = verifier(0);
    const expired = await token({ exp: NOW_S });
    await expectJwtError(jwt.validateToken(expired), 'ERR_JWT_EXPIRED');
    await expect(verifier(1).validateToken(expired)).resolves.toBeDefined();
  });

  it('is an integer from 0 to 3600', () => {
    for (const bad of [-1, 3601, 1.5, Number.NaN, '30' as unknown as number]) {
      expect(() => new JwtConfig(SECRET).leewaySeconds(bad)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'leewaySeconds' }),
      );
    }
    expect(new JwtConfig(SECRET).leewaySeconds(3600).resolve().leewaySeconds).toBe(3600);
    expect(new JwtConfig(SECRET).resolve().leewaySeconds).toBe(30);
  });
});
