import type { ClaimsSet } from './claims.js';
import type { JwtSettings } from './config.js';
import { JwtError } from './errors.js';

/** The claims of a verified refresh token that rotation needs. @internal */
export interface RefreshClaims {
  /** The username. */
  readonly sub: string;
  /** This token's id. */
  readonly jti: string;
  /** The family id, shared by every token descending from one login. */
  readonly fam: string;
  /** When the family started (the login), epoch milliseconds. */
  readonly authTimeMs: number;
  /** Expiry, epoch seconds. */
  readonly exp: number;
}

/** What a refresh token is made of. @internal */
export interface RefreshTokenInput {
  readonly sub: string;
  readonly jti: string;
  readonly fam: string;
  readonly authTimeMs: number;
  readonly nowMs: number;
  readonly ttlSeconds: number;
}

const MAX_ID_LENGTH = 128;

/**
 * The minimal claims set of a refresh token: `sub`, `iat`, `exp`, `jti`, `fam`,
 * `auth_time` (the login, a NumericDate with millisecond precision, RFC 7519 §2),
 * and `iss` / `aud` when configured. No roles: they are read again at refresh.
 *
 * @internal
 */
export function refreshPayload(
  settings: JwtSettings,
  input: RefreshTokenInput,
): Record<string, unknown> {
  const iat = Math.floor(input.nowMs / 1000);
  const { issuer, audience } = settings;
  return {
    sub: input.sub,
    iat,
    exp: iat + input.ttlSeconds,
    jti: input.jti,
    fam: input.fam,
    auth_time: input.authTimeMs / 1000,
    ...(issuer === undefined ? {} : { iss: issuer }),
    ...(audience === undefined ? {} : { aud: audience.length === 1 ? audience[0] : [...audience] }),
  };
}

/**
 * Reads the rotation claims of a verified refresh token.
 * @throws JwtError `ERR_JWT_MALFORMED` when one is missing or of the wrong type
 * @internal
 */
export function readRefreshClaims(claims: ClaimsSet): RefreshClaims {
  const jti = claims['jti'];
  const fam = claims['fam'];
  const authTime = claims['auth_time'];
  if (!isId(jti) || !isId(fam)) {
    throw new JwtError('ERR_JWT_MALFORMED', 'The refresh token needs "jti" and "fam" claims');
  }
  if (typeof authTime !== 'number' || !Number.isFinite(authTime) || authTime <= 0) {
    throw new JwtError('ERR_JWT_MALFORMED', 'The refresh token needs an "auth_time" claim');
  }
  return { sub: claims.sub, jti, fam, authTimeMs: Math.round(authTime * 1000), exp: claims.exp };
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH;
}
