import { ConfigurationError } from '../core/errors.js';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Whether a URL is plain `http:` on a loopback host (tests, a local development provider). @internal */
export function isLoopbackHttp(url: URL | string | undefined): boolean {
  if (url === undefined) return false;
  const parsed = typeof url === 'string' ? URL.parse(url) : url;
  return parsed !== null && parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname);
}

/** Whether a URL is `https:`, or `http:` on a loopback host. @internal */
export function isSecureUrl(url: URL | string | undefined): boolean {
  if (url === undefined) return false;
  const parsed = typeof url === 'string' ? URL.parse(url) : url;
  return parsed !== null && (parsed.protocol === 'https:' || isLoopbackHttp(parsed));
}

/**
 * Reads an absolute `https:` URL (`http:` only on a loopback host) without
 * credentials or a fragment; throws a {@link ConfigurationError} naming the option.
 *
 * @internal
 */
export function requireSecureUrl(option: string, value: unknown): URL {
  if (typeof value !== 'string' && !(value instanceof URL)) {
    throw new ConfigurationError(option, 'must be an absolute URL');
  }
  const url = URL.parse(String(value));
  if (url === null) throw new ConfigurationError(option, 'must be an absolute URL');
  if (!isSecureUrl(url)) {
    throw new ConfigurationError(option, 'must use https: (http: only on a loopback host)');
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigurationError(option, 'must not contain credentials');
  }
  if (url.hash !== '' || (typeof value === 'string' && value.includes('#'))) {
    throw new ConfigurationError(option, 'must not contain a fragment');
  }
  return url;
}
