import type { SecurityEvents } from '../core/events.js';
import { summarize } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import type { SecurityResponse } from '../core/security.js';
import { errorResponse } from '../authorization/index.js';
import { CorsConfiguration, isPreflightRequest, type CorsOptions } from '../cors/index.js';
import { isPromiseLike } from '../lib/promise.js';
import { mergeVary } from '../lib/vary.js';
import type { SecurityOutcome } from './security-transform.js';

/**
 * The `cors` option of the `SecurityTransform`: a {@link CorsConfiguration} (or its
 * options) that portcullis applies before authentication, or `'pass-through'`
 * when the application's own CORS middleware (the `cors` package,
 * `@fastify/cors`, Yoga's `cors`) answers: preflights then go on to it without
 * authentication, and portcullis adds no CORS header.
 */
export type CorsSetting = CorsConfiguration | CorsOptions | 'pass-through';

/** @internal */
export type ResolvedCors = CorsConfiguration | 'pass-through' | undefined;

/** @internal */
export function resolveCors(setting: CorsSetting | false | undefined): ResolvedCors {
  if (setting === undefined || setting === false) return undefined;
  if (setting === 'pass-through' || setting instanceof CorsConfiguration) return setting;
  return new CorsConfiguration(setting);
}

const PASS: SecurityOutcome = Object.freeze({ proceed: true, user: null });

/**
 * Runs `next` (authentication and authorization) under the CORS setting: a
 * preflight is answered (or passed through) without it, and the CORS headers are
 * added to whatever the outcome is. Without a setting, a preflight that would get
 * a 401 or a login redirect gets 403: a preflight never carries credentials, so
 * asking for them means nothing to a browser.
 *
 * @internal
 */
export function withCors(
  cors: ResolvedCors,
  request: SecurityRequest,
  events: SecurityEvents,
  next: () => SecurityOutcome | Promise<SecurityOutcome>,
): SecurityOutcome | Promise<SecurityOutcome> {
  const preflight = request.method === 'OPTIONS' && isPreflightRequest(request);
  if (cors === 'pass-through') return preflight ? PASS : next();
  if (cors === undefined) {
    if (!preflight) return next();
    return map(next(), (outcome) => noChallenge(outcome, request));
  }
  if (preflight) {
    const response = cors.preflight(request);
    if (response.status === 204) return { proceed: false, response, user: null };
    if (events.hasListeners) {
      events.publish({ type: 'request-rejected', reason: 'cors', request: summarize(request) });
    }
    return { proceed: false, response, user: null };
  }
  const headers = cors.responseHeaders(request);
  return map(next(), (outcome) =>
    outcome.proceed
      ? { ...outcome, headers: { ...outcome.headers, ...headers } }
      : { ...outcome, response: withHeaders(outcome.response, headers) },
  );
}

function map(
  outcome: SecurityOutcome | Promise<SecurityOutcome>,
  f: (outcome: SecurityOutcome) => SecurityOutcome,
): SecurityOutcome | Promise<SecurityOutcome> {
  return isPromiseLike(outcome) ? Promise.resolve(outcome).then(f) : f(outcome);
}

function noChallenge(outcome: SecurityOutcome, request: SecurityRequest): SecurityOutcome {
  if (outcome.proceed) return outcome;
  const status = outcome.response.status;
  if (status !== 401 && !(status >= 300 && status < 400)) return outcome;
  return { ...outcome, response: errorResponse(403, request) };
}

/** A response with the CORS headers added; `Vary` is merged with the one it has. */
function withHeaders(
  response: SecurityResponse,
  add: Readonly<Record<string, string>>,
): SecurityResponse {
  const headers: Record<string, string> = { ...response.headers };
  for (const [name, value] of Object.entries(add)) {
    const existing = headers[name];
    headers[name] = name === 'vary' ? mergeVary(existing, value) : value;
  }
  return { ...response, headers };
}
