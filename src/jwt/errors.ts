import { PortcullisError } from '../core/errors.js';

/** The stable codes of {@link JwtError}. */
export type JwtErrorCode =
  /** `exp` is past (beyond the leeway). */
  | 'ERR_JWT_EXPIRED'
  /** `nbf` or `iat` is in the future (beyond the leeway). */
  | 'ERR_JWT_NOT_YET_VALID'
  /** The signature does not verify with the configured key. */
  | 'ERR_JWT_BAD_SIGNATURE'
  /** `iss` is not the configured issuer. */
  | 'ERR_JWT_BAD_ISSUER'
  /** `aud` names none of the configured audiences. */
  | 'ERR_JWT_BAD_AUDIENCE'
  /** Not a well-formed signed JWT (compact JWS with a JSON claims set), or a required claim missing or of the wrong type. */
  | 'ERR_JWT_MALFORMED'
  /** The header's `alg` is not one the configuration allows (`none` never is). */
  | 'ERR_JWT_ALGORITHM_NOT_ALLOWED'
  /** The token is longer than `maxTokenLength`; it was not decoded. */
  | 'ERR_JWT_TOO_LARGE'
  /** The token's type is not the expected one (a refresh or ID token used as an access token, …). */
  | 'ERR_JWT_WRONG_TYPE'
  /** JWKS mode: no key of the key set matches the token's `kid` / `alg`. */
  | 'ERR_JWT_KEY_NOT_FOUND'
  /** JWKS mode: the key set could not be fetched (timeout, network, bad response). */
  | 'ERR_JWT_JWKS_UNAVAILABLE'
  /**
   * A spent refresh token was presented again: after the grace window its family is
   * revoked; within the window but unknown to this process (another process's
   * refresh), the refresh is refused and the family kept.
   */
  | 'ERR_JWT_REFRESH_REUSED'
  /** The refresh token's family was revoked (after reuse, logout everywhere, …). */
  | 'ERR_JWT_REVOKED'
  /** The refresh token's user no longer exists. */
  | 'ERR_JWT_UNKNOWN_USER'
  /** The refresh token's user is locked, disabled or expired, or its password expired (the family is kept). */
  | 'ERR_JWT_ACCOUNT_INACTIVE'
  /** Signing failed (no private key, a key the runtime refuses, …). */
  | 'ERR_JWT_SIGNING_FAILED';

/**
 * A token that cannot be used, or cannot be made, with a stable `code`. The
 * message never contains the token, a claim value or the key.
 *
 * @example
 * ```ts
 * try {
 *   await jwt.validateToken(token);
 * } catch (error) {
 *   if (error instanceof JwtError && error.code === 'ERR_JWT_EXPIRED') … // ask for a refresh
 * }
 * ```
 */
export class JwtError extends PortcullisError {
  override readonly code: JwtErrorCode;

  constructor(code: JwtErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** The fixed RFC 6750 `error_description` of each code (never a claim value). @internal */
export const DESCRIPTIONS: Readonly<Record<JwtErrorCode, string>> = Object.freeze({
  ERR_JWT_EXPIRED: 'The access token expired',
  ERR_JWT_NOT_YET_VALID: 'The access token is not valid yet',
  ERR_JWT_BAD_SIGNATURE: 'The access token signature is invalid',
  ERR_JWT_BAD_ISSUER: 'The access token issuer is not accepted',
  ERR_JWT_BAD_AUDIENCE: 'The access token audience is not accepted',
  ERR_JWT_MALFORMED: 'The access token is malformed',
  ERR_JWT_ALGORITHM_NOT_ALLOWED: 'The access token algorithm is not accepted',
  ERR_JWT_TOO_LARGE: 'The access token is too large',
  ERR_JWT_WRONG_TYPE: 'The token is not an access token',
  ERR_JWT_KEY_NOT_FOUND: 'The access token signing key is unknown',
  ERR_JWT_JWKS_UNAVAILABLE: 'The access token could not be verified',
  ERR_JWT_REFRESH_REUSED: 'The refresh token was already used',
  ERR_JWT_REVOKED: 'The token was revoked',
  ERR_JWT_UNKNOWN_USER: 'The token user is unknown',
  ERR_JWT_ACCOUNT_INACTIVE: 'The token user may not log in now',
  ERR_JWT_SIGNING_FAILED: 'The token could not be signed',
});
