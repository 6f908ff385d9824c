import { deadlineExceeded } from '../core/deadline.js';
import { ConfigurationError, retryLaterStatus, UnavailableError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import type { BodyReader, SecurityRoutes } from '../core/routes.js';
import type { SecurityResponse } from '../core/security.js';
import { withDeadline } from '../lib/deadline.js';
import { INTERNAL_SERVER_ERROR } from '../http/response.js';
import { readForm } from './form.js';

const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

/** The only method a form route answers; any other passes on (the app's own page). */
const POST_ONLY: readonly string[] = Object.freeze(['POST']);

/** A plain-text answer. @internal */
export function plain(status: number, body: string): SecurityResponse {
  return { status, headers: TEXT, body };
}

/** A 303 redirect, never cached, setting `cookie` when given. @internal */
export function redirect(location: string, cookie?: string): SecurityResponse {
  return {
    status: 303,
    headers: { location, 'cache-control': 'no-store' },
    ...(cookie === undefined ? {} : { cookies: [cookie] }),
    body: '',
  };
}

/**
 * 503 with `Retry-After` (a dependency passed its deadline or is down), or 429 with
 * `Retry-After` when a throttle refused (a `TooManyRequestsError`). @internal
 */
export function retryLaterOutcome(error: UnavailableError): SecurityResponse {
  const status = retryLaterStatus(error);
  return {
    status,
    headers: { ...TEXT, 'retry-after': String(error.retryAfter) },
    body: status === 429 ? 'Too Many Requests' : 'Service Unavailable',
  };
}

/**
 * The routes of a form: `POST path` only (any other method or path is passed on, so
 * the application's own `GET` page of the same path renders), the body read up to
 * `max` bytes, then `handle` under the deadline (past it, or on an
 * `UnavailableError`, 503 with `Retry-After`; a bug 500).
 *
 * @internal
 */
export function formRoutes(
  path: string,
  max: number,
  events: SecurityEvents,
  timeoutMs: number,
  operation: string,
  handle: (request: SecurityRequest, form: URLSearchParams) => Promise<SecurityResponse>,
): SecurityRoutes {
  const answer = async (
    request: SecurityRequest,
    readBody: BodyReader,
  ): Promise<SecurityResponse | undefined> => {
    if (request.method !== 'POST' || request.path !== path) return undefined;
    const read = await readForm(request, readBody, max);
    if ('status' in read)
      return plain(
        read.status,
        read.status === 413
          ? 'Payload Too Large'
          : read.status === 415
            ? 'Unsupported Media Type'
            : 'Bad Request',
      );
    try {
      return await withDeadline(handle(request, read.form), timeoutMs, () =>
        deadlineExceeded(operation, timeoutMs, events, request),
      );
    } catch (error) {
      if (error instanceof UnavailableError) return retryLaterOutcome(error);
      // A failing store or a bug: never details.
      return INTERNAL_SERVER_ERROR;
    }
  };
  return Object.freeze({ paths: Object.freeze([path]), methods: POST_ONLY, handle: answer });
}

/**
 * The path of a form route: a plain absolute path (letters, digits, `.`, `_`, `~`,
 * `-` between slashes; no dot segments), which is also a literal path pattern.
 *
 * @internal
 */
export function formPath(option: string, value: unknown): string {
  if (
    typeof value !== 'string' ||
    value.length > 1024 ||
    !/^(?:\/[A-Za-z0-9._~-]+)+$/u.test(value) ||
    /\/\.{1,2}(?:\/|$)/u.test(value)
  ) {
    throw new ConfigurationError(option, 'must be a plain absolute path such as /login');
  }
  return value;
}
