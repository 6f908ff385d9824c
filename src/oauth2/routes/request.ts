import { timingSafeEqual } from 'node:crypto';
import type { SecurityRequest } from '../../core/request.js';

const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/u;

/** The query parameters of a request (`?…`, without the fragment). @internal */
export function queryOf(request: SecurityRequest): URLSearchParams {
  const url = request.url;
  const start = url.indexOf('?');
  if (start === -1) return new URLSearchParams();
  const end = url.indexOf('#', start);
  return new URLSearchParams(url.slice(start + 1, end === -1 ? undefined : end));
}

/** The first parameter name that appears more than once, if any. @internal */
export function repeatedParameter(query: URLSearchParams): string | undefined {
  const seen = new Set<string>();
  for (const key of query.keys()) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

/**
 * The absolute URL of the request, for the client's callback validation (which reads
 * its parameters; the token request uses the configured redirect URI, never this
 * one). A Fetch request's URL is absolute already; a node request's origin comes
 * from `Host` and the connection's TLS, `http://localhost` when `Host` is unusable.
 *
 * @internal
 */
export function currentUrl(request: SecurityRequest): URL {
  if (/^https?:\/\//iu.test(request.url)) return new URL(request.url);
  const host = request.header('host');
  const origin =
    host !== undefined && HOST.test(host)
      ? `${request.secure ? 'https' : 'http'}://${host}`
      : 'http://localhost';
  const query = queryOf(request).toString();
  return new URL(`${origin}${request.rawPath}${query === '' ? '' : `?${query}`}`);
}

/** Compares two strings without an early exit on the first difference. @internal */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
