import * as oauth from 'oauth4webapi';
import { OAuth2Error, type OAuth2ErrorCode } from './errors.js';

/** Fixed messages: never a token, a code, a secret or the provider's `error_description`. */
const MESSAGES: Readonly<Record<OAuth2ErrorCode, string>> = {
  ERR_OAUTH2_DISCOVERY: 'OpenID Connect discovery failed or the provider metadata is invalid',
  ERR_OAUTH2_STATE: 'The authorization response state does not match the login transaction',
  ERR_OAUTH2_ISSUER: 'The authorization response issuer (iss) is missing or not the provider',
  ERR_OAUTH2_PROVIDER_ERROR: 'The provider answered the authorization request with an error',
  ERR_OAUTH2_INVALID_RESPONSE: 'The authorization response or a provider response is malformed',
  ERR_OAUTH2_TOKEN_EXCHANGE: 'The authorization code exchange failed',
  ERR_OAUTH2_ID_TOKEN: 'The ID token failed validation',
  ERR_OAUTH2_USERINFO: 'The user profile (userinfo) response failed validation',
  ERR_OAUTH2_TRANSACTION: 'The login transaction is missing or incomplete',
  ERR_OAUTH2_USER_REFUSED: 'The application refused the user',
  ERR_OAUTH2_REFRESH: 'Refreshing the provider tokens failed',
  ERR_OAUTH2_UNKNOWN_REGISTRATION: 'No OAuth2 client is registered under this id',
  ERR_OAUTH2_NETWORK: 'The provider could not be reached',
};

const OAUTH4WEBAPI_ERRORS = [
  oauth.OperationProcessingError,
  oauth.UnsupportedOperationError,
  oauth.ResponseBodyError,
  oauth.AuthorizationResponseError,
  oauth.WWWAuthenticateChallengeError,
];

/** A fetch that failed or timed out (no HTTP response at all). @internal */
export function isNetworkError(error: unknown): boolean {
  if (error instanceof DOMException) {
    return error.name === 'TimeoutError' || error.name === 'AbortError';
  }
  // fetch() rejects with a plain TypeError; oauth4webapi's own TypeErrors carry a `code`.
  return error instanceof TypeError && !('code' in error);
}

/**
 * An {@link OAuth2Error} with a fixed message; oauth4webapi's own (static) message is
 * appended for the logs. The cause is a copy holding only name, message and code: the
 * original errors carry response bodies, tokens and callback parameters.
 *
 * @internal
 */
export function oauth2Error(
  code: OAuth2ErrorCode,
  error?: unknown,
  providerError?: string,
): OAuth2Error {
  if (error instanceof OAuth2Error) return error;
  const fromLibrary = OAUTH4WEBAPI_ERRORS.some((type) => error instanceof type);
  const detail = fromLibrary ? `: ${(error as Error).message}` : '';
  return new OAuth2Error(code, `${MESSAGES[code]}${detail}`, {
    providerError,
    ...(error === undefined ? {} : { cause: safeCause(error) }),
  });
}

/** Maps a failure of one step: network, provider error bodies, else `code`. @internal */
export function stepError(error: unknown, code: OAuth2ErrorCode): OAuth2Error {
  if (error instanceof OAuth2Error) return error;
  if (isNetworkError(error)) return oauth2Error('ERR_OAUTH2_NETWORK', error);
  if (error instanceof oauth.ResponseBodyError) return oauth2Error(code, error, error.error);
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    return oauth2Error(code, error, error.cause[0]?.parameters.error);
  }
  return oauth2Error(code, error);
}

/**
 * Names what `validateAuthResponse` refused: oauth4webapi made the decision; this only
 * picks the code (RFC 9207 issuer, state, provider error, or malformed).
 *
 * @internal
 */
export function callbackError(
  error: unknown,
  parameters: URLSearchParams,
  as: oauth.AuthorizationServer,
  expectedState: string,
): OAuth2Error {
  if (error instanceof oauth.AuthorizationResponseError) {
    return oauth2Error('ERR_OAUTH2_PROVIDER_ERROR', error, error.error);
  }
  if (!(error instanceof oauth.OperationProcessingError)) {
    return oauth2Error('ERR_OAUTH2_INVALID_RESPONSE', error);
  }
  const iss = parameters.getAll('iss');
  const state = parameters.getAll('state');
  if (iss.length > 1 || state.length > 1 || parameters.has('response')) {
    return oauth2Error('ERR_OAUTH2_INVALID_RESPONSE', error);
  }
  const issuerRequired = as.authorization_response_iss_parameter_supported === true;
  if (iss.length === 1 ? iss[0] !== as.issuer : issuerRequired) {
    return oauth2Error('ERR_OAUTH2_ISSUER', error);
  }
  if (state[0] !== expectedState) return oauth2Error('ERR_OAUTH2_STATE', error);
  return oauth2Error('ERR_OAUTH2_INVALID_RESPONSE', error);
}

/**
 * Names what `processAuthorizationCodeResponse` refused: the token response itself
 * (an error body, a malformed body) or, with OpenID Connect, the ID token.
 *
 * @internal
 */
export function tokenResponseError(error: unknown, oidc: boolean): OAuth2Error {
  if (
    isNetworkError(error) ||
    error instanceof oauth.ResponseBodyError ||
    error instanceof oauth.WWWAuthenticateChallengeError
  ) {
    return stepError(error, 'ERR_OAUTH2_TOKEN_EXCHANGE');
  }
  const idTokenCode = oidc ? 'ERR_OAUTH2_ID_TOKEN' : 'ERR_OAUTH2_INVALID_RESPONSE';
  if (error instanceof oauth.OperationProcessingError) {
    if (error.code === oauth.RESPONSE_IS_NOT_CONFORM || error.code === oauth.RESPONSE_IS_NOT_JSON) {
      return oauth2Error('ERR_OAUTH2_TOKEN_EXCHANGE', error);
    }
    const body = bodyOf(error.cause);
    if (body !== undefined) {
      // GitHub answers some errors with status 200 and an `error` member.
      if (typeof body.error === 'string') {
        return oauth2Error('ERR_OAUTH2_TOKEN_EXCHANGE', error, body.error);
      }
      if (oidc && typeof body.access_token === 'string' && body.id_token === undefined) {
        return oauth2Error('ERR_OAUTH2_ID_TOKEN', error);
      }
      return oauth2Error('ERR_OAUTH2_INVALID_RESPONSE', error);
    }
    if (error.code === oauth.PARSE_ERROR && !error.message.includes('JWT')) {
      return oauth2Error('ERR_OAUTH2_INVALID_RESPONSE', error);
    }
    return oauth2Error(idTokenCode, error);
  }
  if (error instanceof oauth.UnsupportedOperationError) {
    return oauth2Error(
      bodyOf(error.cause) === undefined ? idTokenCode : 'ERR_OAUTH2_INVALID_RESPONSE',
      error,
    );
  }
  return oauth2Error('ERR_OAUTH2_TOKEN_EXCHANGE', error);
}

function bodyOf(cause: unknown): Readonly<Record<string, unknown>> | undefined {
  if (typeof cause !== 'object' || cause === null || !('body' in cause)) return undefined;
  const body = cause.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}

function safeCause(error: unknown): Error {
  if (!(error instanceof Error)) return new Error('non-error thrown');
  const copy = new Error(error.message);
  copy.name = error.name;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code });
  const inner = (error as { cause?: unknown }).cause;
  // fetch's TypeError('fetch failed') keeps the socket error (ECONNREFUSED, …) as its cause.
  if (isNetworkError(error) && inner instanceof Error) {
    const innerCode = (inner as { code?: unknown }).code;
    copy.cause = Object.assign(new Error(inner.message), {
      name: inner.name,
      ...(typeof innerCode === 'string' ? { code: innerCode } : {}),
    });
  }
  return copy;
}
