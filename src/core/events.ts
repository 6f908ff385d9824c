/**
 * Security events for audit logs. Listeners are typed by event type; a listener
 * that throws (or rejects) never breaks the request: the error is reported as a
 * process warning and the other listeners still run. No event carries a password,
 * a token or any other credential.
 *
 * @module portcullis
 */

/** What an event tells of the request it concerns. */
export interface RequestSummary {
  readonly method: string;
  /** The raw path, cut to 1024 characters (it may contain anything the client sent). */
  readonly path: string;
  readonly clientAddress: string | undefined;
}

/** Why an authentication failed. */
export type AuthenticationFailureReason =
  /** The username is not known (the same response as a bad password is given). */
  | 'unknown-user'
  /** The password did not match. */
  | 'bad-credentials'
  /** The credential could not be parsed (bad base64, no colon, bad encoding). */
  | 'malformed-credentials'
  /** The credential was larger than allowed. */
  | 'credentials-too-large'
  /** The stored password's encoding is unknown. */
  | 'unknown-password-encoding'
  /** Too many password verifications were already waiting; the attempt was refused unchecked. */
  | 'too-many-attempts'
  /** A bearer token that is malformed, badly signed, of the wrong type or with wrong claims. */
  | 'invalid-token'
  /** A bearer token past its expiry (or not valid yet). */
  | 'expired-token'
  /** A bearer token (or other credential) that was revoked: by its id, or with every one of its user. */
  | 'revoked-token'
  /** A spent refresh token presented again: its whole family was revoked. */
  | 'token-reused'
  /** A session cookie that is tampered, truncated, expired or sealed with an unknown password. */
  | 'invalid-session'
  /** The password matched, but the account is disabled. */
  | 'account-disabled'
  /** The password matched, but the account is locked. */
  | 'account-locked'
  /** The password matched, but the account has expired. */
  | 'account-expired'
  /** The password matched, but it has expired and must be changed. */
  | 'credentials-expired'
  /** Any other failure of a custom authenticator. */
  | 'other';

export interface AuthenticationSuccessEvent {
  readonly type: 'authentication-success';
  readonly username: string;
  readonly authenticationMethod: string;
  readonly request: RequestSummary | undefined;
}

export interface AuthenticationFailureEvent {
  readonly type: 'authentication-failure';
  /** The username the client claimed, when there was one. */
  readonly username: string | undefined;
  readonly authenticationMethod: string;
  readonly reason: AuthenticationFailureReason;
  readonly request: RequestSummary | undefined;
}

export interface AccessDeniedEvent {
  readonly type: 'access-denied';
  /** `null` for an anonymous request. */
  readonly username: string | null;
  /** The rule that denied, e.g. `^/admin(?:/.*)?$ → hasRole('ADMIN')`. */
  readonly rule: string;
  readonly request: RequestSummary;
  /**
   * Debug mode only (`debug: true` on the transform, the tRPC guards or the GraphQL
   * directives): the requirement that denied, in security-expression syntax.
   */
  readonly expression?: string;
  /**
   * Debug mode only: the term of the requirement that failed, e.g.
   * `hasAnyAuthority('users:write')` of `hasAnyRole('ADMIN') and
   * hasAnyAuthority('users:write')`.
   */
  readonly failingTerm?: string;
  /**
   * Debug mode only, HTTP: how authentication ended (`authenticated (basic)`,
   * `anonymous`, `failed: invalid-token`, `refused: csrf`), the authenticator's reason
   * when a credential was refused.
   */
  readonly authentication?: string;
}

/**
 * Debug mode only: a request was granted, and by which rule. Published by the HTTP
 * transform with `debug: true`, never otherwise (it would be one event per request).
 */
export interface AccessGrantedEvent {
  readonly type: 'access-granted';
  /** `null` for an anonymous request. */
  readonly username: string | null;
  /** The rule that granted, e.g. `/posts [GET, HEAD] → hasAnyRole('USER')`. */
  readonly rule: string;
  /** The rule's requirement in security-expression syntax. */
  readonly expression: string;
  /** The term of the requirement that granted. */
  readonly term: string;
  /** How authentication ended, as {@link AccessDeniedEvent.authentication}. */
  readonly authentication: string;
  readonly request: RequestSummary;
}

export interface RequestRejectedEvent {
  readonly type: 'request-rejected';
  /** The firewall's reason (e.g. `encoded-slash`, `duplicate-header`, `invalid-host`), or `cors` for a refused CORS preflight. */
  readonly reason: string;
  readonly request: RequestSummary;
}

export interface UnknownPasswordEncoderEvent {
  readonly type: 'unknown-password-encoder';
  /** The `{id}` of the stored hash, or `null` when it had none. */
  readonly id: string | null;
}

/**
 * A custom function of a security expression threw, rejected or returned something
 * other than a boolean; the evaluation denied.
 */
export interface ExpressionErrorEvent {
  readonly type: 'expression-error';
  /** The canonical text of the expression. */
  readonly expression: string;
  /** The name of the custom function that failed. */
  readonly function: string;
  /**
   * The thrown error's `name` only (never its message), or `NonBooleanResult` /
   * `UnexpectedPromise` (a promise from a function not declared `async`).
   */
  readonly error: string;
}

/** A user logged out (their session was destroyed and revoked). */
export interface LogoutEvent {
  readonly type: 'logout';
  readonly username: string;
  readonly request: RequestSummary | undefined;
}

/**
 * A session cookie was refused because its session was revoked: after logout, "log
 * out everywhere", or a change of the user's roles.
 */
export interface SessionRevokedEvent {
  readonly type: 'session-revoked';
  readonly username: string;
  /** `logout`, `user-revoked` (log out everywhere) or `rights-changed`. */
  readonly reason: 'logout' | 'user-revoked' | 'rights-changed';
  readonly request: RequestSummary | undefined;
}

/** A cookie-authenticated unsafe request failed the CSRF checks; it was treated as anonymous. */
export interface CsrfRejectedEvent {
  readonly type: 'csrf-rejected';
  readonly username: string | null;
  /** `cross-site`, `untrusted-origin`, `missing-token` or `invalid-token`. */
  readonly reason: 'cross-site' | 'untrusted-origin' | 'missing-token' | 'invalid-token';
  readonly request: RequestSummary | undefined;
}

/**
 * An await on user code or I/O (a password encoder, a custom expression function, a
 * user loader, a key-set fetch, a whole authentication or authorization) did not
 * settle within its deadline; the request failed closed (HTTP 503 with
 * `Retry-After`). Names what timed out, never a credential.
 */
export interface DeadlineExceededEvent {
  readonly type: 'deadline-exceeded';
  /** What timed out, e.g. `password-encoder`, `authentication`, `expression-function:isOwner`, `jwks`. */
  readonly operation: string;
  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number;
  readonly request: RequestSummary | undefined;
}

/**
 * A login throttle or a rate limit refused a request (429 with `Retry-After`). For a
 * login, published once per refused attempt, before any password was checked.
 */
export interface ThrottledEvent {
  readonly type: 'throttled';
  /** `login` for credential checks, else the rate limit's name. */
  readonly limiter: string;
  /** The counter that refused: `username`, `address`, `user` or `key`. */
  readonly scope: string;
  /** The username the attempt named, for a login throttled by username or address. */
  readonly username: string | undefined;
  /** Seconds until the client may try again. */
  readonly retryAfter: number;
  readonly request: RequestSummary | undefined;
}

/**
 * The store of a login throttle or rate limit could not answer, and the limiter
 * followed its policy: `fail-closed` (the request was refused with 503) or
 * `fail-open` (the request went on uncounted).
 */
export interface ThrottleStoreFailureEvent {
  readonly type: 'throttle-store-failure';
  readonly limiter: string;
  readonly policy: 'fail-closed' | 'fail-open';
  /** The store error's `code` (e.g. `ERR_STORE_UNAVAILABLE`, `ERR_DEADLINE_EXCEEDED`). */
  readonly error: string;
  readonly request: RequestSummary | undefined;
}

/** Every security event. */
export type SecurityEvent =
  | AuthenticationSuccessEvent
  | AuthenticationFailureEvent
  | AccessDeniedEvent
  | AccessGrantedEvent
  | RequestRejectedEvent
  | UnknownPasswordEncoderEvent
  | ExpressionErrorEvent
  | LogoutEvent
  | SessionRevokedEvent
  | CsrfRejectedEvent
  | DeadlineExceededEvent
  | ThrottledEvent
  | ThrottleStoreFailureEvent;

export type SecurityEventType = SecurityEvent['type'];

export type SecurityEventListener<E extends SecurityEvent = SecurityEvent> = (
  event: E,
) => void | Promise<void>;

/**
 * A typed publisher of {@link SecurityEvent}s. Components publish to
 * {@link securityEvents} unless given another publisher.
 *
 * @example
 * ```ts
 * import { securityEvents } from 'portcullis';
 * const stop = securityEvents.on('authentication-failure', (e) =>
 *   log.warn({ user: e.username, reason: e.reason, ip: e.request?.clientAddress }));
 * ```
 */
export class SecurityEvents {
  readonly #listeners = new Map<string, Set<SecurityEventListener<never>>>();
  #count = 0;

  /** Adds a listener for one type of event, or `'*'` for all; returns a function that removes it. */
  on<T extends SecurityEventType | '*'>(
    type: T,
    listener: SecurityEventListener<
      T extends '*' ? SecurityEvent : Extract<SecurityEvent, { type: T }>
    >,
  ): () => void {
    let set = this.#listeners.get(type);
    if (!set) this.#listeners.set(type, (set = new Set()));
    if (!set.has(listener)) {
      set.add(listener);
      this.#count++;
    }
    return () => {
      if (set.delete(listener)) this.#count--;
    };
  }

  /** Whether any listener is registered (lets publishers skip building events). */
  get hasListeners(): boolean {
    return this.#count > 0;
  }

  /** Delivers an event to its listeners; never throws. */
  publish(event: SecurityEvent): void {
    if (this.#count === 0) return;
    this.#deliver(this.#listeners.get(event.type), event);
    this.#deliver(this.#listeners.get('*'), event);
  }

  #deliver(listeners: Set<SecurityEventListener<never>> | undefined, event: SecurityEvent): void {
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        const result = (listener as SecurityEventListener)(event);
        if (result && typeof result.then === 'function')
          result.then(undefined, reportListenerError);
      } catch (error) {
        reportListenerError(error);
      }
    }
  }
}

function reportListenerError(error: unknown): void {
  const name = error instanceof Error ? error.name : typeof error;
  process.emitWarning(`A security event listener failed (${name})`, {
    code: 'PORTCULLIS_LISTENER_ERROR',
  });
}

/** The default publisher every component uses unless configured with another. */
export const securityEvents = new SecurityEvents();

/** Summarizes a request for an event. @internal */
export function summarize(request: {
  method: string;
  rawPath: string;
  clientAddress: string | undefined;
}): RequestSummary {
  return {
    method: request.method,
    path: request.rawPath.length > 1024 ? request.rawPath.slice(0, 1024) : request.rawPath,
    clientAddress: request.clientAddress,
  };
}
