import { ConfigurationError } from '../core/errors.js';
import { applyOptions, draftOf, setOption, type RowValue } from '../lib/config-table.js';
import { rejectUnknownOptions, requireInteger } from '../core/validate.js';
import {
  SESSION_OPTIONS,
  type SessionConfigOptions,
  type SessionDraft,
  type SessionSettings,
} from './config-options.js';

export {
  requireOrigin,
  type SameSite,
  type SessionConfigOptions,
  type SessionSettings,
} from './config-options.js';

type Option = keyof typeof SESSION_OPTIONS;

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
 *   .idleTimeoutSeconds(30 * 60);
 * ```
 */
export class SessionConfig {
  readonly #draft: SessionDraft = draftOf(SESSION_OPTIONS, {});

  /** @param options - the plain-object form ({@link SessionConfigOptions}) */
  constructor(options?: SessionConfigOptions) {
    if (options === undefined) return;
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new ConfigurationError('options', 'must be an object');
    }
    rejectUnknownOptions('SessionConfig', options, Object.keys(SESSION_OPTIONS));
    applyOptions(SESSION_OPTIONS, this.#draft, options);
  }

  /**
   * The iron passwords: one string, or `{ id: password }` with positive integer ids.
   * The highest id seals new sessions; every listed password still opens old ones,
   * so a password is rotated by adding a higher id and, a session lifetime later,
   * removing the old one. Each needs at least 32 characters.
   */
  passwords(passwords: string | Readonly<Record<string | number, string>>): this {
    return this.#set('passwords', passwords);
  }

  /** The session entry holding the user. @defaultValue `'user'` */
  userKey(name: string): this {
    return this.#set('userKey', name);
  }

  /** The session entry flagging an authenticated session. @defaultValue `'authenticated'` */
  authenticatedKey(name: string): this {
    return this.#set('authenticatedKey', name);
  }

  /** The cookie name. @defaultValue `'__Host-session'`, or `'session'` when insecure */
  cookieName(name: string): this {
    return this.#set('cookieName', name);
  }

  /** Absolute lifetime from login in seconds. @defaultValue `28800` */
  maxAgeSeconds(seconds: number): this {
    return this.#set('maxAgeSeconds', seconds);
  }

  /** Absolute lifetime from login in hours. */
  maxAgeHours(hours: number): this {
    return this.maxAgeSeconds(requireInteger('maxAgeHours', hours, 1, 400 * 24) * 3600);
  }

  /** Ends sessions unused for this long (tracked by the session store). @defaultValue none */
  idleTimeoutSeconds(seconds: number): this {
    return this.#set('idleTimeoutSeconds', seconds);
  }

  /** `'Lax'` (default) or `'Strict'`; `'None'` needs {@link SessionConfig.dangerouslyAllowSameSiteNone}. */
  sameSite(value: 'Lax' | 'Strict'): this {
    return this.#set('sameSite', value);
  }

  /** Origins (`https://admin.example.com`) besides the application's own allowed to send unsafe requests. */
  trustedOrigins(origins: readonly string[]): this {
    return this.#set('trustedOrigins', origins);
  }

  /**
   * The application's own public origin(s). By default the origin is read from the
   * `Host` header and whether the connection is TLS, which a proxy may hide.
   */
  origins(origins: readonly string[]): this {
    return this.#set('origins', origins);
  }

  /** The header of the CSRF token. @defaultValue `'x-csrf-token'` */
  csrfHeaderName(name: string): this {
    return this.#set('csrfHeaderName', name);
  }

  /** The form field of the CSRF token. @defaultValue `'_csrf'` */
  csrfFieldName(name: string): this {
    return this.#set('csrfFieldName', name);
  }

  /** Plain-HTTP development only: drops `Secure` and the `__Host-` prefix. */
  dangerouslyAllowInsecureCookie(allow = true): this {
    return this.#set('dangerouslyAllowInsecureCookie', allow);
  }

  /** `SameSite=None`: the cookie goes with cross-site requests (CSRF checks stay on). */
  dangerouslyAllowSameSiteNone(allow = true): this {
    return this.#set('dangerouslyAllowSameSiteNone', allow);
  }

  /** A `Domain` attribute: subdomains get (and can set) the cookie. */
  dangerouslySetDomain(domain: string): this {
    return this.#set('dangerouslySetDomain', domain);
  }

  /** Turns off the CSRF checks (for APIs never used from a browser). */
  dangerouslyDisableCsrf(disable = true): this {
    return this.#set('dangerouslyDisableCsrf', disable);
  }

  /** The snapshot a session authenticator works with. @internal */
  resolve(): SessionSettings {
    const d = this.#draft;
    if (d.passwords === undefined) {
      throw new ConfigurationError(
        'passwords',
        'a SessionConfig needs passwords(…) (at least 32 characters)',
      );
    }
    if (d.userKey === d.authenticatedKey) {
      throw new ConfigurationError('authenticatedKey', 'must differ from userKey');
    }
    if (d.sameSite === 'None' && !d.secure) {
      throw new ConfigurationError('sameSite', 'SameSite=None needs a Secure cookie');
    }
    const prefixed = d.secure && d.domain === undefined;
    const name = d.cookieName ?? (prefixed ? '__Host-session' : 'session');
    if (name.startsWith('__Host-') && !prefixed) {
      throw new ConfigurationError('cookieName', 'a __Host- cookie needs Secure and no Domain');
    }
    if (name.startsWith('__Secure-') && !d.secure) {
      throw new ConfigurationError('cookieName', 'a __Secure- cookie needs Secure');
    }
    return Object.freeze({ ...d, passwords: d.passwords, cookieName: name });
  }

  /** Validates and writes one option through its row of {@link SESSION_OPTIONS}. */
  #set<O extends Option>(option: O, value: RowValue<(typeof SESSION_OPTIONS)[O]>): this {
    setOption(SESSION_OPTIONS, this.#draft, option, value);
    return this;
  }
}
