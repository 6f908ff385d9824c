import { errors } from 'jose';
import { deadlineExceeded } from '../core/deadline.js';
import { UnavailableError } from '../core/errors.js';
import type { AuthenticationFailureReason, SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import type { JwtSettings } from './config.js';
import type { JwtError, JwtErrorCode } from './errors.js';

/**
 * Reads the token of a bearer `Authorization` header (RFC 6750 §2.1:
 * `Bearer 1*SP b64token`) with the configured prefix. Tokens in the query string are
 * never read.
 *
 * @internal
 */
export class BearerHeader {
  readonly #prefix: string;
  readonly #bareScheme: string;

  constructor(headerPrefix: string) {
    this.#prefix = headerPrefix.toLowerCase();
    this.#bareScheme = headerPrefix.trim().toLowerCase() || '\u0000';
  }

  /**
   * The token of the header: `undefined` when the header is of another scheme, `''`
   * for the scheme without a token (`Bearer` alone: HTTP trims the space).
   */
  read(header: string): string | undefined {
    // Trailing spaces and tabs are the field's optional whitespace. Nothing else is
    // trimmed (String#trim would take Unicode spaces too).
    if (header.slice(0, this.#prefix.length).toLowerCase() === this.#prefix) {
      return credentialOf(header, this.#prefix.length);
    }
    return header.trim().toLowerCase() === this.#bareScheme ? '' : undefined;
  }
}

/** The event reason of a refused access token. @internal */
export function reasonOf(code: JwtErrorCode): AuthenticationFailureReason {
  if (code === 'ERR_JWT_EXPIRED' || code === 'ERR_JWT_NOT_YET_VALID') return 'expired-token';
  if (code === 'ERR_JWT_REVOKED') return 'revoked-token';
  return 'invalid-token';
}

/**
 * The credential after the scheme: leading spaces (`1*SP`) and trailing spaces and
 * tabs (optional whitespace) removed, nothing else. A loop, not a regex: a run of
 * spaces before a non-space would make `/[ \t]+$/` quadratic.
 */
function credentialOf(header: string, start: number): string {
  let end = header.length;
  while (end > start && (header[end - 1] === ' ' || header[end - 1] === '\t')) end--;
  while (start < end && header[start] === ' ') start++;
  return header.slice(start, end);
}

/**
 * Whether a key-set failure is jose's `timeoutDuration` passing: before the headers
 * (`JWKSTimeout`) or while the body was read (the abort's `TimeoutError`, wrapped).
 */
export function timedOut(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof errors.JWKSTimeout || current.name === 'TimeoutError') return true;
    current = current.cause;
  }
  return false;
}

/**
 * The key set could not be fetched (jose's `timeoutDuration` passed, the server is
 * unreachable or answers garbage): the token was not checked, so the request fails
 * closed with 503 instead of going on as anonymous.
 *
 * @internal
 */
export function keySetUnavailable(
  error: JwtError,
  settings: JwtSettings,
  events: SecurityEvents,
  request: SecurityRequest,
): UnavailableError {
  const timeoutMs = settings.jwks?.timeoutMs;
  if (timeoutMs !== undefined && timedOut(error)) {
    return deadlineExceeded('jwks', timeoutMs, events, request);
  }
  return new UnavailableError('The key set could not be fetched', 5, { cause: error });
}
