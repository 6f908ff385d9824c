const BASE = 'http://portcullis.invalid';

/**
 * A redirect target that can only stay on this site: a relative path starting with
 * one `/` (never `//` or `/\`, which browsers read as another host), no backslash,
 * control character or white space anywhere, that resolves to this origin. Anything
 * else (`https://app@evil.com`, `javascript:…`, `//evil.com`) gives `fallback`.
 *
 * @example
 * ```ts
 * safeRedirectTarget('/me?tab=1', '/');     // '/me?tab=1'
 * safeRedirectTarget('//evil.com', '/');    // '/'
 * ```
 */
export function safeRedirectTarget(value: unknown, fallback: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\\\s\u0000-\u001f\u007f]/u.test(value)) return fallback;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== BASE) return fallback;
  const target = `${url.pathname}${url.search}${url.hash}`;
  // Dot segments can collapse into a protocol-relative path: `/.//evil.com` → `//evil.com`.
  return target.startsWith('//') ? fallback : target;
}
