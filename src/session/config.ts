import { ConfigurationError } from '../core/errors.js';
import { rejectUnknownOptions, requireInteger, requireName } from '../lib/validate.js';

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

const OPTIONS = [
  'passwords',
  'userKey',
  'authenticatedKey',
  'cookieName',
  'maxAgeSeconds',
  'idleTimeoutSeconds',
  'sameSite',
  'trustedOrigins',
  'origins',
  'csrfHeaderName',
  'csrfFieldName',
  'dangerouslyAllowInsecureCookie',
  'dangerouslyAllowSameSiteNone',
  'dangerouslySetDomain',
  'dangerouslyDisableCsrf',
];
const MIN_PASSWORD = 32;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u;

/**
 * The configuration of sealed-cookie sessions (SPEC.md's `SessionConfig`): iron
 * passwords (rotatable), the session entry names, the cookie and its lifetime, and
 * the CSRF settings. Secure by default: `HttpOnly; Secure; SameSite=Lax; Path=/`, no
 * `Domain`, a `__Host-` name; anything weaker is a `dangerously…` switch. Setters
 * validate at once and return the same configuration.
 *
 * @example
 * ```ts
 * const config = new SessionConfig()
 *   .passwords({ 1: process.env.SESSION_PASSWORD_OLD!, 2: process.env.SESSION_PASSWORD! })
 *   .maxAgeHours(8)
 *   .idleTimeoutSecs(30 * 60);
 * ```
 */
export class SessionConfig {
  #passwords: Readonly<Record<string, string>> | undefined;
  #userKey = 'user';
  #authenticatedKey = 'authenticated';
  #cookieName: string | undefined;
  #maxAgeSeconds = 8 * 3600;
  #idleTimeoutSeconds: number | undefined;
  #sameSite: SameSite = 'Lax';
  #secure = true;
  #domain: string | undefined;
  #trustedOrigins: readonly string[] = [];
  #origins: readonly string[] = [];
  #csrf = true;
  #csrfHeaderName = 'x-csrf-token';
  #csrfFieldName = '_csrf';

  /** @param options - the plain-object form ({@link SessionConfigOptions}) */
  constructor(options?: SessionConfigOptions) {
    if (options !== undefined) this.#apply(options);
  }

  /**
   * The iron passwords: one string, or `{ id: password }` with positive integer ids.
   * The highest id seals new sessions; every listed password still opens old ones,
   * so a password is rotated by adding a higher id and, a session lifetime later,
   * removing the old one. Each needs at least 32 characters.
   */
  passwords(passwords: string | Readonly<Record<string | number, string>>): this {
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
    this.#passwords = Object.freeze(map);
    return this;
  }

  /** The session entry holding the user. @defaultValue `'user'` */
  userKey(name: string): this {
    this.#userKey = requireKey('userKey', name);
    return this;
  }

  /** The session entry flagging an authenticated session. @defaultValue `'authenticated'` */
  authenticatedKey(name: string): this {
    this.#authenticatedKey = requireKey('authenticatedKey', name);
    return this;
  }

  /** The cookie name. @defaultValue `'__Host-session'`, or `'session'` when insecure */
  cookieName(name: string): this {
    const value = requireName('cookieName', name);
    if (!TOKEN.test(value))
      throw new ConfigurationError('cookieName', 'must be a cookie-name token');
    this.#cookieName = value;
    return this;
  }

  /** Absolute lifetime from login in seconds. @defaultValue `28800` */
  maxAgeSecs(seconds: number): this {
    this.#maxAgeSeconds = requireInteger('maxAgeSecs', seconds, 60, 400 * 86_400);
    return this;
  }

  /** Absolute lifetime from login in hours. */
  maxAgeHours(hours: number): this {
    return this.maxAgeSecs(requireInteger('maxAgeHours', hours, 1, 400 * 24) * 3600);
  }

  /** Ends sessions unused for this long (tracked by the session store). @defaultValue none */
  idleTimeoutSecs(seconds: number): this {
    this.#idleTimeoutSeconds = requireInteger('idleTimeoutSecs', seconds, 60, 400 * 86_400);
    return this;
  }

  /** `'Lax'` (default) or `'Strict'`; `'None'` needs {@link SessionConfig.dangerouslyAllowSameSiteNone}. */
  sameSite(value: 'Lax' | 'Strict'): this {
    if ((value as string) !== 'Lax' && (value as string) !== 'Strict') {
      throw new ConfigurationError(
        'sameSite',
        "must be 'Lax' or 'Strict' (None: dangerouslyAllowSameSiteNone())",
      );
    }
    this.#sameSite = value;
    return this;
  }

  /** Origins (`https://admin.example.com`) besides the application's own allowed to send unsafe requests. */
  trustedOrigins(origins: readonly string[]): this {
    this.#trustedOrigins = Object.freeze(origins.map((o) => requireOrigin('trustedOrigins', o)));
    return this;
  }

  /**
   * The application's own public origin(s). By default the origin is read from the
   * `Host` header and whether the connection is TLS, which a proxy may hide.
   */
  origins(origins: readonly string[]): this {
    this.#origins = Object.freeze(origins.map((o) => requireOrigin('origins', o)));
    return this;
  }

  /** The header of the CSRF token. @defaultValue `'x-csrf-token'` */
  csrfHeaderName(name: string): this {
    const value = requireName('csrfHeaderName', name);
    if (!TOKEN.test(value)) throw new ConfigurationError('csrfHeaderName', 'must be a header name');
    this.#csrfHeaderName = value.toLowerCase();
    return this;
  }

  /** The form field of the CSRF token. @defaultValue `'_csrf'` */
  csrfFieldName(name: string): this {
    this.#csrfFieldName = requireName('csrfFieldName', name);
    return this;
  }

  /** Plain-HTTP development only: drops `Secure` and the `__Host-` prefix. */
  dangerouslyAllowInsecureCookie(allow = true): this {
    this.#secure = !allow;
    return this;
  }

  /** `SameSite=None`: the cookie goes with cross-site requests (CSRF checks stay on). */
  dangerouslyAllowSameSiteNone(allow = true): this {
    this.#sameSite = allow ? 'None' : 'Lax';
    return this;
  }

  /** A `Domain` attribute: subdomains get (and can set) the cookie. */
  dangerouslySetDomain(domain: string): this {
    const value = requireName('dangerouslySetDomain', domain);
    if (!/^[A-Za-z0-9.-]+$/u.test(value)) {
      throw new ConfigurationError('dangerouslySetDomain', 'must be a host name');
    }
    this.#domain = value;
    return this;
  }

  /** Turns off the CSRF checks (for APIs never used from a browser). */
  dangerouslyDisableCsrf(disable = true): this {
    this.#csrf = !disable;
    return this;
  }

  /** The snapshot a session authenticator works with. @internal */
  resolve(): SessionSettings {
    if (this.#passwords === undefined) {
      throw new ConfigurationError(
        'passwords',
        'a SessionConfig needs passwords(…) (at least 32 characters)',
      );
    }
    if (this.#userKey === this.#authenticatedKey) {
      throw new ConfigurationError('authenticatedKey', 'must differ from userKey');
    }
    if (this.#sameSite === 'None' && !this.#secure) {
      throw new ConfigurationError('sameSite', 'SameSite=None needs a Secure cookie');
    }
    const prefixed = this.#secure && this.#domain === undefined;
    const name = this.#cookieName ?? (prefixed ? '__Host-session' : 'session');
    if (name.startsWith('__Host-') && !prefixed) {
      throw new ConfigurationError('cookieName', 'a __Host- cookie needs Secure and no Domain');
    }
    if (name.startsWith('__Secure-') && !this.#secure) {
      throw new ConfigurationError('cookieName', 'a __Secure- cookie needs Secure');
    }
    return Object.freeze({
      passwords: this.#passwords,
      userKey: this.#userKey,
      authenticatedKey: this.#authenticatedKey,
      cookieName: name,
      maxAgeSeconds: this.#maxAgeSeconds,
      idleTimeoutSeconds: this.#idleTimeoutSeconds,
      sameSite: this.#sameSite,
      secure: this.#secure,
      domain: this.#domain,
      trustedOrigins: this.#trustedOrigins,
      origins: this.#origins,
      csrf: this.#csrf,
      csrfHeaderName: this.#csrfHeaderName,
      csrfFieldName: this.#csrfFieldName,
    });
  }

  #apply(options: SessionConfigOptions): void {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new ConfigurationError('options', 'must be an object');
    }
    rejectUnknownOptions('SessionConfig', options, OPTIONS);
    const o = options;
    if (o.passwords !== undefined) this.passwords(o.passwords);
    if (o.userKey !== undefined) this.userKey(o.userKey);
    if (o.authenticatedKey !== undefined) this.authenticatedKey(o.authenticatedKey);
    if (o.cookieName !== undefined) this.cookieName(o.cookieName);
    if (o.maxAgeSeconds !== undefined) this.maxAgeSecs(o.maxAgeSeconds);
    if (o.idleTimeoutSeconds !== undefined) this.idleTimeoutSecs(o.idleTimeoutSeconds);
    if (o.sameSite !== undefined) this.sameSite(o.sameSite);
    if (o.trustedOrigins !== undefined) this.trustedOrigins(o.trustedOrigins);
    if (o.origins !== undefined) this.origins(o.origins);
    if (o.csrfHeaderName !== undefined) this.csrfHeaderName(o.csrfHeaderName);
    if (o.csrfFieldName !== undefined) this.csrfFieldName(o.csrfFieldName);
    if (o.dangerouslyAllowInsecureCookie !== undefined) {
      this.dangerouslyAllowInsecureCookie(
        requireBoolean('dangerouslyAllowInsecureCookie', o.dangerouslyAllowInsecureCookie),
      );
    }
    if (o.dangerouslyAllowSameSiteNone !== undefined) {
      this.dangerouslyAllowSameSiteNone(
        requireBoolean('dangerouslyAllowSameSiteNone', o.dangerouslyAllowSameSiteNone),
      );
    }
    if (o.dangerouslySetDomain !== undefined) this.dangerouslySetDomain(o.dangerouslySetDomain);
    if (o.dangerouslyDisableCsrf !== undefined) {
      this.dangerouslyDisableCsrf(
        requireBoolean('dangerouslyDisableCsrf', o.dangerouslyDisableCsrf),
      );
    }
  }
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

function requireBoolean(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new ConfigurationError(option, 'must be a boolean');
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
