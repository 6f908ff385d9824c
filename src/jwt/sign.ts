import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { User } from '../core/user.js';
import type { JwtSettings } from './config.js';
import { JwtError } from './errors.js';

/**
 * Signs a claims set with the configured key and first algorithm, with `typ` in the
 * protected header (`at+jwt` for access tokens, `refresh+jwt` for refresh tokens).
 *
 * @internal
 */
export async function signToken(
  settings: JwtSettings,
  payload: Record<string, unknown>,
  typ: string,
): Promise<string> {
  const key = settings.keys?.sign;
  const alg = settings.algorithms[0];
  if (!key || alg === undefined) {
    throw new JwtError(
      'ERR_JWT_SIGNING_FAILED',
      settings.jwks
        ? 'A JWKS configuration verifies tokens; it cannot sign them'
        : 'The configuration has a public key only; signing needs the private key',
    );
  }
  try {
    return await new SignJWT(payload).setProtectedHeader({ alg, typ }).sign(key);
  } catch (error) {
    throw new JwtError('ERR_JWT_SIGNING_FAILED', 'The token could not be signed', { cause: error });
  }
}

/**
 * The claims of an access token for the user: `sub`, `roles`, `authorities`, `iat`,
 * `exp`, `jti`, and `iss` / `aud` when configured.
 *
 * @internal
 */
export function accessPayload(settings: JwtSettings, user: User): Record<string, unknown> {
  const iat = Math.floor(settings.clock() / 1000);
  const { issuer, audience } = settings;
  return {
    sub: user.username,
    roles: [...user.roles],
    authorities: [...user.authorities],
    iat,
    exp: iat + settings.expirationSeconds,
    jti: randomUUID(),
    ...(issuer === undefined ? {} : { iss: issuer }),
    ...(audience === undefined ? {} : { aud: audience.length === 1 ? audience[0] : [...audience] }),
  };
}
