import { createPrivateKey, createPublicKey, KeyObject, type JsonWebKey } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';
import { isJwk, isSecretInput, toSecret, type JsonWebKeyInput } from './secret.js';

/** The signature algorithms portcullis signs and verifies with (never `none`). */
export type JwtAlgorithm =
  | 'HS256'
  | 'HS384'
  | 'HS512'
  | 'RS256'
  | 'RS384'
  | 'RS512'
  | 'PS256'
  | 'PS384'
  | 'PS512'
  | 'ES256'
  | 'ES384'
  | 'ES512'
  | 'EdDSA';

/** Every supported algorithm. @internal */
export const ALGORITHMS: readonly JwtAlgorithm[] = Object.freeze([
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
]);

export type { JsonWebKeyInput };

/**
 * Key material: an HMAC secret (a string of at least the hash size in UTF-8 bytes,
 * or bytes), a `KeyObject`, a PEM string (`-----BEGIN …`), a JWK, or a pair whose
 * private key signs and public key verifies.
 */
export type JwtKeyInput =
  | string
  | Uint8Array
  | KeyObject
  | JsonWebKeyInput
  | { readonly privateKey?: JwtKeyInput; readonly publicKey?: JwtKeyInput };

/** The keys of a configuration: `sign` when it can make tokens, `verify` always. @internal */
export interface KeyPair {
  readonly sign: KeyObject | undefined;
  readonly verify: KeyObject;
}

const HMAC_BYTES: Partial<Record<JwtAlgorithm, number>> = { HS256: 32, HS384: 48, HS512: 64 };
const EC_CURVES: Partial<Record<JwtAlgorithm, string>> = {
  ES256: 'prime256v1',
  ES384: 'secp384r1',
  ES512: 'secp521r1',
};

/** Whether an algorithm is an HMAC one. @internal */
export function isHmac(algorithm: JwtAlgorithm): boolean {
  return algorithm.startsWith('HS');
}

/** Validates an algorithm name. @internal */
export function requireAlgorithm(value: unknown, option = 'algorithm'): JwtAlgorithm {
  if (typeof value === 'string' && (ALGORITHMS as readonly string[]).includes(value)) {
    return value as JwtAlgorithm;
  }
  throw new ConfigurationError(option, `must be one of ${ALGORITHMS.join(', ')} (never none)`);
}

/**
 * Turns key material into the keys of `algorithm`, refusing what does not fit: an
 * HMAC secret shorter than the hash (32/48/64 bytes), a PEM or JWK public key as an
 * HMAC secret, also as bytes or DER (the algorithm-confusion attack), a secret for an
 * asymmetric algorithm, an RSA key under 2048 bits or an RSA-PSS-only key, an EC key
 * on another curve, a non-Ed25519 key for EdDSA.
 *
 * @internal
 */
export function readKeys(input: unknown, algorithm: JwtAlgorithm): KeyPair {
  if (isHmac(algorithm)) {
    const secret = toSecret(input);
    const size = secret.symmetricKeySize ?? 0;
    const needed = HMAC_BYTES[algorithm] ?? 32;
    if (size < needed) {
      throw new ConfigurationError(
        'secret',
        `must be at least ${needed} bytes for ${algorithm} (got ${size}); use e.g. randomBytes(${needed}).toString('base64url') from node:crypto`,
      );
    }
    return { sign: secret, verify: secret };
  }
  if (isSecretInput(input)) {
    throw new ConfigurationError(
      'algorithm',
      `${algorithm} needs a public or private key; the configured key is an HMAC secret`,
    );
  }
  const { sign, verify } = toAsymmetric(input);
  checkAsymmetric(verify, algorithm);
  return { sign, verify };
}

/**
 * The algorithm a key is used with unless one is chosen: HS256 for a secret,
 * RS256 for RSA, ES256/384/512 by curve, EdDSA for Ed25519 (RSA-PSS-only and Ed448
 * keys are then refused by {@link readKeys}: jose 6 cannot use them).
 *
 * @internal
 */
export function defaultAlgorithm(input: unknown): JwtAlgorithm {
  if (isSecretInput(input)) return 'HS256';
  const { verify } = toAsymmetric(input);
  const type = verify.asymmetricKeyType;
  if (type === 'rsa') return 'RS256';
  if (type === 'rsa-pss') return 'PS256';
  if (type === 'ec') {
    const curve = verify.asymmetricKeyDetails?.namedCurve;
    const found = (Object.keys(EC_CURVES) as JwtAlgorithm[]).find((a) => EC_CURVES[a] === curve);
    if (found) return found;
    throw new ConfigurationError(
      'key',
      `EC keys must be on P-256, P-384 or P-521, not ${String(curve)}`,
    );
  }
  if (type === 'ed25519' || type === 'ed448') return 'EdDSA';
  throw new ConfigurationError('key', `keys of type ${String(type)} cannot sign JWTs`);
}

function toAsymmetric(input: unknown): { sign: KeyObject | undefined; verify: KeyObject } {
  if (
    typeof input === 'object' &&
    input !== null &&
    !isJwk(input) &&
    !(input instanceof KeyObject) &&
    !(input instanceof Uint8Array)
  ) {
    const { privateKey, publicKey } = input as { privateKey?: unknown; publicKey?: unknown };
    const sign = privateKey === undefined ? undefined : toKeyObject(privateKey, 'privateKey');
    if (sign && sign.type !== 'private')
      throw new ConfigurationError('privateKey', 'must be a private key');
    const verify =
      publicKey === undefined ? sign && createPublicKey(sign) : toKeyObject(publicKey, 'publicKey');
    if (!verify) throw new ConfigurationError('key', 'needs a privateKey, a publicKey or both');
    if (verify.type !== 'public') throw new ConfigurationError('publicKey', 'must be a public key');
    if (sign && !samePublicKey(sign, verify)) {
      throw new ConfigurationError('publicKey', 'does not belong to the private key');
    }
    return { sign, verify };
  }
  const key = toKeyObject(input, 'key');
  if (key.type === 'secret') {
    throw new ConfigurationError(
      'key',
      'an asymmetric algorithm (RS, PS, ES, EdDSA) needs a public or private key, not a secret',
    );
  }
  return key.type === 'private'
    ? { sign: key, verify: createPublicKey(key) }
    : { sign: undefined, verify: key };
}

function toKeyObject(input: unknown, option: string): KeyObject {
  if (input instanceof KeyObject) return input;
  try {
    if (typeof input === 'string') {
      if (!input.includes('-----BEGIN')) {
        throw new ConfigurationError(
          option,
          'must be a PEM key (-----BEGIN …), a KeyObject or a JWK',
        );
      }
      return input.includes('PRIVATE KEY') ? createPrivateKey(input) : createPublicKey(input);
    }
    if (isJwk(input)) {
      const jwk = input as unknown as JsonWebKey;
      return 'd' in input
        ? createPrivateKey({ key: jwk, format: 'jwk' })
        : createPublicKey({ key: jwk, format: 'jwk' });
    }
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    throw new ConfigurationError(option, 'is not a valid key');
  }
  throw new ConfigurationError(option, 'must be a PEM key, a KeyObject or a JWK');
}

function checkAsymmetric(key: KeyObject, algorithm: JwtAlgorithm): void {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  const family = algorithm.slice(0, 2);
  if (family === 'RS' || family === 'PS') {
    // An RSASSA-PSS-only key (type rsa-pss) cannot go through jose 6 (it exports keys as
    // JWK, which Node refuses for rsa-pss): every request would fail. Plain RSA keys
    // sign PS256/384/512.
    if (type === 'rsa-pss') {
      throw new ConfigurationError(
        'key',
        `an RSA-PSS (id-RSASSA-PSS) key cannot be used; use a plain RSA key with ${algorithm}`,
      );
    }
    if (type !== 'rsa')
      throw new ConfigurationError(
        'algorithm',
        `${algorithm} needs an RSA key, not ${String(type)}`,
      );
    if ((details.modulusLength ?? 0) < 2048) {
      throw new ConfigurationError(
        'key',
        `an RSA key for ${algorithm} must have at least 2048 bits`,
      );
    }
    return;
  }
  if (family === 'ES') {
    const curve = EC_CURVES[algorithm];
    if (type !== 'ec' || details.namedCurve !== curve) {
      throw new ConfigurationError(
        'algorithm',
        `${algorithm} needs an EC key on curve ${String(curve)}`,
      );
    }
    return;
  }
  // jose 6 signs and verifies EdDSA with Ed25519 only: an Ed448 key would fail every request.
  if (type !== 'ed25519') {
    throw new ConfigurationError('algorithm', `EdDSA needs an Ed25519 key, not ${String(type)}`);
  }
}

function samePublicKey(privateKey: KeyObject, publicKey: KeyObject): boolean {
  return createPublicKey(privateKey).equals(publicKey);
}
