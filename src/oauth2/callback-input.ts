import { oauth2Error } from './error-mapping.js';
import type { OAuth2Expectations } from './types.js';

/**
 * The login transaction's values, all present: a state and a PKCE verifier, a nonce for
 * OpenID Connect and none for plain OAuth2; `ERR_OAUTH2_TRANSACTION` otherwise.
 *
 * @internal
 */
export function readExpectations(expected: unknown, oidc: boolean): OAuth2Expectations {
  const { state, pkceVerifier, nonce } =
    typeof expected === 'object' && expected !== null
      ? (expected as Partial<Record<keyof OAuth2Expectations, unknown>>)
      : {};
  const nonceOk = oidc ? typeof nonce === 'string' && nonce.length > 0 : nonce === undefined;
  if (
    typeof state !== 'string' ||
    state.length === 0 ||
    typeof pkceVerifier !== 'string' ||
    pkceVerifier.length === 0 ||
    !nonceOk
  ) {
    throw oauth2Error('ERR_OAUTH2_TRANSACTION');
  }
  return { state, pkceVerifier, nonce: nonce as string | undefined };
}

/**
 * The authorization response parameters: from the callback URL (absolute, or a path
 * resolved against the redirect URI), or a `form_post` body given as `URLSearchParams`.
 * A copy: validation never sees later changes.
 *
 * @internal
 */
export function readParameters(
  currentUrl: URL | string | URLSearchParams,
  redirectUri: string,
): URLSearchParams {
  if (currentUrl instanceof URLSearchParams) return new URLSearchParams(currentUrl);
  const url =
    currentUrl instanceof URL
      ? currentUrl
      : typeof currentUrl === 'string'
        ? URL.parse(currentUrl, redirectUri)
        : null;
  if (url === null) throw oauth2Error('ERR_OAUTH2_INVALID_RESPONSE');
  return new URLSearchParams(url.searchParams);
}
