import { randomBytes } from 'node:crypto';
import { AuthenticatedUser } from '../core/authenticated-user.js';
import { noteRefusal } from '../core/credential-failure.js';
import { DEFAULT_DEADLINES, deadlineExceeded, requireDeadline } from '../core/deadline.js';
import { ConfigurationError, DeadlineExceededError, PortcullisError } from '../core/errors.js';
import { securityEvents, summarize, type SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import type { Authenticator } from '../core/security.js';
import { User } from '../core/user.js';
import { toRequest, type RequestLike } from './request.js';
import { seal, unseal, type SessionState } from './codec.js';
import { SessionConfig, type SessionConfigOptions, type SessionSettings } from './config.js';
import { sessionCookie } from './cookie.js';
import {
  checkOrigin,
  csrfKeys,
  isUnsafe,
  newestId,
  tokenFor,
  verifyToken,
  type CsrfFailure,
} from './csrf.js';
import { MemorySessionStore, type SessionStore } from './store.js';
import { withDeadline } from '../lib/deadline.js';
import { rejectUnknownOptions } from '../lib/validate.js';

/** Options of {@link SessionAuthenticator} besides its configuration. */
export interface SessionAuthenticatorOptions {
  /** Where revocations and activity are recorded. @defaultValue a `MemorySessionStore` */
  readonly store?: SessionStore;
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
}

/** A CSRF token for a template, and the cookie to set when a pre-login session had to be made. */
export interface CsrfTokenResult {
  /** The token: send it as the form field (`_csrf`) or the header (`X-CSRF-Token`). */
  readonly token: string;
  /** A `Set-Cookie` value to send with the page, when the request had no session yet. */
  readonly setCookie: string | undefined;
}

const OPTIONS = ['store', 'events', 'loadUser', 'loadUserTimeoutMs', 'clock'];
/** The longest seal a cookie may carry (what `unseal` accepts; browsers stop at 4096 bytes). */
const MAX_SEAL = 3800;

/** The user has too many roles or authorities to fit in a session cookie. */
export class SessionTooLargeError extends PortcullisError {
  override readonly code = 'ERR_SESSION_TOO_LARGE';

  constructor() {
    super('The session does not fit in a cookie (too many roles or authorities)');
  }
}

/**
 * Sealed-cookie sessions (SPEC.md's `SessionAuthenticator`): an {@link Authenticator}
 * reading the iron-sealed session cookie, and the operations around it — `logIn`
 * (a fresh session, returned as a `Set-Cookie` value), `logOut`, `logOutEverywhere`,
 * and the CSRF token of a session. A tampered, truncated, expired, revoked or
 * foreign cookie is anonymous, never an error.
 *
 * CSRF: an unsafe request (POST, PUT, PATCH, DELETE) that the cookie would
 * authenticate must come from the application's own origin (`Sec-Fetch-Site`, else
 * `Origin`; trusted origins configurable), must carry a valid token when it has
 * neither header or sends `text/plain`, and any token it carries in the header must be
 * the session's. A failing request is anonymous, a `csrf-rejected` event is
 * published, and `requestMatcher()` answers 403. Form fields are checked by
 * {@link SessionAuthenticator.verifyCsrfToken} (the form-login handler does).
 *
 * @example
 * ```ts
 * const sessions = new SessionAuthenticator(new SessionConfig().passwords(process.env.SESSION_PASSWORD!));
 * res.setHeader('set-cookie', await sessions.logIn(user)); // after checking the password
 * const { token, setCookie } = await sessions.csrfToken(req); // for the page's forms
 * res.setHeader('set-cookie', await sessions.logOut(req));
 * ```
 */
export class SessionAuthenticator implements Authenticator {
  readonly authenticationMethod = 'session';
  readonly #settings: SessionSettings;
  readonly #store: SessionStore;
  readonly #events: SecurityEvents;
  readonly #loadUser: SessionAuthenticatorOptions['loadUser'];
  readonly #loadUserTimeoutMs: number;
  readonly #clock: () => number;
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #newest: string;
  readonly #states = new WeakMap<SecurityRequest, Promise<SessionState | undefined>>();
  #lastStamp = 0;

  /** @param config - a {@link SessionConfig} or its plain-object form */
  constructor(
    config: SessionConfig | SessionConfigOptions,
    options: SessionAuthenticatorOptions = {},
  ) {
    const resolved = config instanceof SessionConfig ? config : new SessionConfig(config);
    this.#settings = resolved.resolve();
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new ConfigurationError('options', 'must be an object');
    }
    rejectUnknownOptions('SessionAuthenticator', options, OPTIONS);
    const {
      events = securityEvents,
      loadUser,
      loadUserTimeoutMs = DEFAULT_DEADLINES.loadUserMs,
      clock = Date.now,
    } = options;
    if (typeof clock !== 'function') throw new ConfigurationError('clock', 'must be a function');
    // The default store expires its records on the same clock as the sessions.
    const store = options.store ?? new MemorySessionStore({ clock });
    if (typeof store.isRevoked !== 'function' || typeof store.revokeSession !== 'function') {
      throw new ConfigurationError('store', 'must be a SessionStore');
    }
    if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
      throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
    }
    if (loadUser !== undefined && typeof loadUser !== 'function') {
      throw new ConfigurationError('loadUser', 'must be a function (username) => User | null');
    }
    this.#store = store;
    this.#events = events;
    this.#loadUser = loadUser;
    this.#loadUserTimeoutMs = requireDeadline('loadUserTimeoutMs', loadUserTimeoutMs);
    this.#clock = clock;
    this.#keys = csrfKeys(this.#settings);
    this.#newest = newestId(this.#settings);
  }

  /** The session cookie's name (e.g. `__Host-session`). */
  get cookieName(): string {
    return this.#settings.cookieName;
  }

  /** The resolved configuration. @internal */
  get settings(): SessionSettings {
    return this.#settings;
  }

  /** Where its events go; the form routes publish theirs there too. @internal */
  get events(): SecurityEvents {
    return this.#events;
  }

  /** SPEC.md's operation: the session's user, or `null` (at once, without a session cookie). */
  getUser(request: SecurityRequest): User | null | Promise<User | null> {
    if (!this.#hasCookie(request)) return null;
    return this.#sessionUser(request).then((user) =>
      user ? new User(user.username, '', user.roles, user.authorities) : null,
    );
  }

  /**
   * The session's user (`authenticationMethod: 'session'`, attribute `sessionId`), or
   * `null`: at once, synchronously, when the request has no session cookie (so that
   * an `anyOf` chain asking other mechanisms first stays synchronous).
   */
  authenticate(
    request: SecurityRequest,
  ): AuthenticatedUser | null | Promise<AuthenticatedUser | null> {
    if (!this.#hasCookie(request)) return null;
    return this.#sessionUser(request);
  }

  #hasCookie(request: SecurityRequest): boolean {
    const value = request.cookies.get(this.#settings.cookieName);
    return value !== undefined && value !== '';
  }

  async #sessionUser(request: SecurityRequest): Promise<AuthenticatedUser | null> {
    const state = await this.#state(request);
    if (state?.user === undefined) return null;
    const stored = state.user;
    const now = this.#clock();
    const expiresAt = state.iat + this.#settings.maxAgeSeconds * 1000;
    if (now >= expiresAt) return this.#invalid(request);
    const revoked = await this.#store.isRevoked(state.sid, stored.username, state.iat);
    if (revoked !== false) {
      return this.#revoked(
        request,
        stored.username,
        revoked === 'session' ? 'logout' : 'user-revoked',
      );
    }
    let user: User;
    try {
      user = new User(stored.username, '', stored.roles, stored.authorities);
    } catch {
      return this.#invalid(request);
    }
    if (this.#settings.csrf && isUnsafe(request.method)) {
      const failure = this.#csrf(request, state.sid);
      if (failure !== undefined) return this.#csrfRejected(request, user.username, failure);
    }
    if (this.#loadUser && !(await this.#sameRights(user, request))) {
      await this.#store.revokeSession(state.sid, expiresAt);
      return this.#revoked(request, user.username, 'rights-changed');
    }
    // Activity is recorded last: a refused request (CSRF, changed rights) must not
    // keep a session alive.
    const idle = this.#settings.idleTimeoutSeconds;
    if (idle !== undefined) {
      const last = (await this.#store.touch(state.sid, now, expiresAt)) ?? state.iat;
      if (now - last > idle * 1000) {
        await this.#store.revokeSession(state.sid, expiresAt);
        return this.#invalid(request);
      }
    }
    return AuthenticatedUser.from(user, {
      authenticationMethod: 'session',
      attributes: { sessionId: state.sid },
    });
  }

  /**
   * Starts a fresh session for the user (a new id: nothing of a pre-login session is
   * kept, which also defeats session fixation) and returns its `Set-Cookie` value.
   * Check the password first (e.g. `MemoryAuthenticator.verifyCredentials`).
   */
  async logIn(user: User | AuthenticatedUser): Promise<string> {
    const state: SessionState = {
      sid: randomBytes(16).toString('base64url'),
      iat: this.#stamp(),
      user: { username: user.username, roles: [...user.roles], authorities: [...user.authorities] },
    };
    const sealed = await seal(this.#settings, state);
    // Browsers drop cookies over 4096 bytes, and unseal refuses them: the user would
    // seem logged in and then not be. Say so now instead.
    if (sealed.length > MAX_SEAL) throw new SessionTooLargeError();
    return sessionCookie(this.#settings, sealed, this.#settings.maxAgeSeconds);
  }

  /**
   * Ends the request's session: records its revocation (a copy of the cookie no
   * longer works), publishes `logout`, and returns the `Set-Cookie` value that
   * deletes the cookie (also when there was no session).
   */
  async logOut(request: RequestLike): Promise<string> {
    const security = toRequest(request);
    const state = await this.#state(security);
    if (state?.user !== undefined) {
      const expiresAt = state.iat + this.#settings.maxAgeSeconds * 1000;
      await this.#store.revokeSession(state.sid, expiresAt);
      this.#publish(() => ({
        type: 'logout',
        username: (state.user as { username: string }).username,
        request: summarize(security),
      }));
    }
    return this.clearCookie();
  }

  /** Ends every session of the user created until now ("log out everywhere", after a role change). */
  async logOutEverywhere(username: string): Promise<void> {
    const now = this.#stamp();
    await this.#store.revokeUser(username, now, now + this.#settings.maxAgeSeconds * 1000);
  }

  /** The `Set-Cookie` value that deletes the session cookie. */
  clearCookie(): string {
    return sessionCookie(this.#settings, '', 0);
  }

  /**
   * The CSRF token of the request's session, for forms (hidden field `_csrf`) and
   * scripts (header `X-CSRF-Token`). Without a session yet (the login page), an
   * anonymous pre-login session is made: send `setCookie` with the page.
   */
  async csrfToken(request: RequestLike): Promise<CsrfTokenResult> {
    const state = await this.#state(toRequest(request));
    if (state !== undefined)
      return { token: tokenFor(this.#keys, this.#newest, state.sid), setCookie: undefined };
    const fresh: SessionState = {
      sid: randomBytes(16).toString('base64url'),
      iat: this.#clock(),
      user: undefined,
    };
    const sealed = await seal(this.#settings, fresh);
    return {
      token: tokenFor(this.#keys, this.#newest, fresh.sid),
      setCookie: sessionCookie(this.#settings, sealed, this.#settings.maxAgeSeconds),
    };
  }

  /** Whether `token` (e.g. a form's `_csrf` field) is the CSRF token of the request's session. */
  async verifyCsrfToken(request: RequestLike, token: unknown): Promise<boolean> {
    const state = await this.#state(toRequest(request));
    return (
      state !== undefined &&
      verifyToken(this.#keys, state.sid, typeof token === 'string' ? token : undefined)
    );
  }

  /**
   * The clock, made strictly increasing (by 1/1024 ms, exact in a double): a login
   * in the same millisecond as a "log out everywhere", but after it, is later than it
   * (and not revoked), while every session created before it is not.
   */
  #stamp(): number {
    this.#lastStamp = Math.max(this.#clock(), this.#lastStamp + 1 / 1024);
    return this.#lastStamp;
  }

  /** The unsealed session cookie of a request (once per request). */
  #state(request: SecurityRequest): Promise<SessionState | undefined> {
    let state = this.#states.get(request);
    if (state === undefined) {
      const value = request.cookies.get(this.#settings.cookieName);
      state =
        value === undefined || value === ''
          ? Promise.resolve(undefined)
          : this.#open(request, value);
      this.#states.set(request, state);
    }
    return state;
  }

  async #open(request: SecurityRequest, value: string): Promise<SessionState | undefined> {
    const state = await unseal(this.#settings, value);
    if (state === undefined) this.#invalid(request);
    return state;
  }

  #csrf(request: SecurityRequest, sid: string): CsrfFailure | undefined {
    const origin = checkOrigin(this.#settings, request);
    if (origin !== undefined && origin !== null) return origin;
    const token = request.header(this.#settings.csrfHeaderName);
    if (token !== undefined)
      return verifyToken(this.#keys, sid, token) ? undefined : 'invalid-token';
    const type = request.header('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
    // No browser metadata (a non-browser client, an old browser), or a text/plain body
    // (what a cross-site form can send, e.g. to a GraphQL endpoint): the token decides.
    if (origin === null || type === 'text/plain') return 'missing-token';
    return undefined;
  }

  async #sameRights(user: User, request: SecurityRequest): Promise<boolean> {
    const loadUser = this.#loadUser as NonNullable<SessionAuthenticatorOptions['loadUser']>;
    const ms = this.#loadUserTimeoutMs;
    let current: User | null;
    try {
      current = await withDeadline(
        Promise.resolve().then(() => loadUser(user.username)),
        ms,
        () => deadlineExceeded('load-user', ms, this.#events, request),
      );
    } catch (error) {
      // A loader that did not answer in time: fail closed, but keep the session.
      if (error instanceof DeadlineExceededError) throw error;
      return false;
    }
    return (
      current !== null &&
      current.username === user.username &&
      sameSet(current.roles, user.roles) &&
      sameSet(current.authorities, user.authorities)
    );
  }

  #invalid(request: SecurityRequest): null {
    this.#publish(() => ({
      type: 'authentication-failure',
      username: undefined,
      authenticationMethod: 'session',
      reason: 'invalid-session',
      request: summarize(request),
    }));
    return null;
  }

  #revoked(
    request: SecurityRequest,
    username: string,
    reason: 'logout' | 'user-revoked' | 'rights-changed',
  ): null {
    this.#publish(() => ({
      type: 'session-revoked',
      username,
      reason,
      request: summarize(request),
    }));
    return null;
  }

  #csrfRejected(request: SecurityRequest, username: string, reason: CsrfFailure): null {
    noteRefusal(request, { status: 403, reason: 'csrf' });
    this.#publish(() => ({ type: 'csrf-rejected', username, reason, request: summarize(request) }));
    return null;
  }

  #publish(make: () => Parameters<SecurityEvents['publish']>[0]): void {
    try {
      if (this.#events.hasListeners) this.#events.publish(make());
    } catch {
      // A faulty custom publisher must not break the request.
    }
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const value of a) if (!b.has(value)) return false;
  return true;
}
