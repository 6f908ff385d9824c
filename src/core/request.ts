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
  /**
   * A header's value by case-insensitive name; repeated headers are joined by `, `
   * (all of them: node's habit of keeping only the first `Authorization` or `Host`
   * does not apply here).
   */
  header(name: string): string | undefined;
  /**
   * Every field line of a header, in the order received, by case-insensitive name;
   * `[]` when absent. Node adapters see each line; the Fetch API has already joined
   * repeated lines into one value separated by `, ` (RFC 9110 §5.3), so there a
   * repeated header is one value holding a comma. The firewall reads this to refuse
   * a header the pipeline trusts as single when it came more than once.
   */
  headerValues(name: string): readonly string[];
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
  /** Header lookup by lower-case name; repeated lines joined by `, `. */
  readonly header: (lowerCaseName: string) => string | undefined;
  /**
   * Every field line of a header by lower-case name, when the adapter sees them.
   * @defaultValue the value of `header` as the only line
   */
  readonly headerValues?: ((lowerCaseName: string) => readonly string[]) | undefined;
  readonly clientAddress?: string | undefined;
  readonly secure?: boolean | undefined;
}

/**
 * Builds the {@link SecurityRequest} view. The raw path, the decoded path and the
 * cookies are derived on first use, once.
 */
export function createSecurityRequest(init: SecurityRequestInit): SecurityRequest {
  return new RequestView(init, undefined);
}

/**
 * The key under which a view made by an adapter holds the request it was made of
 * (a node request or a Fetch `Request`), so an outcome recorded through one view of
 * a request is found through another (http/authentication-record.ts). Set once, in
 * the constructor: no shape change per request.
 *
 * @internal
 */
export const REQUEST_SOURCE: unique symbol = Symbol('portcullis.requestSource');

/**
 * {@link createSecurityRequest} for a view of `source` alone (no value read from
 * elsewhere as a header), linked to it under {@link REQUEST_SOURCE}.
 *
 * @internal
 */
export function createLinkedSecurityRequest(
  init: SecurityRequestInit,
  source: object | undefined,
): SecurityRequest {
  return new RequestView(init, source);
}

class RequestView implements SecurityRequest {
  readonly method: string;
  readonly url: string;
  readonly clientAddress: string | undefined;
  readonly secure: boolean;
  readonly #header: (lowerCaseName: string) => string | undefined;
  readonly #headerValues: ((lowerCaseName: string) => readonly string[]) | undefined;
  #rawPath: string | undefined;
  #path: string | undefined;
  #cookies: ReadonlyMap<string, string> | undefined;
  readonly [REQUEST_SOURCE]: object | undefined;

  constructor(init: SecurityRequestInit, source: object | undefined) {
    const method = init.method;
    this.method = isUpperCase(method) ? method : method.toUpperCase();
    this.url = init.url;
    this.clientAddress = init.clientAddress ?? undefined;
    this.secure = init.secure ?? false;
    this.#header = init.header;
    this.#headerValues = init.headerValues;
    this[REQUEST_SOURCE] = source;
  }

  // Derived on first use: a context factory that only authenticates never reads it.
  get rawPath(): string {
    return (this.#rawPath ??= extractRawPath(this.url));
  }

  get path(): string {
    return (this.#path ??= normalizePath(decodePath(this.rawPath)));
  }

  get cookies(): ReadonlyMap<string, string> {
    return (this.#cookies ??= parseCookies(this.#header('cookie')));
  }

  header(name: string): string | undefined {
    // V8 returns an all-lower-case string itself, faster than testing it first.
    return this.#header(name.toLowerCase());
  }

  headerValues(name: string): readonly string[] {
    const lower = name.toLowerCase();
    if (this.#headerValues) return this.#headerValues(lower);
    const value = this.#header(lower);
    return value === undefined ? NO_VALUES : [value];
  }
}

const NO_VALUES: readonly string[] = Object.freeze([]);

const isUpperCase = (text: string): boolean =>
  text === 'GET' || text === 'POST' || !/[a-z]/u.test(text);

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\\]*/iu;

/**
 * The path part of a request target, still encoded: everything before `?` or `#`.
 * For the absolute form (`http://host/x`) the scheme and authority are removed, as
 * routers do, so a rule for `/x` still applies.
 */
export function extractRawPath(target: string): string {
  let path = target;
  const absolute = target.charCodeAt(0) === 0x2f ? null : ABSOLUTE_FORM.exec(path);
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
    return rawPath.replace(/(?:%[0-9a-f]{2})+/giu, decodeRun);
  }
}

/**
 * Decodes a run of `%XX` escapes whose whole does not decode: each valid UTF-8
 * sequence is decoded, each byte that starts none stays encoded. Sequences are
 * validated first, so a long malformed run costs no exceptions.
 */
function decodeRun(run: string): string {
  let out = '';
  let i = 0;
  while (i < run.length) {
    const length = utf8SequenceLength(run, i) * 3;
    const text = length === 0 ? undefined : tryDecode(run.slice(i, i + length));
    out += text ?? run.slice(i, i + 3);
    i += text === undefined ? 3 : length;
  }
  return out;
}

/** The byte count of the valid UTF-8 sequence (RFC 3629 §4) escaped at `i`, or 0. */
function utf8SequenceLength(run: string, i: number): number {
  const lead = escapedByte(run, i);
  if (lead < 0x80) return 1;
  let bytes: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) bytes = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    bytes = 3;
    if (lead === 0xe0) low = 0xa0;
    if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    bytes = 4;
    if (lead === 0xf0) low = 0x90;
    if (lead === 0xf4) high = 0x8f;
  } else return 0;
  for (let k = 1; k < bytes; k++) {
    const next = escapedByte(run, i + 3 * k);
    if (!(next >= (k === 1 ? low : 0x80) && next <= (k === 1 ? high : 0xbf))) return 0;
  }
  return bytes;
}

/** The value of the `%XX` escape at `at`, or `NaN`. */
function escapedByte(run: string, at: number): number {
  return Number.parseInt(run.slice(at + 1, at + 3), 16);
}

function tryDecode(escapes: string): string | undefined {
  try {
    return decodeURIComponent(escapes);
  } catch {
    return undefined;
  }
}

/**
 * Removes `.` and `..` segments (RFC 3986 §5.2.4) and collapses repeated slashes,
 * so the rules see one spelling of each path whatever the firewall allowed.
 */
export function normalizePath(path: string): string {
  if (!/\/\/|\/\.\.?(?:\/|$)|\\/u.test(path) && path.startsWith('/')) return path;
  const unified = path.replaceAll('\\', '/');
  const segments = unified.split('/');
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  const trailing = /\/\.{0,2}$/u.test(unified) && out.length > 0 ? '/' : '';
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
