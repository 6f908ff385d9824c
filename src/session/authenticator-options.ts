import { DEFAULT_DEADLINES, requireDeadline } from '../core/deadline.js';
import { ConfigurationError, PortcullisError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import type { User } from '../core/user.js';
import { rejectUnknownOptions, requireInteger } from '../core/validate.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../stores/call.js';
import { MemorySessionStore, type SessionStore } from './store.js';

/** Options of {@link SessionAuthenticator} besides its configuration. */
export interface SessionAuthenticatorOptions {
  /**
   * Where revocations and activity are recorded; it may answer synchronously (memory)
   * or with promises (a shared store such as `RedisSessionStore`, `portcullis/redis`).
   * A store that throws, rejects or passes `storeTimeoutMs` fails the request closed
   * (`UnavailableError`, 503), never anonymous.
   * @defaultValue a `MemorySessionStore` (this process only)
   */
  readonly store?: SessionStore;
  /**
   * How long one asynchronous call of the store may take, in milliseconds (1 to
   * 600,000). Past it the request fails closed: `DeadlineExceededError` (503) and a
   * `deadline-exceeded` event.
   * @defaultValue `2_000`
   */
  readonly storeTimeoutMs?: number;
  /** Where session events go. @defaultValue `securityEvents` */
  readonly events?: SecurityEvents;
  /**
   * The user's current account, checked on every request: a session whose stored
   * roles or authorities differ (or whose user is gone) is revoked. Without it,
   * call `logOutEverywhere(username)` when rights change.
   */
  readonly loadUser?: (username: string) => User | null | Promise<User | null>;
  /**
   * How long one `loadUser` call may take, in milliseconds (1 to 600,000). Past it the
   * request fails closed: `DeadlineExceededError` (operation `load-user`; 503 through
   * `SecurityTransform`) and a `deadline-exceeded` event; the session is kept.
   * @defaultValue `5_000`
   */
  readonly loadUserTimeoutMs?: number;
  /** The clock in epoch milliseconds (tests); the default store uses it too. @defaultValue `Date.now` */
  readonly clock?: () => number;
  /**
   * Keeps the contents of recently opened session cookies, keyed by the exact sealed
   * value, so a cookie seen again skips the unsealing (a key derivation and a
   * decryption, hundreds of microseconds). Only cookies that unsealed are kept, never
   * past the seal's own expiry (iron's clock and skew); every request still checks
   * the session's age, its revocation, CSRF and `loadUser`, so nothing is accepted
   * that unsealing would refuse. `false` turns it off.
   * @defaultValue `{ maxEntries: 10_000, ttlMs: 60_000 }`
   */
  readonly unsealCache?: false | { readonly maxEntries?: number; readonly ttlMs?: number };
}

/** A CSRF token for a template, and the cookie to set when a pre-login session had to be made. */
export interface CsrfTokenResult {
  /** The token: send it as the form field (`_csrf`) or the header (`X-CSRF-Token`). */
  readonly token: string;
  /** A `Set-Cookie` value to send with the page, when the request had no session yet. */
  readonly setCookie: string | undefined;
}

/** The user has too many roles or authorities to fit in a session cookie. */
export class SessionTooLargeError extends PortcullisError {
  override readonly code = 'ERR_SESSION_TOO_LARGE';

  constructor() {
    super('The session does not fit in a cookie (too many roles or authorities)');
  }
}

const OPTIONS = [
  'store',
  'storeTimeoutMs',
  'events',
  'loadUser',
  'loadUserTimeoutMs',
  'clock',
  'unsealCache',
];

/** The validated options of a `SessionAuthenticator`, with their defaults. @internal */
export interface SessionOptions {
  readonly store: SessionStore;
  readonly storeTimeoutMs: number;
  readonly events: SecurityEvents;
  readonly loadUser: SessionAuthenticatorOptions['loadUser'];
  readonly loadUserTimeoutMs: number;
  readonly clock: () => number;
  readonly unsealCache: { readonly maxEntries: number; readonly ttlMs: number } | null;
}

/** Validates the options (never mutating them) and fills in the defaults. @internal */
export function readSessionOptions(options: SessionAuthenticatorOptions): SessionOptions {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknownOptions('SessionAuthenticator', options, OPTIONS);
  const {
    events = securityEvents,
    loadUser,
    loadUserTimeoutMs = DEFAULT_DEADLINES.loadUserMs,
    storeTimeoutMs = DEFAULT_STORE_TIMEOUT_MS,
    clock = Date.now,
  } = options;
  if (typeof clock !== 'function') throw new ConfigurationError('clock', 'must be a function');
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  if (loadUser !== undefined && typeof loadUser !== 'function') {
    throw new ConfigurationError('loadUser', 'must be a function (username) => User | null');
  }
  return {
    // The default store expires its records on the same clock as the sessions.
    store: options.store ?? new MemorySessionStore({ clock }),
    storeTimeoutMs: requireDeadline('storeTimeoutMs', storeTimeoutMs),
    events,
    loadUser,
    loadUserTimeoutMs: requireDeadline('loadUserTimeoutMs', loadUserTimeoutMs),
    clock,
    unsealCache: readUnsealCache(options.unsealCache),
  };
}

function readUnsealCache(value: unknown): SessionOptions['unsealCache'] {
  if (value === false) return null;
  if (value === undefined) return { maxEntries: 10_000, ttlMs: 60_000 };
  if (typeof value !== 'object' || value === null) {
    throw new ConfigurationError('unsealCache', 'must be false or { maxEntries, ttlMs }');
  }
  rejectUnknownOptions('unsealCache', value, ['maxEntries', 'ttlMs']);
  const { maxEntries = 10_000, ttlMs = 60_000 } = value as {
    maxEntries?: unknown;
    ttlMs?: unknown;
  };
  return {
    maxEntries: requireInteger('unsealCache.maxEntries', maxEntries, 1, 10_000_000),
    ttlMs: requireInteger('unsealCache.ttlMs', ttlMs, 1, 3_600_000),
  };
}
