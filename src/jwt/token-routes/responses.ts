import type { SecurityResponse } from '../../core/security.js';
import { toTokenResponse, type TokenPair } from '../token-pair.js';

/**
 * The RFC 6749 §5.2 error codes the token endpoints answer, and `slow_down` (the
 * token-endpoint error of RFC 8628 §3.5, in IANA's OAuth Extensions Error Registry)
 * with 429 when a login throttle refuses a login or a refresh.
 */
export type TokenErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'temporarily_unavailable'
  | 'slow_down';

/**
 * The fixed `error_description` of each refusal: none of them contains anything the
 * client sent (no username, password or token).
 *
 * @internal
 */
export const TOKEN_ERRORS = Object.freeze({
  method: ['invalid_request', 'Use POST'],
  mediaType: ['invalid_request', 'Send application/json'],
  tooLarge: ['invalid_request', 'The request body is too large'],
  malformed: ['invalid_request', 'The request body must be a JSON object'],
  repeated: ['invalid_request', 'A parameter was sent more than once'],
  credentials: ['invalid_request', 'username and password must be strings'],
  refreshToken: ['invalid_request', 'refresh_token must be a non-empty string'],
  grantType: ['unsupported_grant_type', 'The grant type is not supported here'],
  missingGrantType: ['invalid_request', 'grant_type is required in a form body'],
  badCredentials: ['invalid_grant', 'Bad credentials'],
  badRefreshToken: ['invalid_grant', 'The refresh token is invalid, expired or revoked'],
  unavailable: ['temporarily_unavailable', 'Try again later'],
  throttled: ['slow_down', 'Too many attempts; try again later'],
} satisfies Record<string, readonly [TokenErrorCode, string]>);

/** The name of a refusal of {@link TOKEN_ERRORS}. @internal */
export type TokenRefusal = keyof typeof TOKEN_ERRORS;

/** Never cached (RFC 6749 §5.1), on every answer of the token endpoints. */
const NO_STORE = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
});

const STATUS: Readonly<Partial<Record<TokenRefusal, number>>> = Object.freeze({
  method: 405,
  mediaType: 415,
  tooLarge: 413,
  unavailable: 503,
  throttled: 429,
});

/** A refusal of the token endpoints, as an `errorResponse` option sees it. */
export interface TokenEndpointError {
  /** The status of the default answer: 400, 405, 413, 415, 429 or 503. */
  readonly status: number;
  /** The RFC 6749 §5.2 error code. */
  readonly error: TokenErrorCode;
  /** The fixed description (never anything the client sent). */
  readonly description: string;
}

/** Answers a refusal in an application's own format; `undefined` keeps the default. */
export type TokenErrorFormatter = (error: TokenEndpointError) => SecurityResponse | undefined;

/**
 * The answer of a refusal: the RFC 6749 §5.2 JSON error, or what `format` makes of
 * it. `Cache-Control: no-store` and the protocol headers (`Allow`, `Retry-After`) are
 * kept either way; a formatter that throws leaves the default.
 *
 * @internal
 */
export function tokenError(
  refusal: TokenRefusal,
  protocolHeaders: Readonly<Record<string, string>> = {},
  format?: TokenErrorFormatter,
): SecurityResponse {
  const [error, description] = TOKEN_ERRORS[refusal];
  const status = STATUS[refusal] ?? 400;
  let custom: SecurityResponse | undefined;
  try {
    custom = format?.(Object.freeze({ status, error, description }));
  } catch {
    custom = undefined;
  }
  if (custom !== undefined) {
    return {
      status: custom.status,
      headers: { 'cache-control': 'no-store', ...custom.headers, ...protocolHeaders },
      body: custom.body,
    };
  }
  return {
    status,
    headers: { ...NO_STORE, ...protocolHeaders },
    body: JSON.stringify({ error, error_description: description }),
  };
}

/** 200 with the pair as an RFC 6749 §5.1 token response. @internal */
export function tokenSuccess(pair: TokenPair): SecurityResponse {
  return { status: 200, headers: NO_STORE, body: JSON.stringify(toTokenResponse(pair)) };
}
