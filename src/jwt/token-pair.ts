/** An access token and a refresh token, as a login or refresh route returns them. Frozen. */
export interface TokenPair {
  /** The short-lived access token (`typ: at+jwt`), sent as `Authorization: Bearer …`. */
  readonly accessToken: string;
  /** The long-lived refresh token (`typ: refresh+jwt`), exchanged with `refresh()`; keep it secret. */
  readonly refreshToken: string;
  readonly tokenType: 'Bearer';
  /** The access-token lifetime in seconds. */
  readonly expiresIn: number;
  /** The refresh-token lifetime in seconds. */
  readonly refreshExpiresIn: number;
}

/** A {@link TokenPair} as an OAuth 2.0 token response body (RFC 6749 §5.1, snake_case). */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
  /** Not in RFC 6749; the name Keycloak and others use. */
  readonly refresh_expires_in: number;
}

/**
 * The OAuth 2.0 token-response body of a pair (RFC 6749 §5.1). Send it with
 * `Cache-Control: no-store`.
 *
 * @example
 * ```ts
 * const pair = await tokens.generateTokenPair(user);
 * res.setHeader('Cache-Control', 'no-store');
 * res.end(JSON.stringify(toTokenResponse(pair)));
 * ```
 */
export function toTokenResponse(pair: TokenPair): TokenResponse {
  return {
    access_token: pair.accessToken,
    token_type: pair.tokenType,
    expires_in: pair.expiresIn,
    refresh_token: pair.refreshToken,
    refresh_expires_in: pair.refreshExpiresIn,
  };
}
