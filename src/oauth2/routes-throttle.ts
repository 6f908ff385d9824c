import { isBrowserNavigation } from '../authorization/entry-points.js';
import { ConfigurationError, TooManyRequestsError, UnavailableError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import { isPromiseLike } from '../lib/promise.js';
import {
  LoginThrottle,
  type LoginAttempt,
  type LoginAttemptResult,
} from '../throttle/login-throttle.js';
import type { RoutesSettings } from './routes-options.js';
import { plain, redirect, type Outcome } from './routes-outcome.js';

/** A callback's answer and how it counts for the throttle. @internal */
export interface SettledCallback {
  readonly outcome: Outcome;
  /** `matched` for a login, `failed` for a refused callback, `unchecked` when a store failed. */
  readonly result: LoginAttemptResult;
}

/** The `throttle` option: the given throttle, a new one (by address only), or none. @internal */
export function throttleOf(throttle: unknown, events: SecurityEvents): LoginThrottle | undefined {
  if (throttle === false) return undefined;
  if (throttle === undefined) return new LoginThrottle({ events, username: false });
  if (!(throttle instanceof LoginThrottle)) {
    throw new ConfigurationError('throttle', 'must be a LoginThrottle or false');
  }
  return throttle;
}

/**
 * Runs a callback under the routes' throttle: counted against the client's address
 * before anything is checked, refused when the address is throttled (a browser to
 * `loginUrl?error=throttled`, another client 429 with `Retry-After`), 503 when the
 * throttle's store cannot answer and fails closed; the attempt settled with the
 * callback's result (also when it throws: `unchecked`).
 *
 * @internal
 */
export async function throttledCallback(
  settings: RoutesSettings,
  request: SecurityRequest,
  run: () => Promise<SettledCallback>,
): Promise<Outcome> {
  const throttle = settings.throttle;
  if (throttle === undefined) return (await run()).outcome;
  let attempt: LoginAttempt;
  try {
    const admitted = throttle.admit(undefined, request);
    attempt = isPromiseLike(admitted) ? await admitted : admitted;
  } catch (error) {
    if (!(error instanceof UnavailableError)) throw error;
    const retryAfter = { 'retry-after': String(error.retryAfter) };
    if (!(error instanceof TooManyRequestsError)) {
      return plain(503, 'Service Unavailable', retryAfter);
    }
    if (!isBrowserNavigation(request)) return plain(429, 'Too Many Requests', retryAfter);
    const { loginUrl } = settings;
    return redirect(303, `${loginUrl}${loginUrl.includes('?') ? '&' : '?'}error=throttled`, []);
  }
  let result: LoginAttemptResult = 'unchecked';
  try {
    const settled = await run();
    result = settled.result;
    return settled.outcome;
  } finally {
    const released = attempt.settle(result);
    if (isPromiseLike(released)) await released;
  }
}
