import { ConfigurationError } from '../core/errors.js';
import { rejectUnknownOptions, requireInteger, requireNames } from '../core/validate.js';

/**
 * Options of {@link CorsConfiguration}, after Spring's `CorsConfiguration`. Only
 * `allowedOrigins` is required; the other defaults are Spring's
 * `applyPermitDefaultValues()`.
 */
export interface CorsOptions {
  /**
   * The origins allowed to call (compared case-insensitively with the `Origin`
   * header, which is `scheme://host[:port]`):
   * - an exact origin, `'https://app.example.com'` (no path, no trailing `/`, no
   *   default port: a spelling the browser never sends is refused at start-up);
   * - a pattern with `*` as the leftmost labels of the host, `'https://*.example.com'`
   *   (one or more labels: `a.example.com`, `a.b.example.com`, never `example.com`
   *   or `evil-example.com`), and/or `*` as the port, `'http://localhost:*'`;
   * - `'*'`, any origin (refused with `allowCredentials`: a credentialed response
   *   readable by every site);
   * - or a predicate given the `Origin` value.
   *
   * The opaque origin `'null'` (sandboxed iframes, `file:` pages) cannot be listed.
   */
  readonly allowedOrigins: readonly string[] | ((origin: string) => boolean);
  /**
   * The methods a cross-origin request may use (`Access-Control-Allow-Methods`);
   * `['*']` allows any.
   * @defaultValue `['GET', 'HEAD', 'POST']`
   */
  readonly allowedMethods?: readonly string[];
  /**
   * The request headers a cross-origin request may send
   * (`Access-Control-Allow-Headers`, case-insensitive); `['*']` allows the ones the
   * preflight asks for (echoed, so it also works with credentials).
   * @defaultValue `['*']`
   */
  readonly allowedHeaders?: readonly string[];
  /**
   * The response headers the browser lets the calling script read, besides the
   * CORS-safelisted ones (`Access-Control-Expose-Headers`). `['*']` only without
   * credentials (with them the browser reads `*` as a header name).
   * @defaultValue `[]`
   */
  readonly exposedHeaders?: readonly string[];
  /**
   * Whether the browser may send cookies and HTTP authentication with cross-origin
   * requests and let the script read the answer (`Access-Control-Allow-Credentials`).
   * @defaultValue `false`
   */
  readonly allowCredentials?: boolean;
  /**
   * How long, in seconds, the browser may cache a preflight's answer
   * (`Access-Control-Max-Age`; browsers cap it, Chromium at 7200).
   * @defaultValue `1800`
   */
  readonly maxAge?: number;
}

/** A CORS configuration with every default filled in. @internal */
export interface CorsConfig {
  /** Whether the origin (lower-cased) is allowed. */
  readonly allowsOrigin: (origin: string) => boolean;
  /** `true` when any origin is allowed without credentials: answer `*`. */
  readonly anyOrigin: boolean;
  /** Upper-case method names, or `null` for any. */
  readonly methods: ReadonlySet<string> | null;
  /** Lower-case header names, or `null` for any. */
  readonly headers: ReadonlySet<string> | null;
  readonly exposedHeaders: string;
  readonly credentials: boolean;
  readonly maxAge: number;
  /** `Access-Control-Allow-Methods` when the list is fixed. */
  readonly methodList: string;
}

const KNOWN = [
  'allowedOrigins',
  'allowedMethods',
  'allowedHeaders',
  'exposedHeaders',
  'allowCredentials',
  'maxAge',
];
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u;
/** `scheme://host[:port]` with `*` as leading labels and/or as the port. */
const PATTERN = /^([a-z][a-z0-9+.-]*):\/\/(\*\.)?([^:/?#*]+)(?::(\*|[0-9]{1,5}))?$/u;

/**
 * Validates {@link CorsOptions} and merges them with the defaults into a new object.
 *
 * @internal
 */
export function resolveCorsOptions(options: CorsOptions): CorsConfig {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('cors', 'must be an object with allowedOrigins');
  }
  rejectUnknownOptions('CorsConfiguration', options, KNOWN);
  const credentials = options.allowCredentials ?? false;
  if (typeof credentials !== 'boolean') {
    throw new ConfigurationError('allowCredentials', 'must be a boolean');
  }
  const origins = originMatcher(options.allowedOrigins, credentials);
  const methods = list('allowedMethods', options.allowedMethods, ['GET', 'HEAD', 'POST']);
  const headers = list('allowedHeaders', options.allowedHeaders, ['*']);
  const exposed = list('exposedHeaders', options.exposedHeaders, []);
  if (credentials && exposed.includes('*')) {
    throw new ConfigurationError(
      'exposedHeaders',
      'cannot be "*" with allowCredentials: list the header names',
    );
  }
  const upper = methods.map((method) => method.toUpperCase());
  return {
    allowsOrigin: origins.test,
    anyOrigin: origins.any,
    methods: upper.includes('*') ? null : new Set(upper),
    headers: headers.includes('*') ? null : new Set(headers.map((name) => name.toLowerCase())),
    exposedHeaders: exposed.join(', '),
    credentials,
    maxAge:
      options.maxAge === undefined ? 1800 : requireInteger('maxAge', options.maxAge, 0, 86400),
    methodList: upper.join(', '),
  };
}

function list(option: string, value: unknown, fallback: readonly string[]): readonly string[] {
  if (value === undefined) return fallback;
  const names = requireNames(option, value);
  for (const name of names) {
    if (!TOKEN.test(name))
      throw new ConfigurationError(option, `must list names ("${name}" is not one)`);
  }
  return names;
}

function originMatcher(
  option: unknown,
  credentials: boolean,
): { test: (origin: string) => boolean; any: boolean } {
  if (typeof option === 'function') {
    const predicate = option as (origin: string) => unknown;
    return {
      test: (origin) => {
        try {
          return predicate(origin) === true;
        } catch {
          return false; // fail closed
        }
      },
      any: false,
    };
  }
  const entries = requireNames('allowedOrigins', option);
  if (entries.length === 0) {
    throw new ConfigurationError('allowedOrigins', 'must list at least one origin');
  }
  if (entries.includes('*')) {
    if (credentials) {
      throw new ConfigurationError(
        'allowedOrigins',
        'cannot be "*" with allowCredentials: list the origins (or patterns such as "https://*.example.com")',
      );
    }
    return { test: () => true, any: true };
  }
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  for (const entry of entries) {
    if (entry.includes('*')) patterns.push(compilePattern(entry));
    else exact.add(checkOrigin(entry, entry));
  }
  return {
    test: (origin) => exact.has(origin) || patterns.some((pattern) => pattern.test(origin)),
    any: false,
  };
}

/** An exact origin as browsers serialize it, or a ConfigurationError with the right spelling. */
function checkOrigin(entry: string, shown: string, hinted = true): string {
  if (entry === 'null') {
    throw new ConfigurationError(
      'allowedOrigins',
      'must not list "null" (sandboxed iframes and file: pages send it)',
    );
  }
  let origin: string;
  try {
    origin = new URL(entry).origin;
  } catch {
    throw new ConfigurationError(
      'allowedOrigins',
      `"${shown}" is not an origin (scheme://host[:port])`,
    );
  }
  if (origin !== entry) {
    const hint = origin === 'null' || !hinted ? '' : ` (did you mean "${origin}"?)`;
    throw new ConfigurationError(
      'allowedOrigins',
      `"${shown}" is not an origin as browsers send it${hint}`,
    );
  }
  return origin;
}

/** A pattern such as `https://*.example.com` or `http://localhost:*`, anchored. */
function compilePattern(entry: string): RegExp {
  const match = PATTERN.exec(entry);
  if (!match) {
    throw new ConfigurationError(
      'allowedOrigins',
      `"${entry}": "*" may only stand for the leftmost labels of the host ("https://*.example.com") or the port ("http://localhost:*")`,
    );
  }
  const [, scheme = '', wildcardLabels, host = '', port] = match;
  // The rest must be an origin as browsers spell it.
  const rest = `${scheme}://${host}${port === undefined || port === '*' ? '' : `:${port}`}`;
  checkOrigin(rest, entry, false);
  const labels = wildcardLabels === undefined ? '' : '(?:[a-z0-9-]+\\.)+';
  const portPart = port === '*' ? '(?::[0-9]{1,5})?' : port === undefined ? '' : `:${port}`;
  return new RegExp(`^${escape(scheme)}://${labels}${escape(host)}${portPart}$`, 'u');
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&');
}
