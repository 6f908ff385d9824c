import { PortcullisError } from '../core/errors.js';

/** The stable codes of {@link OAuth2Error}. */
export type OAuth2ErrorCode =
  /** Discovery failed or the provider metadata is invalid (never a silent downgrade to OAuth2). */
  | 'ERR_OAUTH2_DISCOVERY'
  /** The callback's `state` is missing, wrong, replayed or of another transaction. */
  | 'ERR_OAUTH2_STATE'
  /** The callback's `iss` (RFC 9207) is missing where required, or not the provider's. */
  | 'ERR_OAUTH2_ISSUER'
  /** The provider answered with an error (`error=access_denied`, …). */
  | 'ERR_OAUTH2_PROVIDER_ERROR'
  /** The callback or a provider response is malformed (duplicated parameters, bad JSON, …). */
  | 'ERR_OAUTH2_INVALID_RESPONSE'
  /** The code exchange failed (bad code, PKCE verifier mismatch, client authentication). */
  | 'ERR_OAUTH2_TOKEN_EXCHANGE'
  /** The ID token failed validation (signature, issuer, audience, azp, expiry, nonce, alg). */
  | 'ERR_OAUTH2_ID_TOKEN'
  /** The userinfo response failed (its `sub` differs from the ID token's, …). */
  | 'ERR_OAUTH2_USERINFO'
  /** The login transaction cookie is missing, expired, tampered or already used. */
  | 'ERR_OAUTH2_TRANSACTION'
  /** The application's mapper refused the user (or failed). */
  | 'ERR_OAUTH2_USER_REFUSED'
  /** Refreshing provider tokens failed. */
  | 'ERR_OAUTH2_REFRESH'
  /** No client is registered under the registration id. */
  | 'ERR_OAUTH2_UNKNOWN_REGISTRATION'
  /** The provider could not be reached. */
  | 'ERR_OAUTH2_NETWORK';

/**
 * A failed OAuth2 / OIDC step, with a stable `code`. The message never contains a
 * token, a code, a secret or the provider's raw error text; `providerError` holds
 * the provider's `error` code (an RFC 6749 token such as `access_denied`) when there
 * is one, for logs.
 */
export class OAuth2Error extends PortcullisError {
  override readonly code: OAuth2ErrorCode;
  /** The provider's `error` value, when it sent one (validated as an RFC 6749 error token). */
  readonly providerError: string | undefined;

  constructor(
    code: OAuth2ErrorCode,
    message: string,
    options?: ErrorOptions & { readonly providerError?: string | undefined },
  ) {
    super(message, options);
    this.code = code;
    const error = options?.providerError;
    this.providerError =
      typeof error === 'string' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/u.test(error)
        ? error
        : undefined;
  }
}
