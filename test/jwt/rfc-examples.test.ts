import { errors } from 'jose';
import { describe, expect, it } from 'vitest';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import { b64url, expectJwtError, hmacToken, requestWith, bearer } from './support.js';

/**
 * The example tokens of RFC 7515 Appendix A and RFC 7519 §3.1, verified through
 * `JwtAuthenticator` (jose underneath) with a fixed clock.
 *
 * They are plain JWTs, not RFC 9068 access tokens: `typ` is `JWT` or absent, there is
 * no `sub`, and `exp` (1300819380) is 2011-03-22T18:43:00Z. portcullis' checks react
 * as follows, in the order they run:
 * - `sub` is required and cannot be relaxed: the exact RFC tokens always end in
 *   `ERR_JWT_MALFORMED`, whose cause is jose's "missing sub" claim failure. jose
 *   checks the algorithm and the signature before any claim, so that cause proves the
 *   signature verified; a changed byte gives `ERR_JWT_BAD_SIGNATURE` instead.
 * - `exp` is checked against `JwtConfig.clock`: a clock before 2011-03-22T18:43:00Z
 *   (minus the leeway) accepts it; the real time gives `ERR_JWT_EXPIRED`.
 * - the type: `typ: JWT` is not an access-token type unless listed in
 *   `accessTokenTypes` (`ERR_JWT_WRONG_TYPE` otherwise); a token without `typ` is
 *   never an access token.
 * The RFC 7515 A.1 token re-signed with the RFC key after adding a `sub` shows the
 * last two checks.
 */

/** RFC 7515 A.1 (= RFC 7519 §3.1): HS256, with its JWK. The secret is 64 bytes. */
const A1 = {
  jwk: {
    kty: 'oct',
    k: 'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow',
  },
  token:
    'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
};
/** RFC 7519 §3.1's example: the same JWT as RFC 7515 A.1. */
const RFC7519_3_1 =
  'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
/** RFC 7515 A.2: RS256, the public half of its 2048-bit RSA key. */
const A2 = {
  jwk: {
    kty: 'RSA',
    n: 'ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ',
    e: 'AQAB',
  },
  token:
    'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw',
};
/** RFC 7515 A.3: ES256, the public half of its P-256 key. */
const A3 = {
  jwk: {
    kty: 'EC',
    crv: 'P-256',
    x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
    y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
  },
  token:
    'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q',
};
/** RFC 7519 §6.1: the unsecured JWT (`alg: none`). */
const RFC7519_6_1 =
  'eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.';

const EXP = 1_300_819_380;
/** Ten minutes before the examples expire. */
const BEFORE_EXP = (EXP - 600) * 1000;

/** Changes one character of the signature. */
function tamper(token: string): string {
  const last = token.at(-2) === 'A' ? 'B' : 'A';
  return `${token.slice(0, -2)}${last}${token.slice(-1)}`;
}

/** The cause of a MALFORMED refusal was jose's "missing sub": everything before passed. */
function expectOnlySubMissing(error: { cause?: unknown }): void {
  expect(error.cause).toBeInstanceOf(errors.JWTClaimValidationFailed);
  const cause = error.cause as InstanceType<typeof errors.JWTClaimValidationFailed>;
  expect(cause.claim).toBe('sub');
  expect(cause.reason).toBe('missing');
}

describe('RFC 7515 A.1 / RFC 7519 §3.1 (HS256)', () => {
  const config = () => new JwtConfig(A1.jwk).accessTokenTypes(['JWT']).clock(() => BEFORE_EXP);

  it('is the same token in both RFCs, and its JWK secret is 64 bytes', () => {
    expect(RFC7519_3_1).toBe(A1.token);
    expect(Buffer.from(A1.jwk.k, 'base64url')).toHaveLength(64);
    expect(config().resolve().algorithms).toEqual(['HS256']);
  });

  it('verifies: the signature and alg pass, only the missing sub refuses it', async () => {
    const jwt = new JwtAuthenticator(config());
    expectOnlySubMissing(await expectJwtError(jwt.validateToken(A1.token), 'ERR_JWT_MALFORMED'));
    // Even with the default access-token types, the missing sub is found first.
    const strict = new JwtAuthenticator(new JwtConfig(A1.jwk).clock(() => BEFORE_EXP));
    expectOnlySubMissing(await expectJwtError(strict.validateToken(A1.token), 'ERR_JWT_MALFORMED'));
  });

  it('a changed signature, payload or key gives ERR_JWT_BAD_SIGNATURE', async () => {
    const jwt = new JwtAuthenticator(config());
    await expectJwtError(jwt.validateToken(tamper(A1.token)), 'ERR_JWT_BAD_SIGNATURE');
    const [header, , signature] = A1.token.split('.');
    const forged = `${header!}.${b64url({ iss: 'joe', exp: EXP, sub: 'admin' })}.${signature!}`;
    await expectJwtError(jwt.validateToken(forged), 'ERR_JWT_BAD_SIGNATURE');
    const other = new JwtAuthenticator(
      new JwtConfig({ kty: 'oct', k: Buffer.alloc(64, 7).toString('base64url') })
        .accessTokenTypes(['JWT'])
        .clock(() => BEFORE_EXP),
    );
    await expectJwtError(other.validateToken(A1.token), 'ERR_JWT_BAD_SIGNATURE');
  });

  it('an HS512-only configuration of the same 64-byte key refuses the HS256 token', async () => {
    const jwt = new JwtAuthenticator(config().algorithm('HS512'));
    await expectJwtError(jwt.validateToken(A1.token), 'ERR_JWT_ALGORITHM_NOT_ALLOWED');
  });

  describe('the A.1 token with a sub added, re-signed with the RFC key', () => {
    const secret = Buffer.from(A1.jwk.k, 'base64url');
    const header = { typ: 'JWT', alg: 'HS256' };
    const payload = { iss: 'joe', exp: EXP, 'http://example.com/is_root': true, sub: 'joe' };
    const token = hmacToken(secret, header, payload);

    it('is accepted with typ JWT allowed and a clock before exp', async () => {
      const { header: h, claims } = await new JwtAuthenticator(
        config().issuer('joe'),
      ).validateToken(token);
      expect(h).toEqual(header);
      expect(claims).toEqual(payload);
    });

    it('is an access token for the authenticator too', async () => {
      const user = await new JwtAuthenticator(config()).authenticate(requestWith(bearer(token)));
      expect(user?.username).toBe('joe');
      expect([...(user?.roles ?? [])]).toEqual([]);
    });

    it('untyped as an access token by default: ERR_JWT_WRONG_TYPE', async () => {
      const jwt = new JwtAuthenticator(new JwtConfig(A1.jwk).clock(() => BEFORE_EXP));
      await expectJwtError(jwt.validateToken(token), 'ERR_JWT_WRONG_TYPE');
    });

    it('with the real clock (2011 is past): ERR_JWT_EXPIRED', async () => {
      const jwt = new JwtAuthenticator(new JwtConfig(A1.jwk).accessTokenTypes(['JWT']));
      await expectJwtError(jwt.validateToken(token), 'ERR_JWT_EXPIRED');
    });

    it('expires exactly at exp + leeway', async () => {
      const at = (seconds: number) =>
        new JwtAuthenticator(
          new JwtConfig(A1.jwk).accessTokenTypes(['JWT']).clock(() => seconds * 1000),
        ).validateToken(token);
      await expect(at(EXP + 29)).resolves.toBeDefined();
      await expectJwtError(at(EXP + 30), 'ERR_JWT_EXPIRED');
    });

    it('another issuer is configured: ERR_JWT_BAD_ISSUER', async () => {
      const jwt = new JwtAuthenticator(config().issuer('https://not-joe.example'));
      await expectJwtError(jwt.validateToken(token), 'ERR_JWT_BAD_ISSUER');
    });
  });
});

describe('RFC 7515 A.2 (RS256) and A.3 (ES256)', () => {
  for (const [name, example, alg] of [
    ['A.2', A2, 'RS256'],
    ['A.3', A3, 'ES256'],
  ] as const) {
    describe(name, () => {
      const jwt = () => new JwtAuthenticator(new JwtConfig(example.jwk).clock(() => BEFORE_EXP));

      it(`reads the public JWK as an ${alg} verification key`, () => {
        const settings = jwt().settings;
        expect(settings.algorithms).toEqual([alg]);
        expect(settings.keys?.sign).toBeUndefined();
      });

      it('verifies the signature; only the missing sub refuses the token', async () => {
        const error = await expectJwtError(jwt().validateToken(example.token), 'ERR_JWT_MALFORMED');
        expectOnlySubMissing(error);
      });

      it('a changed signature gives ERR_JWT_BAD_SIGNATURE', async () => {
        await expectJwtError(jwt().validateToken(tamper(example.token)), 'ERR_JWT_BAD_SIGNATURE');
      });

      it('the other example key family refuses the algorithm', async () => {
        const other = example === A2 ? A3 : A2;
        const verifier = new JwtAuthenticator(new JwtConfig(other.jwk).clock(() => BEFORE_EXP));
        await expectJwtError(
          verifier.validateToken(example.token),
          'ERR_JWT_ALGORITHM_NOT_ALLOWED',
        );
      });
    });
  }
});

describe('RFC 7519 §6.1 (unsecured JWT)', () => {
  it('alg none is never allowed', async () => {
    expect(JSON.parse(Buffer.from(RFC7519_6_1.split('.')[0]!, 'base64url').toString())).toEqual({
      alg: 'none',
    });
    for (const key of [A1.jwk, A2.jwk, A3.jwk]) {
      const jwt = new JwtAuthenticator(new JwtConfig(key).clock(() => BEFORE_EXP));
      await expectJwtError(jwt.validateToken(RFC7519_6_1), 'ERR_JWT_ALGORITHM_NOT_ALLOWED');
    }
  });
});
