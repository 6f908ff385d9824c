import { ConfigurationError } from '../core/errors.js';
import { rowsOf, type OptionRow } from '../lib/config-table.js';
import { requireInteger, requireName } from '../core/validate.js';

/** The `SameSite` attribute of the session cookie. */
export type SameSite = 'Lax' | 'Strict' | 'None';

/** The plain-object form of {@link SessionConfig}. */
export interface SessionConfigOptions {
  /** Iron passwords by numeric id (`{ 1: old, 2: new }`): the highest seals, all open. A string is `{ 1: password }`. */
  readonly passwords?: string | Readonly<Record<string | number, string>>;
  /** The session entry holding the user (SPEC.md). @defaultValue `'user'` */
  readonly userKey?: string;
  /** The session entry flagging an authenticated session (SPEC.md). @defaultValue `'authenticated'` */
  readonly authenticatedKey?: string;
  /** @defaultValue `'__Host-session'` (secure), `'session'` (insecure development) */
  readonly cookieName?: string;
  /** Absolute lifetime of a session from login, in seconds. @defaultValue `28800` (8 hours) */
  readonly maxAgeSeconds?: number;
  /** Idle timeout in seconds (a session unused this long ends), or `undefined`. @defaultValue none */
  readonly idleTimeoutSeconds?: number;
  /** @defaultValue `'Lax'` */
  readonly sameSite?: 'Lax' | 'Strict';
  /** Origins besides the request's own that may send unsafe requests with the cookie. @defaultValue `[]` */
  readonly trustedOrigins?: readonly string[];
  /** The application's public origin(s), when a proxy hides them (`https://app.example.com`). @defaultValue from `Host` */
  readonly origins?: readonly string[];
  /** The header carrying the CSRF token. @defaultValue `'x-csrf-token'` */
  readonly csrfHeaderName?: string;
  /** The form field carrying the CSRF token. @defaultValue `'_csrf'` */
  readonly csrfFieldName?: string;
  /** Plain-HTTP development only: no `Secure`, no `__Host-` prefix. @defaultValue `false` */
  readonly dangerouslyAllowInsecureCookie?: boolean;
  /** `SameSite=None` (cross-site embedding); needs `Secure`. @defaultValue `false` */
  readonly dangerouslyAllowSameSiteNone?: boolean;
  /** A `Domain` attribute (shares the cookie with subdomains; no `__Host-` prefix). @defaultValue none */
  readonly dangerouslySetDomain?: string;
  /** Turns the CSRF checks off (an API that never runs in a browser). @defaultValue `false` */
  readonly dangerouslyDisableCsrf?: boolean;
}

/** The resolved configuration. @internal */
export interface SessionSettings {
  readonly passwords: Readonly<Record<string, string>>;
  readonly userKey: string;
  readonly authenticatedKey: string;
  readonly cookieName: string;
  readonly maxAgeSeconds: number;
  readonly idleTimeoutSeconds: number | undefined;
  readonly sameSite: SameSite;
  readonly secure: boolean;
  readonly domain: string | undefined;
  readonly trustedOrigins: readonly string[];
  readonly origins: readonly string[];
  readonly csrf: boolean;
  readonly csrfHeaderName: string;
  readonly csrfFieldName: string;
}

/**
 * The settings as the setters write them; {@link SessionConfig.resolve} checks them
 * together and completes them into {@link SessionSettings}.
 *
 * @internal
 */
export interface SessionDraft {
  passwords: Readonly<Record<string, string>> | undefined;
  userKey: string;
  authenticatedKey: string;
  cookieName: string | undefined;
  maxAgeSeconds: number;
  idleTimeoutSeconds: number | undefined;
  sameSite: SameSite;
  secure: boolean;
  domain: string | undefined;
  trustedOrigins: readonly string[];
  origins: readonly string[];
  csrf: boolean;
  csrfHeaderName: string;
  csrfFieldName: string;
}

const MIN_PASSWORD = 32;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u;
const row = rowsOf<SessionDraft>();

/**
 * Every option of {@link SessionConfigOptions}, once: the setting it writes, its
 * default and its check (whose error names the option as the setter does, e.g.
 * `maxAgeSeconds`). The setters, the options object, the unknown-option check and the
 * defaults all come from here, in this order.
 *
 * @internal
 */
export const SESSION_OPTIONS = {
  passwords: row('passwords', undefined, readPasswords),
  userKey: row('userKey', 'user', (name: string) => requireKey('userKey', name)),
  authenticatedKey: row('authenticatedKey', 'authenticated', (name: string) =>
    requireKey('authenticatedKey', name),
  ),
  cookieName: row('cookieName', undefined, (name: string) => {
    const value = requireName('cookieName', name);
    if (!TOKEN.test(value))
      throw new ConfigurationError('cookieName', 'must be a cookie-name token');
    return value;
  }),
  maxAgeSeconds: row('maxAgeSeconds', 8 * 3600, (seconds: number) =>
    requireInteger('maxAgeSeconds', seconds, 60, 400 * 86_400),
  ),
  idleTimeoutSeconds: row('idleTimeoutSeconds', undefined, (seconds: number) =>
    requireInteger('idleTimeoutSeconds', seconds, 60, 400 * 86_400),
  ),
  sameSite: row('sameSite', 'Lax', (value: 'Lax' | 'Strict'): SameSite => {
    if ((value as string) !== 'Lax' && (value as string) !== 'Strict') {
      throw new ConfigurationError(
        'sameSite',
        "must be 'Lax' or 'Strict' (None: dangerouslyAllowSameSiteNone())",
      );
    }
    return value;
  }),
  trustedOrigins: row('trustedOrigins', [], (origins: readonly string[]) =>
    Object.freeze(origins.map((o) => requireOrigin('trustedOrigins', o))),
  ),
  origins: row('origins', [], (origins: readonly string[]) =>
    Object.freeze(origins.map((o) => requireOrigin('origins', o))),
  ),
  csrfHeaderName: row('csrfHeaderName', 'x-csrf-token', (name: string) => {
    const value = requireName('csrfHeaderName', name);
    if (!TOKEN.test(value)) throw new ConfigurationError('csrfHeaderName', 'must be a header name');
    return value.toLowerCase();
  }),
  csrfFieldName: row('csrfFieldName', '_csrf', (name: string) =>
    requireName('csrfFieldName', name),
  ),
  dangerouslyAllowInsecureCookie: row(
    'secure',
    true,
    (allow: boolean) => !allow,
    booleanCheck('dangerouslyAllowInsecureCookie'),
  ),
  dangerouslyAllowSameSiteNone: row(
    'sameSite',
    'Lax',
    (allow: boolean): SameSite => (allow ? 'None' : 'Lax'),
    booleanCheck('dangerouslyAllowSameSiteNone'),
  ),
  dangerouslySetDomain: row('domain', undefined, (domain: string) => {
    const value = requireName('dangerouslySetDomain', domain);
    if (!/^[A-Za-z0-9.-]+$/u.test(value)) {
      throw new ConfigurationError('dangerouslySetDomain', 'must be a host name');
    }
    return value;
  }),
  dangerouslyDisableCsrf: row(
    'csrf',
    true,
    (disable: boolean) => !disable,
    booleanCheck('dangerouslyDisableCsrf'),
  ),
} satisfies {
  readonly [K in keyof SessionConfigOptions]-?: OptionRow<
    SessionDraft,
    keyof SessionDraft,
    NonNullable<SessionConfigOptions[K]>
  >;
};

function readPasswords(
  passwords: string | Readonly<Record<string | number, string>>,
): Readonly<Record<string, string>> {
  const map: Record<string, string> = {};
  const entries =
    typeof passwords === 'string'
      ? [['1', passwords] as const]
      : typeof passwords === 'object' && (passwords as unknown) !== null
        ? Object.entries(passwords)
        : [];
  if (entries.length === 0) {
    throw new ConfigurationError(
      'passwords',
      'must be a password or a non-empty { id: password } map',
    );
  }
  for (const [id, password] of entries) {
    if (!/^[1-9][0-9]{0,8}$/u.test(id)) {
      throw new ConfigurationError(
        'passwords',
        `ids must be positive integers, not "${id.slice(0, 20)}"`,
      );
    }
    if (typeof password !== 'string' || password.length < MIN_PASSWORD) {
      throw new ConfigurationError(
        'passwords',
        `password ${id} must have at least ${MIN_PASSWORD} characters (e.g. randomBytes(32).toString('base64url'))`,
      );
    }
    map[id] = password;
  }
  return Object.freeze(map);
}

function booleanCheck(option: string): (value: unknown) => void {
  return (value) => {
    if (typeof value !== 'boolean') throw new ConfigurationError(option, 'must be a boolean');
  };
}

function requireKey(option: string, name: unknown): string {
  const value = requireName(option, name);
  if (
    !/^[A-Za-z_$][A-Za-z0-9_$]*$/u.test(value) ||
    ['v', 'sid', 'iat', '__proto__'].includes(value)
  ) {
    throw new ConfigurationError(option, 'must be an identifier other than v, sid and iat');
  }
  return value;
}

/** An origin: `scheme://host[:port]`, nothing else. @internal */
export function requireOrigin(option: string, value: unknown): string {
  let url: URL;
  try {
    url = new URL(requireName(option, value));
  } catch {
    throw new ConfigurationError(option, 'must be origins like https://app.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigurationError(option, 'must be http: or https: origins');
  }
  if (
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new ConfigurationError(
      option,
      'must be origins like https://app.example.com (no path, query or user)',
    );
  }
  // The canonical form browsers send in Origin: lower-case host, no default port.
  return url.origin;
}
