import { createPrivateKey, KeyObject } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';
import { requireInteger, requireName } from '../core/validate.js';
import { checkKeys } from './options.js';

/** Options of {@link appleClientSecret}. */
export interface AppleClientSecretOptions {
  /** The Apple Developer team id (the JWT `iss`). */
  readonly teamId: string;
  /** The id of the Sign in with Apple key (the JWT `kid`). */
  readonly keyId: string;
  /** The Services ID, the same as the configuration's client id (the JWT `sub`). */
  readonly clientId: string;
  /** The key's `.p8` file contents (PKCS #8 PEM, P-256), or a `KeyObject`. */
  readonly privateKey: string | KeyObject;
  /** The lifetime of each generated secret, in seconds (Apple allows 6 months). @defaultValue `3600` */
  readonly expiresInSeconds?: number;
  /** The clock in epoch milliseconds. @defaultValue `Date.now` */
  readonly clock?: () => number;
}

/**
 * Apple's client secret: an ES256 JWT signed with the app's Sign in with Apple key
 * (`iss` team id, `sub` client id, `aud` `https://appleid.apple.com`), signed with
 * `jose` (an optional peer) and renewed when a quarter of its lifetime is left. Pass the
 * returned function as the client secret.
 *
 * @example
 * ```ts
 * const secret = appleClientSecret({ teamId: 'TEAM123456', keyId: 'KEY1234567', clientId: 'com.example.web', privateKey: p8 });
 * new OAuth2Config('com.example.web', secret, 'https://app.example.com/login/oauth2/code/apple').provider(OAuth2Provider.Apple);
 * ```
 */
export function appleClientSecret(options: AppleClientSecretOptions): () => Promise<string> {
  checkKeys('appleClientSecret', options, [
    'teamId',
    'keyId',
    'clientId',
    'privateKey',
    'expiresInSeconds',
    'clock',
  ]);
  const teamId = requireName('teamId', options.teamId);
  const keyId = requireName('keyId', options.keyId);
  const clientId = requireName('clientId', options.clientId);
  const lifetime = requireInteger(
    'expiresInSeconds',
    options.expiresInSeconds ?? 3600,
    60,
    15_777_000,
  );
  const clock = options.clock ?? Date.now;
  const key = readKey(options.privateKey);
  let current: { readonly secret: Promise<string>; readonly renewAt: number } | undefined;

  return () => {
    const now = Math.floor(clock() / 1000);
    if (current === undefined || now >= current.renewAt) {
      const secret = sign(key, { teamId, keyId, clientId, now, lifetime });
      current = { secret, renewAt: now + Math.floor((lifetime * 3) / 4) };
      secret.catch(() => {
        current = undefined;
      });
    }
    return current.secret;
  };
}

async function sign(
  key: KeyObject,
  claims: { teamId: string; keyId: string; clientId: string; now: number; lifetime: number },
): Promise<string> {
  const { SignJWT } = await import('jose');
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: claims.keyId })
    .setIssuer(claims.teamId)
    .setSubject(claims.clientId)
    .setAudience('https://appleid.apple.com')
    .setIssuedAt(claims.now)
    .setExpirationTime(claims.now + claims.lifetime)
    .sign(key);
}

function readKey(input: unknown): KeyObject {
  let key: KeyObject;
  try {
    if (!(input instanceof KeyObject) && (typeof input !== 'string' || input.length === 0)) {
      throw new ConfigurationError('privateKey', 'must be a PEM string or a KeyObject');
    }
    key = input instanceof KeyObject ? input : createPrivateKey(input);
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    throw new ConfigurationError(
      'privateKey',
      'must be the PKCS #8 PEM of a Sign in with Apple key',
    );
  }
  if (
    key.type !== 'private' ||
    key.asymmetricKeyType !== 'ec' ||
    key.asymmetricKeyDetails?.namedCurve !== 'prime256v1'
  ) {
    throw new ConfigurationError('privateKey', 'must be a P-256 (ES256) private key');
  }
  return key;
}
