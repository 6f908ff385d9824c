/**
 * The framework-neutral view of an HTTP request that every adapter builds once per
 * request and every authenticator and authorizer reads.
 *
 * @module portcullis
 */

/** What an authenticator or authorizer may read of a request. */
export interface SecurityRequest {
  /** The method in upper case, e.g. `GET`. */
  readonly method: string;
  /**
   * The path, percent-decoded and normalized (dot segments removed, repeated
   * slashes collapsed), without the query. URL rules match against this.
   */
  readonly path: string;
  /** The path exactly as the client sent it (still percent-encoded), without query. */
  readonly rawPath: string;
  /** The request target as the client sent it (path and query, or an absolute URL). */
  readonly url: string;
  /** A header's value by case-insensitive name; repeated headers are joined by `, `. */
  header(name: string): string | undefined;
  /** Cookies from the `Cookie` header; when a name repeats, the first one wins. */
  readonly cookies: ReadonlyMap<string, string>;
  /** The address of the peer, when the adapter knows it. */
  readonly clientAddress: string | undefined;
  /** Whether the request came over TLS (as the adapter knows it). */
  readonly secure: boolean;
}

/** What an adapter supplies to {@link createSecurityRequest}. */
export interface SecurityRequestInit {
  readonly method: string;
  /** The request target: origin form (`/a/b?q`) or absolute form (`https://h/a/b?q`). */
  readonly url: string;
  /** Header lookup by lower-case name. */
  readonly header: (lowerCaseName: string) => string | undefined;
  readonly clientAddress?: string | undefined;
  readonly secure?: boolean | undefined;
}

/**
 * Builds the {@link SecurityRequest} view. The path is derived once; cookies are
 * parsed on first use.
 */
export function createSecurityRequest(init: SecurityRequestInit): SecurityRequest {
  const rawPath = extractRawPath(init.url);
  let cookies: ReadonlyMap<string, string> | undefined;
  let path: string | undefined;
  return {
    method: init.method.toUpperCase(),
    get path() {
      return (path ??= normalizePath(decodePath(rawPath)));
    },
    rawPath,
    url: init.url,
    header: (name) => init.header(name.toLowerCase()),
    get cookies() {
      return (cookies ??= parseCookies(init.header('cookie')));
    },
    clientAddress: init.clientAddress ?? undefined,
    secure: init.secure ?? false,
  };
}

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/iu;

/**
 * The path part of a request target, still encoded: everything before `?` or `#`.
 * For the absolute form (`http://host/x`) the scheme and authority are removed, as
 * routers do, so a rule for `/x` still applies.
 */
export function extractRawPath(target: string): string {
  let path = target;
  const absolute = ABSOLUTE_FORM.exec(path);
  if (absolute) path = path.slice(absolute[0].length) || '/';
  const end = path.search(/[?#]/u);
  return end === -1 ? path : path.slice(0, end);
}

/**
 * Percent-decodes a path as UTF-8. A malformed sequence is left as it is (the
 * firewall rejects such paths before any rule sees them).
 */
export function decodePath(rawPath: string): string {
  if (!rawPath.includes('%')) return rawPath;
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return rawPath.replace(/(?:%[0-9a-f]{2})+/giu, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/**
 * Removes `.` and `..` segments (RFC 3986 §5.2.4) and collapses repeated slashes,
 * so the rules see one spelling of each path whatever the firewall allowed.
 */
export function normalizePath(path: string): string {
  if (!/\/\/|\/\.\.?(?:\/|$)|\\/u.test(path) && path.startsWith('/')) return path;
  const segments = path.replaceAll('\\', '/').split('/');
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  const trailing = /\/\.{0,2}$/u.test(path) && out.length > 0 ? '/' : '';
  return `/${out.join('/')}${trailing}`;
}

/** Parses a `Cookie` header (RFC 6265 §5.4); values are percent-decoded when valid. */
export function parseCookies(header: string | undefined): ReadonlyMap<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    const name = pair.slice(0, eq).trim();
    if (name === '' || cookies.has(name)) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
      value = value.slice(1, -1);
    if (value.includes('%')) {
      try {
        value = decodeURIComponent(value);
      } catch {
        // keep the raw value
      }
    }
    cookies.set(name, value);
  }
  return cookies;
}
