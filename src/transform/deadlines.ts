import { DEFAULT_DEADLINES, requireDeadline } from '../core/deadline.js';
import { ConfigurationError, retryLaterStatus, type UnavailableError } from '../core/errors.js';
import type { SecurityRequest } from '../core/request.js';
import type { SecurityResponse } from '../core/security.js';
import { errorResponse } from '../authorization/index.js';
import { rejectUnknownOptions } from '../core/validate.js';

/**
 * The deadlines of {@link SecurityTransform}: how long the whole authentication and
 * the whole authorization of one request may take. Past one, the request fails
 * closed with 503 and `Retry-After` and a `deadline-exceeded` event is published.
 * Components have their own, shorter deadlines (the password encoder's, a custom
 * expression function's, a user loader's, the key-set fetch's), so that their event
 * names what hung; these bound everything else (a custom authenticator, a store).
 */
export interface SecurityDeadlineOptions {
  /**
   * The whole authentication, in milliseconds (1 to 600,000).
   * @defaultValue `10_000`
   */
  readonly authenticationMs?: number;
  /**
   * The whole authorization (rules with asynchronous expression functions), in
   * milliseconds (1 to 600,000).
   * @defaultValue `10_000`
   */
  readonly authorizationMs?: number;
}

/** The validated deadlines. @internal */
export interface ResolvedDeadlines {
  readonly authenticationMs: number;
  readonly authorizationMs: number;
}

/** The defaults. @internal */
export const DEFAULT_TRANSFORM_DEADLINES: ResolvedDeadlines = Object.freeze({
  authenticationMs: DEFAULT_DEADLINES.authenticationMs,
  authorizationMs: DEFAULT_DEADLINES.authorizationMs,
});

/** Validates the deadlines and merges the defaults into a new object. @internal */
export function resolveDeadlines(options: SecurityDeadlineOptions | undefined): ResolvedDeadlines {
  if (options === undefined) return DEFAULT_TRANSFORM_DEADLINES;
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('deadlines', 'must be an object');
  }
  rejectUnknownOptions('deadlines', options, ['authenticationMs', 'authorizationMs']);
  const {
    authenticationMs = DEFAULT_DEADLINES.authenticationMs,
    authorizationMs = DEFAULT_DEADLINES.authorizationMs,
  } = options;
  return Object.freeze({
    authenticationMs: requireDeadline('deadlines.authenticationMs', authenticationMs),
    authorizationMs: requireDeadline('deadlines.authorizationMs', authorizationMs),
  });
}

/**
 * The response to a request that failed closed because a dependency could not answer
 * (503), or that a throttle or rate limit refused (429, a `TooManyRequestsError`):
 * with `Retry-After` (the error's seconds), the body following the Accept header,
 * nothing from the error in it.
 *
 * @internal
 */
export function unavailableResponse(
  error: UnavailableError,
  request: SecurityRequest,
): SecurityResponse {
  return errorResponse(retryLaterStatus(error), request, {
    headers: { 'retry-after': String(error.retryAfter) },
  });
}
