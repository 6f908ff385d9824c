import type { AuthenticationFailureReason } from '../../core/events.js';
import { summarize } from '../../core/events.js';
import type { SecurityRequest } from '../../core/request.js';
import type { SecurityResponse } from '../../core/security.js';
import { OAuth2Error, type OAuth2ErrorCode } from '../errors.js';
import type { RoutesSettings } from './options.js';

const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

/** A plain-text answer. @internal */
export function plain(
  status: number,
  body: string,
  extra: Readonly<Record<string, string>> = {},
): SecurityResponse {
  return { status, headers: { ...TEXT, ...extra }, body };
}

/** A redirect (never cached; no referrer: the callback URL carries the code). @internal */
export function redirect(
  status: 302 | 303,
  location: string,
  cookies: readonly string[],
): SecurityResponse {
  return {
    status,
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    ...(cookies.length === 0 ? {} : { cookies }),
    body: '',
  };
}

/**
 * A failed login: the failure is reported (an `authentication-failure` event with
 * method `oauth2`, and `onFailure` with the typed error), and the browser goes to
 * `loginUrl?error=oauth2` (with the saved target, when there was one) — never the
 * provider's text, never details.
 *
 * @internal
 */
export function failure(
  settings: RoutesSettings,
  request: SecurityRequest,
  error: OAuth2Error,
  cookies: readonly string[],
  target?: string,
): SecurityResponse {
  report(settings, request, error);
  const { loginUrl, defaultTarget, targetParameter } = settings;
  const keep =
    target === undefined || target === defaultTarget
      ? ''
      : `&${encodeURIComponent(targetParameter)}=${encodeURIComponent(target)}`;
  const location = `${loginUrl}${loginUrl.includes('?') ? '&' : '?'}error=oauth2${keep}`;
  return redirect(303, location, cookies);
}

/** `error` when it is an {@link OAuth2Error}, else a new one with `code` (the original as its cause). @internal */
export function asOAuth2Error(error: unknown, code: OAuth2ErrorCode, message: string): OAuth2Error {
  return error instanceof OAuth2Error ? error : new OAuth2Error(code, message, { cause: error });
}

function report(settings: RoutesSettings, request: SecurityRequest, error: OAuth2Error): void {
  try {
    if (settings.events.hasListeners) {
      settings.events.publish({
        type: 'authentication-failure',
        username: undefined,
        authenticationMethod: 'oauth2',
        reason: failureReason(error.code),
        request: summarize(request),
      });
    }
  } catch {
    // A faulty custom publisher must not break the request.
  }
  try {
    settings.onFailure?.(error, request);
  } catch {
    // Nor a faulty failure hook.
  }
}

/**
 * The event reason of an OAuth2 failure (the core's reasons are shared by every
 * method; `onFailure` receives the precise `code`).
 *
 * @internal
 */
export function failureReason(code: OAuth2ErrorCode): AuthenticationFailureReason {
  switch (code) {
    case 'ERR_OAUTH2_TRANSACTION':
      return 'invalid-session';
    case 'ERR_OAUTH2_STATE':
    case 'ERR_OAUTH2_ISSUER':
    case 'ERR_OAUTH2_INVALID_RESPONSE':
      return 'malformed-credentials';
    case 'ERR_OAUTH2_ID_TOKEN':
    case 'ERR_OAUTH2_USERINFO':
    case 'ERR_OAUTH2_TOKEN_EXCHANGE':
      return 'invalid-token';
    case 'ERR_OAUTH2_USER_REFUSED':
      return 'unknown-user';
    default:
      return 'other';
  }
}
