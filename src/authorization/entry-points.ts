import type { SecurityRequest } from '../core/request.js';
import type { SecurityResponse } from '../core/security.js';

/**
 * The body format of an error response: `'negotiate'` follows the Accept header
 * (problem details JSON when the client prefers JSON, plain text otherwise),
 * `true` always answers RFC 9457 problem details, `false` always plain text.
 */
export type ProblemDetailsMode = boolean | 'negotiate';

/** Options of {@link errorResponse}. */
export interface ErrorResponseOptions {
  /** Extra headers, e.g. `www-authenticate`. @defaultValue `{}` */
  readonly headers?: Readonly<Record<string, string>>;
  /** @defaultValue `'negotiate'` */
  readonly problemDetails?: ProblemDetailsMode;
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  503: 'Service Unavailable',
};

/**
 * An error response (400, 401, 403, ...) whose body follows the Accept header:
 * `text/plain` with the status title, or RFC 9457 problem details
 * (`application/problem+json`, `{ type: 'about:blank', title, status }`). The body
 * never contains anything from the request. `cache-control: no-store` is set.
 *
 * @example
 * ```ts
 * import { errorResponse } from 'portcullis';
 * const response = errorResponse(401, request, {
 *   headers: { 'www-authenticate': 'Bearer realm="api"' },
 * });
 * ```
 */
export function errorResponse(
  status: number,
  request: SecurityRequest,
  options: ErrorResponseOptions = {},
): SecurityResponse {
  const title = TITLES[status] ?? 'Error';
  const mode = options.problemDetails ?? 'negotiate';
  const json = mode === 'negotiate' ? prefersJson(request.header('accept')) : mode;
  return {
    status,
    headers: {
      ...options.headers,
      'content-type': json ? 'application/problem+json' : 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
    },
    body: json ? JSON.stringify({ type: 'about:blank', title, status }) : title,
  };
}

/**
 * A 302 redirect to a login page (`location` must be a validated same-origin
 * path), with `cache-control: no-store` and an empty body.
 */
export function loginRedirect(location: string): SecurityResponse {
  return { status: 302, headers: { location, 'cache-control': 'no-store' }, body: '' };
}

/**
 * Whether a request is a browser navigation, which a login redirect suits: its
 * Accept header lists `text/html` (with a non-zero quality) and it has no
 * `X-Requested-With: XMLHttpRequest`.
 */
export function isBrowserNavigation(request: SecurityRequest): boolean {
  if (request.header('x-requested-with')?.trim().toLowerCase() === 'xmlhttprequest') return false;
  return quality(request.header('accept'), HTML) > 0;
}

const HTML = ['text/html'];
const JSON_TYPES = ['application/json', 'application/problem+json'];

/** Whether the client accepts JSON at least as much as HTML. */
function prefersJson(accept: string | undefined): boolean {
  const json = quality(accept, JSON_TYPES);
  return json > 0 && json >= quality(accept, HTML);
}

/** The highest quality the Accept header gives one of `types` by name (wildcards ignored). */
function quality(accept: string | undefined, types: readonly string[]): number {
  if (accept === undefined) return 0;
  let best = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...parameters] = range.split(';');
    if (!types.includes(type.trim().toLowerCase())) continue;
    let q = 1;
    for (const parameter of parameters) {
      const [name = '', value = ''] = parameter.split('=');
      if (name.trim().toLowerCase() === 'q') {
        const parsed = Number(value.trim());
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    if (q > best) best = q;
  }
  return best;
}
