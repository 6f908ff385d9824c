import { createPublicKey, createSecretKey, KeyObject } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';

/** A JSON Web Key, as far as portcullis reads it (RFC 7517). */
export interface JsonWebKeyInput {
  readonly kty: string;
  readonly [parameter: string]: unknown;
}

/** Whether key material is an HMAC secret (a non-PEM string, bytes, a secret key, an oct JWK). @internal */
export function isSecretInput(input: unknown): boolean {
  return (
    (typeof input === 'string' && !input.includes('-----BEGIN')) ||
    input instanceof Uint8Array ||
    (input instanceof KeyObject && input.type === 'secret') ||
    (isJwk(input) && input.kty === 'oct')
  );
}

/** The HMAC secret of key material, refusing anything that is really a public key. @internal */
export function toSecret(input: unknown): KeyObject {
  const secret = readSecret(input);
  if (isPublicKeyMaterial(secret.export())) {
    throw new ConfigurationError(
      'secret',
      'a public key (PEM or DER bytes) cannot be an HMAC secret: anyone holding it could sign tokens; pass the key as a PEM string or KeyObject with an RS, PS, ES or EdDSA algorithm',
    );
  }
  return secret;
}

function readSecret(input: unknown): KeyObject {
  if (input instanceof KeyObject) {
    if (input.type !== 'secret') {
      throw new ConfigurationError(
        'secret',
        'an HMAC algorithm needs a secret key, not a public or private key',
      );
    }
    return input;
  }
  if (typeof input === 'string') {
    if (input.includes('-----BEGIN')) {
      throw new ConfigurationError(
        'secret',
        'a PEM key cannot be an HMAC secret (choose an RS, PS, ES or EdDSA algorithm)',
      );
    }
    return createSecretKey(Buffer.from(input, 'utf8'));
  }
  if (input instanceof Uint8Array) return createSecretKey(Buffer.from(input));
  if (isJwk(input)) {
    if (input.kty !== 'oct' || typeof input['k'] !== 'string') {
      throw new ConfigurationError('secret', 'an HMAC algorithm needs an "oct" JWK');
    }
    return createSecretKey(Buffer.from(input['k'], 'base64url'));
  }
  throw new ConfigurationError(
    'secret',
    'must be a string, bytes, a secret KeyObject or an "oct" JWK',
  );
}

/**
 * Whether secret bytes are really a key: PEM text (`readFileSync('public.pem')`
 * gives bytes, not a string) or a DER public key. Used as an HMAC secret, a public
 * key lets anyone sign (the algorithm-confusion attack).
 */
function isPublicKeyMaterial(bytes: Buffer): boolean {
  if (bytes.includes('-----BEGIN')) return true;
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      createPublicKey({ key: bytes, format: 'der', type });
      return true;
    } catch {
      // not a DER public key of this type
    }
  }
  return false;
}

/** Whether a value is a JWK (an object with a string `kty`). @internal */
export function isJwk(value: unknown): value is JsonWebKeyInput {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof KeyObject) &&
    typeof (value as { kty?: unknown }).kty === 'string'
  );
}
