import { createSecretKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import {
  NOW,
  SECRET,
  b64url,
  bearer,
  claimsAt,
  compact,
  expectJwtError,
  hmacToken,
  keyPairs,
  publicJwk,
  recordEvents,
  requestWith,
  secretOf,
  sign,
  startKeyServer,
  thrown,
  type KeyServer,
} from './support.js';

const hs = () => new JwtAuthenticator(new JwtConfig(SECRET).clock(() => NOW));
const rs = () => new JwtAuthenticator(new JwtConfig(keyPairs.rsa().publicKey).clock(() => NOW));
const es = () => new JwtAuthenticator(new JwtConfig(keyPairs.p256().publicKey).clock(() => NOW));

describe('alg: none', () => {
  for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
    it(`an unsigned token with alg ${alg} is refused by HMAC and RSA verifiers`, async () => {
      const unsigned = compact({ alg, typ: 'at+jwt' }, claimsAt({ roles: ['ADMIN'] }));
      await expectJwtError(hs().validateToken(unsigned), 'ERR_JWT_ALGORITHM_NOT_ALLOWED');
      await expectJwtError(rs().validateToken(unsigned), 'ERR_JWT_ALGORITHM_NOT_ALLOWED');
      // With a signature of a real token appended, still refused.
      const signature = (await sign(SECRET, claimsAt())).split('.')[2]!;
      const withSig = compact({ alg, typ: 'at+jwt' }, claimsAt(), signature);
      await expectJwtError(hs().validateToken(withSig), 'ERR_JWT_ALGORITHM_NOT_ALLOWED');
    });
  }

  it('none is refused as a configured algorithm', () => {
    expect(thrown(() => new JwtConfig(SECRET).algorithm('none' as 'HS256'))).toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'algorithm',
    });
  });

  it('authenticate answers anonymous and notes the failure', async () => {
    const { events, received } = recordEvents();
    const jwt = new JwtAuthenticator(
      new JwtConfig(SECRET).clock(() => NOW),
      { events },
    );
    const unsigned = compact({ alg: 'none', typ: 'at+jwt' }, claimsAt({ roles: ['ADMIN'] }));
    expect(await jwt.authenticate(requestWith(bearer(unsigned)))).toBeNull();
    expect(received).toMatchObject([{ type: 'authentication-failure', reason: 'invalid-token' }]);
  });
});

describe('algorithm confusion', () => {
  it('an RS256 verifier refuses HS256 signed with its public key PEM as the secret', async () => {
    const pem = keyPairs.rsa().publicKey.export({ type: 'spki', format: 'pem' });
    const token = hmacToken(pem, { alg: 'HS256', typ: 'at+jwt' }, claimsAt({ roles: ['ADMIN'] }));
    await expectJwtError(rs().validateToken(token), 'ERR_JWT_ALGORITHM_NOT_ALLOWED');
    const pkcs1 = keyPairs.rsa().publicKey.export({ type: 'pkcs1', format: 'pem' });
    const other = hmacToken(pkcs1, { alg: 'HS256', typ: 'at+jwt' }, claimsAt());
    await expectJwtError(rs().validateToken(other), 'ERR_JWT_ALGORITHM_NOT_ALLOWED');
  });

  it('an ES256 verifier refuses HS256 signed with its public key PEM', async () => {
    const pem = keyPairs.p256().publicKey.export({ type: 'spki', format: 'pem' });
    const token = hmacToken(pem, { alg: 'HS256', typ: 'at+jwt' }, claimsAt());
    await expectJwtError(es().validateToken(token), 'ERR_JWT_ALGORITHM_NOT_ALLOWED');
  });

  it('a public key is refused as an HMAC secret at configuration time, in every form', () => {
    const { publicKey } = keyPairs.rsa();
    const pem = publicKey.export({ type: 'spki', format: 'pem' });
    const forms: readonly (readonly [string, () => unknown])[] = [
      ['PEM string + algorithm()', () => new JwtConfig(pem).algorithm('HS256')],
      ['PEM string in options', () => new JwtConfig({ secret: pem, algorithm: 'HS256' })],
      ['PEM + algorithms()', () => new JwtConfig(pem).algorithms(['RS256', 'HS256'])],
      ['PEM bytes (readFileSync)', () => new JwtConfig(Buffer.from(pem))],
      ['PEM bytes as Uint8Array', () => new JwtConfig(new Uint8Array(Buffer.from(pem)))],
      ['SPKI DER bytes', () => new JwtConfig(publicKey.export({ type: 'spki', format: 'der' }))],
      ['PKCS#1 DER bytes', () => new JwtConfig(publicKey.export({ type: 'pkcs1', format: 'der' }))],
      ['a secret KeyObject of PEM bytes', () => new JwtConfig(createSecretKey(Buffer.from(pem)))],
      ['an oct JWK of PEM bytes', () => new JwtConfig({ kty: 'oct', k: b64url(pem) })],
      ['a public KeyObject + HS256', () => new JwtConfig(publicKey).algorithm('HS256')],
      [
        'a public JWK + HS256',
        () => new JwtConfig(publicJwk(publicKey, 'k', 'RS256')).algorithm('HS256'),
      ],
      [
        'an EC PEM as bytes',
        () =>
          new JwtConfig(
            Buffer.from(keyPairs.p256().publicKey.export({ type: 'spki', format: 'pem' })),
          ),
      ],
    ];
    for (const [name, make] of forms) {
      expect(thrown(make), name).toMatchObject({ code: 'ERR_INVALID_OPTION' });
    }
    // Random bytes of the same sizes are fine secrets.
    expect(() => new JwtConfig(Buffer.alloc(300, 0x41))).not.toThrow();
  });

  it('a forged ECDSA signature of zeros (CVE-2022-21449) is refused', async () => {
    const token = `${(await sign(keyPairs.p256().privateKey, claimsAt(), { alg: 'ES256' })).split('.').slice(0, 2).join('.')}.${b64url(Buffer.alloc(64))}`;
    await expectJwtError(es().validateToken(token), 'ERR_JWT_BAD_SIGNATURE');
  });
});

describe('signatures', () => {
  it('a token signed by another key of the same kind', async () => {
    await expectJwtError(
      hs().validateToken(await sign(secretOf(64), claimsAt())),
      'ERR_JWT_BAD_SIGNATURE',
    );
    const other = await sign(keyPairs.rsa2().privateKey, claimsAt(), { alg: 'RS256' });
    await expectJwtError(rs().validateToken(other), 'ERR_JWT_BAD_SIGNATURE');
  });

  it('a forged payload or header with the original signature', async () => {
    const token = await sign(SECRET, claimsAt({ roles: ['USER'] }));
    const [header, , signature] = token.split('.') as [string, string, string];
    const payload = b64url(claimsAt({ roles: ['ADMIN'] }));
    await expectJwtError(
      hs().validateToken(`${header}.${payload}.${signature}`),
      'ERR_JWT_BAD_SIGNATURE',
    );
    const otherSub = b64url(claimsAt({ sub: 'admin', roles: ['USER'] }));
    await expectJwtError(
      hs().validateToken(`${header}.${otherSub}.${signature}`),
      'ERR_JWT_BAD_SIGNATURE',
    );
    const header2 = b64url({ alg: 'HS256', typ: 'at+jwt', kid: 'x' });
    const original = token.split('.')[1]!;
    await expectJwtError(
      hs().validateToken(`${header2}.${original}.${signature}`),
      'ERR_JWT_BAD_SIGNATURE',
    );
    await expectJwtError(hs().validateToken(`${header}.${original}.`), 'ERR_JWT_BAD_SIGNATURE');
  });

  it('a crit header jose does not understand makes the token malformed', async () => {
    for (const crit of [['x-custom'], ['exp'], 'x-custom', []]) {
      const token = hmacToken(
        SECRET,
        { alg: 'HS256', typ: 'at+jwt', crit, 'x-custom': 1 },
        claimsAt(),
      );
      await expectJwtError(hs().validateToken(token), 'ERR_JWT_MALFORMED');
    }
  });
});

describe('jku, x5u and jwk headers are never followed', () => {
  let attacker: KeyServer;
  beforeAll(async () => {
    attacker = await startKeyServer();
    attacker.serveKeys([publicJwk(keyPairs.rsa2().publicKey, 'evil', 'RS256')]);
  });
  afterAll(() => attacker.close());

  it('an attacker key named in the header is ignored (static key)', async () => {
    const header = {
      alg: 'RS256',
      kid: 'evil',
      jku: attacker.url,
      x5u: attacker.url,
      jwk: publicJwk(keyPairs.rsa2().publicKey, 'evil', 'RS256'),
    };
    const token = await sign(keyPairs.rsa2().privateKey, claimsAt({ roles: ['ADMIN'] }), header);
    await expectJwtError(rs().validateToken(token), 'ERR_JWT_BAD_SIGNATURE');
    expect(attacker.requests).toBe(0);
  });

  it('an embedded oct jwk is not the HMAC secret', async () => {
    const evil = secretOf(64);
    const token = await sign(evil, claimsAt(), { jwk: { kty: 'oct', k: b64url(evil) } });
    await expectJwtError(hs().validateToken(token), 'ERR_JWT_BAD_SIGNATURE');
  });

  it('in JWKS mode, only the configured key set is fetched', async () => {
    const trusted = await startKeyServer();
    try {
      trusted.serveKeys([publicJwk(keyPairs.rsa().publicKey, 'good', 'RS256')]);
      const jwt = new JwtAuthenticator(JwtConfig.jwks(trusted.url).clock(() => NOW));
      const token = await sign(keyPairs.rsa2().privateKey, claimsAt(), {
        alg: 'RS256',
        kid: 'evil',
        jku: attacker.url,
        jwk: publicJwk(keyPairs.rsa2().publicKey, 'evil', 'RS256'),
      });
      await expectJwtError(jwt.validateToken(token), 'ERR_JWT_KEY_NOT_FOUND');
      const sameKid = await sign(keyPairs.rsa2().privateKey, claimsAt(), {
        alg: 'RS256',
        kid: 'good',
        jwk: publicJwk(keyPairs.rsa2().publicKey, 'good', 'RS256'),
      });
      await expectJwtError(jwt.validateToken(sameKid), 'ERR_JWT_BAD_SIGNATURE');
      expect(attacker.requests).toBe(0);
      expect(trusted.requests).toBeGreaterThan(0);
    } finally {
      await trusted.close();
    }
  });
});
