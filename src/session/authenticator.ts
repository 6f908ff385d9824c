import { randomBytes } from 'node:crypto';
import { AuthenticatedUser } from '../core/authenticated-user.js';
import { summarize, type SecurityEvents } from '../core/events.js';
import { Outcome, userOf, type AuthenticationOutcome } from '../core/outcome.js';
import type { SecurityRequest } from '../core/request.js';
import type { Authenticator } from '../core/security.js';
import { User } from '../core/user.js';
import { toRequest, type RequestLike } from './request.js';
import { seal, unseal, type SessionState } from './codec.js';
import { OpenedCookies } from './opened-cookies.js';
import { SessionConfig, type SessionConfigOptions, type SessionSettings } from './config.js';
import { sessionCookie } from './cookie.js';
import { csrfKeys, isUnsafe, newestId, tokenFor, verifyToken, type CsrfFailure } from './csrf.js';
import { csrfFailure } from './csrf-check.js';
import {
  readSessionOptions,
  SessionTooLargeError,
  type CsrfTokenResult,
  type SessionAuthenticatorOptions,
} from './authenticator-options.js';
import { SessionStoreCalls } from './store-calls.js';
import { sameRights } from './rights.js';

export {
  SessionTooLargeError,
  type CsrfTokenResult,
  type SessionAuthenticatorOptions,
} from './authenticator-options.js';

const INVALID = Outcome.failed('invalid-session');
const CSRF_REFUSED = Outcome.refused('csrf');
/** The longest seal a cookie may carry (what `unseal` accepts; browsers stop at 4096 bytes). */
const MAX_SEAL = 3800;

/**
 * Sealed-cookie sessions (SPEC.md's `SessionAuthenticator`): an {@link Authenticator}
 * reading the iron-sealed session cookie, and the operations around it — `logIn`
 * (a fresh session, returned as a `Set-Cookie` value), `logOut`, `logOutEverywhere`,
 * and the CSRF token of a session. A tampered, truncated, expired, revoked or
 * foreign cookie is a `failed` outcome (`invalid-session`: the request goes on as
 * anonymous), never an error; a store that cannot answer fails the request closed
 * (503).
 *
 * CSRF: an unsafe request (POST, PUT, PATCH, DELETE) that the cookie would
 * authenticate must come from the application's own origin (`Sec-Fetch-Site`, else
 * `Origin`; trusted origins configurable), must carry a valid token when it has
 * neither header or sends `text/plain`, and any token it carries in the header must be
 * the session's. A failing request is a `refused('csrf')` outcome, a
 * `csrf-rejected` event is published, and `requestMatcher()` answers 403. Form fields are checked by
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
  readonly #store: SessionStoreCalls;
  readonly #events: SecurityEvents;
  readonly #loadUser: SessionAuthenticatorOptions['loadUser'];
  readonly #loadUserTimeoutMs: number;
  readonly #clock: () => number;
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #newest: string;
  readonly #states = new WeakMap<SecurityRequest, Promise<SessionState | undefined>>();
  /** Recently opened cookies (see `unsealCache`), or `null`. */
  readonly #opened: OpenedCookies | null;
  #lastStamp = 0;

  /** @param config - a {@link SessionConfig} or its plain-object form */
  constructor(
    config: SessionConfig | SessionConfigOptions,
    options: SessionAuthenticatorOptions = {},
  ) {
    const resolved = config instanceof SessionConfig ? config : new SessionConfig(config);
    this.#settings = resolved.resolve();
    const read = readSessionOptions(options);
    this.#store = new SessionStoreCalls(read.store, read.storeTimeoutMs, read.events);
    this.#events = read.events;
    this.#loadUser = read.loadUser;
    this.#loadUserTimeoutMs = read.loadUserTimeoutMs;
    this.#clock = read.clock;
    this.#opened = read.unsealCache === null ? null : new OpenedCookies(read.unsealCache);
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
    return this.#attempt(request).then((outcome) => {
      const user = userOf(outcome);
      return user ? new User(user.username, '', user.roles, user.authorities) : null;
    });
  }

  /**
   * The session's user (`authenticationMethod: 'session'`, attribute `sessionId`), or
   * `null`: {@link SessionAuthenticator.attempt}'s user. At once, synchronously, when
   * the request has no session cookie (so that an `anyOf` chain asking other
   * mechanisms first stays synchronous).
   */
  authenticate(
    request: SecurityRequest,
  ): AuthenticatedUser | null | Promise<AuthenticatedUser | null> {
    if (!this.#hasCookie(request)) return null;
    return this.#attempt(request).then(userOf);
  }

  /**
   * The outcome of the request's session cookie: `anonymous` without one (at once,
   * synchronously) or with a pre-login session; `authenticated`; `failed` with
   * reason `invalid-session` for a cookie that is tampered, expired, revoked (logout,
   * log out everywhere, changed rights) or idle; `refused('csrf')` (403) for an
   * unsafe request failing the CSRF checks. Rejects with an `UnavailableError` (503)
   * when the store or `loadUser` cannot answer in time.
   */
  attempt(request: SecurityRequest): AuthenticationOutcome | Promise<AuthenticationOutcome> {
    if (!this.#hasCookie(request)) return Outcome.anonymous();
    return this.#attempt(request);
  }

  #hasCookie(request: SecurityRequest): boolean {
    const value = request.cookies.get(this.#settings.cookieName);
    return value !== undefined && value !== '';
  }

  async #attempt(request: SecurityRequest): Promise<AuthenticationOutcome> {
    const state = await this.#state(request);
    // The cookie did not unseal (its event is published once, when it is opened).
    if (state === undefined) return INVALID;
    if (state.user === undefined) return Outcome.anonymous(); // a pre-login session
    const stored = state.user;
    const now = this.#clock();
    const expiresAt = state.iat + this.#settings.maxAgeSeconds * 1000;
    if (now >= expiresAt) return this.#invalid(request);
    const store = this.#store;
    const revoked = await store.isRevoked(state.sid, stored.username, state.iat, request);
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
      const failure = csrfFailure(this.#settings, this.#keys, request, state.sid);
      if (failure !== undefined) return this.#csrfRejected(request, user.username, failure);
    }
    const loadUser = this.#loadUser;
    if (
      loadUser !== undefined &&
      !(await sameRights(loadUser, user, this.#loadUserTimeoutMs, this.#events, request))
    ) {
      await store.revokeSession(state.sid, expiresAt, request);
      return this.#revoked(request, user.username, 'rights-changed');
    }
    // Activity is recorded last: a refused request (CSRF, changed rights) must not
    // keep a session alive.
    const idle = this.#settings.idleTimeoutSeconds;
    if (idle !== undefined) {
      const last = (await store.touch(state.sid, now, expiresAt, request)) ?? state.iat;
      if (now - last > idle * 1000) {
        await store.revokeSession(state.sid, expiresAt, request);
        return this.#invalid(request);
      }
    }
    return Outcome.authenticated(
      AuthenticatedUser.from(user, {
        authenticationMethod: 'session',
        attributes: { sessionId: state.sid },
      }),
    );
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
    const cached = this.#opened?.get(value);
    if (cached !== undefined) return cached;
    const state = await unseal(this.#settings, value);
    if (state === undefined) {
      this.#invalid(request);
      return undefined;
    }
    return this.#opened?.remember(value, state) ?? state;
  }

  #invalid(request: SecurityRequest): AuthenticationOutcome {
    this.#publish(() => ({
      type: 'authentication-failure',
      username: undefined,
      authenticationMethod: 'session',
      reason: 'invalid-session',
      request: summarize(request),
    }));
    return INVALID;
  }

  #revoked(
    request: SecurityRequest,
    username: string,
    reason: 'logout' | 'user-revoked' | 'rights-changed',
  ): AuthenticationOutcome {
    this.#publish(() => ({
      type: 'session-revoked',
      username,
      reason,
      request: summarize(request),
    }));
    return Outcome.failed('invalid-session', { username });
  }

  #csrfRejected(
    request: SecurityRequest,
    username: string,
    reason: CsrfFailure,
  ): AuthenticationOutcome {
    this.#publish(() => ({ type: 'csrf-rejected', username, reason, request: summarize(request) }));
    return CSRF_REFUSED;
  }

  #publish(make: () => Parameters<SecurityEvents['publish']>[0]): void {
    try {
      if (this.#events.hasListeners) this.#events.publish(make());
    } catch {
      // A faulty custom publisher must not break the request.
    }
  }
}
