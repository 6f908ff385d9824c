import { describe, expect, it } from 'vitest';
import { PortcullisError } from '../../src/core/index.js';
import { JwtAuthenticator, JwtConfig, JwtError, type JwtErrorCode } from '../../src/jwt/index.js';
import { DESCRIPTIONS } from '../../src/jwt/errors.js';
import {
  NOW,
  NOW_S,
  SECRET,
  bearer,
  claimsAt,
  compact,
  expectJwtError,
  hmacToken,
  recordEvents,
  requestWith,
  secretOf,
  sign,
} from './support.js';

const config = () => new JwtConfig(SECRET).clock(() => NOW);
const jwt = new JwtAuthenticator(config());
const validate = (token: string) => jwt.validateToken(token);

describe('JwtError codes of validateToken', () => {
  it('a valid token: header and frozen claims', async () => {
    const token = await sign(SECRET, claimsAt({ roles: ['USER'] }));
    const { header, claims } = await validate(token);
    expect(header).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(claims).toMatchObject({ sub: 'alice', exp: NOW_S + 600, roles: ['USER'] });
    expect(Object.isFrozen(claims)).toBe(true);
  });

  it('ERR_JWT_EXPIRED: exp past the leeway', async () => {
    await expectJwtError(
      validate(await sign(SECRET, claimsAt({ exp: NOW_S - 31 }))),
      'ERR_JWT_EXPIRED',
    );
  });

  it('ERR_JWT_NOT_YET_VALID: nbf in the future', async () => {
    const token = await sign(SECRET, claimsAt({ nbf: NOW_S + 31 }));
    await expectJwtError(validate(token), 'ERR_JWT_NOT_YET_VALID');
  });

  it('ERR_JWT_NOT_YET_VALID: iat in the future', async () => {
    const token = await sign(SECRET, claimsAt({ iat: NOW_S + 31 }));
    await expectJwtError(validate(token), 'ERR_JWT_NOT_YET_VALID');
  });

  it('ERR_JWT_BAD_SIGNATURE: signed with another secret', async () => {
    const token = await sign(secretOf(64), claimsAt());
    await expectJwtError(validate(token), 'ERR_JWT_BAD_SIGNATURE');
  });

  it('ERR_JWT_BAD_ISSUER and ERR_JWT_BAD_AUDIENCE', async () => {
    const strict = new JwtAuthenticator(config().issuer('https://a.example').audience('api'));
    const wrongIss = await sign(SECRET, claimsAt({ iss: 'https://b.example', aud: 'api' }));
    await expectJwtError(strict.validateToken(wrongIss), 'ERR_JWT_BAD_ISSUER');
    const wrongAud = await sign(SECRET, claimsAt({ iss: 'https://a.example', aud: 'web' }));
    await expectJwtError(strict.validateToken(wrongAud), 'ERR_JWT_BAD_AUDIENCE');
  });

  describe('ERR_JWT_MALFORMED', () => {
    const header = { alg: 'HS256', typ: 'at+jwt' };
    const cases: readonly (readonly [string, () => string | Promise<string>])[] = [
      ['garbage', () => 'not a token'],
      ['an empty string', () => ''],
      ['two parts', () => compact(header, claimsAt()).slice(0, -1)],
      ['four parts', async () => `${await sign(SECRET, claimsAt())}.x`],
      ['a JWE (five parts)', () => `${compact({ alg: 'dir', enc: 'A256GCM' }, 'x')}.iv.ct.tag`],
      ['a header that is not JSON', () => hmacToken(SECRET, '{"alg":"HS256"', claimsAt())],
      ['a header that is a JSON array', () => hmacToken(SECRET, ['HS256'], claimsAt())],
      ['a payload that is not JSON', () => hmacToken(SECRET, header, '{"sub":"alice",')],
      ['a payload that is a JSON string', () => hmacToken(SECRET, header, '"alice"')],
      ['a payload that is a JSON array', () => hmacToken(SECRET, header, [claimsAt()])],
      ['base64 with padding and +/', () => `${compact(header, claimsAt())}+/==`],
      ['no exp', () => sign(SECRET, { sub: 'alice', iat: NOW_S })],
      ['exp as a string', () => sign(SECRET, claimsAt({ exp: String(NOW_S + 60) }))],
      ['nbf as a string', () => sign(SECRET, claimsAt({ nbf: 'yesterday' }))],
      ['iat as a string', () => sign(SECRET, claimsAt({ iat: 'now' }))],
      ['no sub', () => sign(SECRET, { iat: NOW_S, exp: NOW_S + 60 })],
      ['a numeric sub', () => sign(SECRET, claimsAt({ sub: 42 }))],
      ['an empty sub', () => sign(SECRET, claimsAt({ sub: '' }))],
      ['a sub with a line feed', () => sign(SECRET, claimsAt({ sub: 'alice\nINFO forged' }))],
      ['a sub with a NUL', () => sign(SECRET, claimsAt({ sub: 'alice\u0000' }))],
      ['a sub with DEL', () => sign(SECRET, claimsAt({ sub: 'alice\u007f' }))],
      ['an object sub', () => sign(SECRET, claimsAt({ sub: { name: 'a' } }))],
    ];
    for (const [name, make] of cases) {
      it(name, async () => {
        await expectJwtError(validate(await make()), 'ERR_JWT_MALFORMED');
      });
    }

    it('a non-string token', async () => {
      const values: unknown[] = [undefined, null, 42, {}, ['a.b.c']];
      for (const value of values) {
        await expectJwtError(validate(value as string), 'ERR_JWT_MALFORMED');
      }
    });

    it('claims the user cannot be built from (authenticate refuses them)', async () => {
      const { events, received } = recordEvents();
      const authenticator = new JwtAuthenticator(config(), { events });
      const bad = [
        { sub: 'ali\nce' },
        { sub: 'alice\u0000' },
        { roles: [1, 2] },
        { roles: { 0: 'ADMIN', length: 1 } },
        { roles: [['ADMIN']] },
        { roles: true },
        { roles: ['ADMIN\r\nX-Injected: 1'] },
        { roles: [''] },
        { authorities: [null] },
        { authorities: 7 },
      ];
      for (const extra of bad) {
        const token = await sign(SECRET, claimsAt(extra));
        expect(
          await authenticator.authenticate(requestWith(bearer(token))),
          JSON.stringify(extra),
        ).toBeNull();
      }
      expect(received).toHaveLength(bad.length);
      for (const event of received) {
        expect(event).toMatchObject({ type: 'authentication-failure', reason: 'invalid-token' });
      }
    });
  });

  it('ERR_JWT_ALGORITHM_NOT_ALLOWED: HS256 when only HS512 is configured', async () => {
    const hs512 = new JwtAuthenticator(config().algorithm('HS512'));
    await expectJwtError(
      hs512.validateToken(await sign(SECRET, claimsAt())),
      'ERR_JWT_ALGORITHM_NOT_ALLOWED',
    );
    const ok = await sign(SECRET, claimsAt(), { alg: 'HS512' });
    await expect(hs512.validateToken(ok)).resolves.toBeDefined();
  });

  describe('ERR_JWT_TOO_LARGE', () => {
    const small = new JwtAuthenticator(config().maxTokenLength(64));

    it('a token of maxTokenLength + 1 characters of garbage is not decoded', async () => {
      await expectJwtError(small.validateToken('%'.repeat(65)), 'ERR_JWT_TOO_LARGE');
      // One character less is decoded, and found malformed.
      await expectJwtError(small.validateToken('%'.repeat(64)), 'ERR_JWT_MALFORMED');
    });

    it('a valid token over the limit is refused; the default limit is 8192', async () => {
      const token = await sign(SECRET, claimsAt());
      await expectJwtError(small.validateToken(token), 'ERR_JWT_TOO_LARGE');
      const padded = await sign(SECRET, claimsAt({ pad: 'x'.repeat(8192) }));
      expect(padded.length).toBeGreaterThan(8192);
      await expectJwtError(validate(padded), 'ERR_JWT_TOO_LARGE');
    });
  });

  describe('ERR_JWT_WRONG_TYPE', () => {
    const cases: readonly (readonly [string, Record<string, unknown>, Record<string, unknown>])[] =
      [
        ['a refresh token (typ refresh+jwt)', { typ: 'refresh+jwt' }, {}],
        ['a refresh token whatever its token_use', { typ: 'refresh+jwt' }, { token_use: 'access' }],
        ['an ID token (typ JWT)', { typ: 'JWT' }, { nonce: 'n', auth_time: NOW_S }],
        ['an untyped token', { typ: undefined }, {}],
        ['a Cognito ID token (token_use id)', { typ: 'at+jwt' }, { token_use: 'id' }],
        ['a token_use that is not a string', { typ: 'at+jwt' }, { token_use: ['access'] }],
        ['a logout token', { typ: 'logout+jwt' }, {}],
      ];
    for (const [name, header, extra] of cases) {
      it(name, async () => {
        await expectJwtError(
          validate(await sign(SECRET, claimsAt(extra), header)),
          'ERR_JWT_WRONG_TYPE',
        );
      });
    }

    it('accepts at+jwt in any case and with application/, and token_use access', async () => {
      for (const typ of ['at+jwt', 'AT+JWT', 'application/at+jwt']) {
        await expect(validate(await sign(SECRET, claimsAt(), { typ }))).resolves.toBeDefined();
      }
      const cognito = await sign(SECRET, claimsAt({ token_use: 'access' }), { typ: undefined });
      await expect(validate(cognito)).resolves.toBeDefined();
    });
  });

  it('errors never carry the token or a claim value', async () => {
    const token = await sign(secretOf(64), claimsAt({ sub: 'secret-subject' }));
    const error = await expectJwtError(validate(token), 'ERR_JWT_BAD_SIGNATURE');
    expect(error).toBeInstanceOf(PortcullisError);
    expect(error.message).not.toContain(token.split('.')[2]);
    expect(error.message).not.toContain('secret-subject');
    const huge = await expectJwtError(validate('A'.repeat(9000)), 'ERR_JWT_TOO_LARGE');
    expect(huge.message).not.toContain('AAAA');
  });

  it('every code has a fixed, printable description', () => {
    const codes = Object.keys(DESCRIPTIONS) as JwtErrorCode[];
    expect(codes).toHaveLength(16);
    for (const code of codes) {
      expect(DESCRIPTIONS[code]).toMatch(/^[\x20-\x7e]+$/u);
      expect(DESCRIPTIONS[code]).not.toMatch(/["\\]/u);
      expect(new JwtError(code, 'x').code).toBe(code);
    }
  });
});
