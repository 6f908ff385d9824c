import { isBrowserNavigation } from '../../authorization/entry-points.js';
import { TooManyRequestsError, UnavailableError } from '../../core/errors.js';
import type { SecurityRequest } from '../../core/request.js';
import type { SecurityResponse } from '../../core/security.js';
import type { LoginAttemptResult } from '../../throttle/login-throttle.js';
import type { RoutesSettings } from './options.js';
import { plain, redirect } from './responses.js';

/** A callback's answer and how it counts for the throttle. @internal */
export interface SettledCallback {
  readonly outcome: SecurityResponse;
  /** `matched` for a login, `failed` for a refused callback, `unchecked` when a store failed. */
  readonly result: LoginAttemptResult;
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
): Promise<SecurityResponse> {
  const throttle = settings.throttle;
  if (throttle === undefined) return (await run()).outcome;
  const callback = { ran: false };
  try {
    const settled = await throttle.guard(
      undefined,
      request,
      () => {
        callback.ran = true;
        return run();
      },
      (settled) => settled.result,
    );
    return settled.outcome;
  } catch (error) {
    // Only a refusal of the throttle itself is answered here; the callback's errors go on.
    if (callback.ran || !(error instanceof UnavailableError)) throw error;
    const retryAfter = { 'retry-after': String(error.retryAfter) };
    if (!(error instanceof TooManyRequestsError)) {
      return plain(503, 'Service Unavailable', retryAfter);
    }
    if (!isBrowserNavigation(request)) return plain(429, 'Too Many Requests', retryAfter);
    const { loginUrl } = settings;
    return redirect(303, `${loginUrl}${loginUrl.includes('?') ? '&' : '?'}error=throttled`, []);
  }
}
