import { createSecretKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { User } from '../../src/core/index.js';
import {
  JwtAuthenticator,
  JwtConfig,
  type JwtAlgorithm,
  type JwtKeyInput,
} from '../../src/jwt/index.js';
import { NOW, SECRET, b64url, expectJwtError, keyPairs, secretOf, thrown } from './support.js';

const alice = new User('alice', '').withRoles(['USER']).withAuthorities(['posts:read']);

/** The forms a private and a public key can be given in. */
function forms(pair: { privateKey: KeyObject; publicKey: KeyObject }) {
  return {
    signing: {
      KeyObject: pair.privateKey,
      PEM: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }),
      JWK: pair.privateKey.export({ format: 'jwk' }) as JwtKeyInput,
      pair: { privateKey: pair.privateKey, publicKey: pair.publicKey },
    },
    verifying: {
      KeyObject: pair.publicKey,
      PEM: pair.publicKey.export({ type: 'spki', format: 'pem' }),
      JWK: pair.publicKey.export({ format: 'jwk' }) as JwtKeyInput,
      pair: { publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }) },
    },
  };
}

/** [name, key pair, algorithm, whether it is the key's default, other algorithms of the key]. */
const families: readonly (readonly [
  string,
  () => { privateKey: KeyObject; publicKey: KeyObject },
  JwtAlgorithm,
  boolean,
  readonly JwtAlgorithm[],
])[] = [
  ['RSA', keyPairs.rsa, 'RS256', true, ['RS384', 'RS512', 'PS384', 'PS512']],
  ['RSA (PSS padding)', keyPairs.rsa, 'PS256', false, []],
  ['P-256', keyPairs.p256, 'ES256', true, []],
  ['P-384', keyPairs.p384, 'ES384', true, []],
  ['P-521', keyPairs.p521, 'ES512', true, []],
  ['Ed25519', keyPairs.ed25519, 'EdDSA', true, []],
];

describe.each(families)('%s keys, %s', (_name, pair, alg, isDefault, otherAlgs) => {
  const configOf = (key: JwtKeyInput) => {
    const config = new JwtConfig(key).clock(() => NOW);
    return isDefault ? config : config.algorithm(alg);
  };

  it(`sign and verify ${alg} in every form (KeyObject, PEM, JWK, pair)`, async () => {
    const { signing, verifying } = forms(pair());
    for (const [signForm, key] of Object.entries(signing)) {
      const config = configOf(key);
      expect(config.resolve().algorithms, signForm).toEqual([alg]);
      const token = await new JwtAuthenticator(config).generateToken(alice);
      expect(decodeProtectedHeader(token)).toEqual({ alg, typ: 'at+jwt' });
      for (const [verifyForm, publicKey] of Object.entries(verifying)) {
        const verifier = new JwtAuthenticator(configOf(publicKey));
        const { claims } = await verifier.validateToken(token);
        expect(claims, `${signForm} → ${verifyForm}`).toMatchObject({
          sub: 'alice',
          roles: ['USER'],
        });
      }
    }
  });

  it.each(otherAlgs)('signs and verifies %s when chosen', async (other) => {
    const jwt = new JwtAuthenticator(
      new JwtConfig(pair().privateKey).algorithm(other).clock(() => NOW),
    );
    const token = await jwt.generateToken(alice);
    expect(decodeProtectedHeader(token).alg).toBe(other);
    await expect(jwt.validateToken(token)).resolves.toBeDefined();
    // A verifier of another algorithm only refuses it.
    const strict = new JwtAuthenticator(configOf(pair().publicKey));
    await expectJwtError(strict.validateToken(token), 'ERR_JWT_ALGORITHM_NOT_ALLOWED');
  });

  it('a public key verifies but cannot sign: ERR_JWT_SIGNING_FAILED', async () => {
    const jwt = new JwtAuthenticator(configOf(pair().publicKey));
    await expectJwtError(jwt.generateToken(alice), 'ERR_JWT_SIGNING_FAILED');
  });
});

describe('HMAC secrets', () => {
  const sizes = [
    ['HS256', 32],
    ['HS384', 48],
    ['HS512', 64],
  ] as const;

  it.each(sizes)('%s needs %i bytes: one less is refused, in every form', (alg, bytes) => {
    const short = secretOf(bytes - 1);
    for (const form of [
      short,
      Buffer.from(short),
      createSecretKey(Buffer.from(short)),
      { kty: 'oct', k: b64url(short) },
    ]) {
      const error = thrown(() => new JwtConfig(form).algorithm(alg));
      expect(error).toMatchObject({ code: 'ERR_INVALID_OPTION', option: 'secret' });
      expect((error as unknown as Error).message).not.toContain(short);
      expect(thrown(() => new JwtConfig({ secret: form, algorithm: alg }))).toMatchObject({
        code: 'ERR_INVALID_OPTION',
      });
    }
    const exact = secretOf(bytes);
    for (const form of [exact, Buffer.from(exact), { kty: 'oct', k: b64url(exact) }]) {
      expect(new JwtConfig(form).algorithm(alg).resolve().algorithms).toEqual([alg]);
    }
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(() => new JwtConfig('é'.repeat(16))).not.toThrow(); // 32 bytes
    expect(thrown(() => new JwtConfig(`${'é'.repeat(15)}a`))).toMatchObject({ option: 'secret' });
  });

  it('the default HS256 refuses a 31-byte secret in the constructor', () => {
    expect(thrown(() => new JwtConfig(secretOf(31)))).toMatchObject({ code: 'ERR_INVALID_OPTION' });
  });

  it('every algorithm of a list must fit the secret', () => {
    expect(thrown(() => new JwtConfig(secretOf(32)).algorithms(['HS256', 'HS512']))).toMatchObject({
      option: 'secret',
    });
    const both = new JwtConfig(SECRET).algorithms(['HS512', 'HS256']).resolve();
    expect(both.algorithms).toEqual(['HS512', 'HS256']);
  });

  it('signs with the first algorithm and accepts every listed one', async () => {
    const jwt = new JwtAuthenticator(
      new JwtConfig(SECRET).algorithms(['HS384', 'HS256']).clock(() => NOW),
    );
    const token = await jwt.generateToken(alice);
    expect(decodeProtectedHeader(token).alg).toBe('HS384');
    const older = new JwtAuthenticator(new JwtConfig(SECRET).clock(() => NOW));
    await expect(jwt.validateToken(await older.generateToken(alice))).resolves.toBeDefined();
  });
});

describe('algorithm and key mismatches are refused at configuration time', () => {
  const rsa1024 = () => generateKeyPairSync('rsa', { modulusLength: 1024 });
  const cases: readonly (readonly [string, () => unknown])[] = [
    ['an RSA key with ES256', () => new JwtConfig(keyPairs.rsa().privateKey).algorithm('ES256')],
    ['an RSA key with EdDSA', () => new JwtConfig(keyPairs.rsa().publicKey).algorithm('EdDSA')],
    ['a P-256 key with ES384', () => new JwtConfig(keyPairs.p256().privateKey).algorithm('ES384')],
    ['a P-384 key with ES256', () => new JwtConfig(keyPairs.p384().publicKey).algorithm('ES256')],
    ['a P-521 key with ES384', () => new JwtConfig(keyPairs.p521().publicKey).algorithm('ES384')],
    ['an EC key with PS256', () => new JwtConfig(keyPairs.p256().publicKey).algorithm('PS256')],
    [
      'an RSA-PSS key with RS256',
      () => new JwtConfig(keyPairs.rsaPss().publicKey).algorithm('RS256'),
    ],
    [
      'an RSA-PSS-only key (jose 6 cannot use it)',
      () => new JwtConfig(keyPairs.rsaPss().privateKey),
    ],
    [
      'an RSA-PSS-only key with PS256',
      () => new JwtConfig(keyPairs.rsaPss().publicKey).algorithm('PS256'),
    ],
    ['a 1024-bit RSA key', () => new JwtConfig(rsa1024().privateKey)],
    ['a 1024-bit RSA key with PS256', () => new JwtConfig(rsa1024().publicKey).algorithm('PS256')],
    ['a secret with RS256', () => new JwtConfig(SECRET).algorithm('RS256')],
    ['a secret with EdDSA', () => new JwtConfig(SECRET).algorithm('EdDSA')],
    [
      'an Ed25519 key with RS256',
      () => new JwtConfig(keyPairs.ed25519().privateKey).algorithm('RS256'),
    ],
    [
      'an Ed25519 key with HS256',
      () => new JwtConfig(keyPairs.ed25519().publicKey).algorithm('HS256'),
    ],
    [
      'an Ed448 key (jose 6 cannot sign with it)',
      () => new JwtConfig(generateKeyPairSync('ed448').privateKey),
    ],
    ['an X25519 key', () => new JwtConfig(generateKeyPairSync('x25519').publicKey)],
    [
      'a secp256k1 key',
      () => new JwtConfig(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey),
    ],
    [
      'a mixed HMAC and RSA list',
      () => new JwtConfig(keyPairs.rsa().publicKey).algorithms(['RS256', 'HS256']),
    ],
    ['an unknown algorithm', () => new JwtConfig(SECRET).algorithm('HS1' as JwtAlgorithm)],
    ['an empty algorithm list', () => new JwtConfig(SECRET).algorithms([])],
    [
      'a PEM that is not a key',
      () => new JwtConfig('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'),
    ],
    ['a JWK that is not a key', () => new JwtConfig({ kty: 'RSA', n: 'AA', e: 'AQAB' })],
  ];
  it.each(cases)('%s', (_name, make) => {
    expect(thrown(make)).toMatchObject({ code: 'ERR_INVALID_OPTION' });
  });
});

describe('key pairs', () => {
  it('a public key that does not belong to the private key is refused', () => {
    const error = thrown(
      () =>
        new JwtConfig({
          privateKey: keyPairs.rsa().privateKey,
          publicKey: keyPairs.rsa2().publicKey,
        }),
    );
    expect(error).toMatchObject({ code: 'ERR_INVALID_OPTION', option: 'publicKey' });
  });

  it('each half must be of its kind', () => {
    expect(thrown(() => new JwtConfig({ privateKey: keyPairs.rsa().publicKey }))).toMatchObject({
      option: 'privateKey',
    });
    expect(thrown(() => new JwtConfig({ publicKey: keyPairs.rsa().privateKey }))).toMatchObject({
      option: 'publicKey',
    });
    expect(thrown(() => new JwtConfig({ privateKey: undefined } as never))).toMatchObject({
      option: 'key',
    });
  });

  it('a matching pair signs with the private half and verifies with the public one', async () => {
    const { privateKey, publicKey } = keyPairs.p256();
    const jwt = new JwtAuthenticator(new JwtConfig({ privateKey, publicKey }).clock(() => NOW));
    await expect(jwt.validateToken(await jwt.generateToken(alice))).resolves.toBeDefined();
    expect(jwt.settings.keys?.sign).toBe(privateKey);
    expect(jwt.settings.keys?.verify).toBe(publicKey);
  });

  it('options { key } accepts a key pair and a PEM', async () => {
    const pem = keyPairs.ed25519().privateKey.export({ type: 'pkcs8', format: 'pem' });
    const jwt = new JwtAuthenticator(new JwtConfig({ key: pem, clock: () => NOW }));
    expect(jwt.settings.algorithms).toEqual(['EdDSA']);
    await expect(jwt.validateToken(await jwt.generateToken(alice))).resolves.toBeDefined();
  });
});
