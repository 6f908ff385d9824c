/**
 * Errors of portcullis: every runtime failure is a {@link PortcullisError} with a
 * stable `code`; every misconfiguration is a {@link ConfigurationError}, which is a
 * `TypeError` naming the option. No message ever contains a password, a token, a
 * secret or a credential.
 *
 * @module portcullis
 */

/** Base class of portcullis' runtime errors. Branch on `code`, never on `message`. */
export class PortcullisError extends Error {
  /** A stable machine-readable code, e.g. `ERR_ACCESS_DENIED`. */
  readonly code: string = 'ERR_PORTCULLIS';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * No user is authenticated where one is required, e.g. {@link SecurityContext.requireUser}
 * outside an authenticated request. Maps to HTTP 401.
 */
export class AuthenticationRequiredError extends PortcullisError {
  override readonly code = 'ERR_AUTHENTICATION_REQUIRED';

  constructor(message = 'Authentication is required') {
    super(message);
  }
}

/**
 * The authenticated user lacks the right for a resource. Maps to HTTP 403.
 * `rule` names the rule that denied (never shown to clients unless debugging).
 */
export class AccessDeniedError extends PortcullisError {
  override readonly code = 'ERR_ACCESS_DENIED';
  readonly rule: string | undefined;

  constructor(message = 'Access is denied', rule?: string) {
    super(message);
    this.rule = rule;
  }
}

/**
 * The firewall refused a request whose path is not in normal form. Maps to HTTP 400.
 * `reason` is one of {@link FirewallRejectionReason}.
 */
export class RequestRejectedError extends PortcullisError {
  override readonly code = 'ERR_REQUEST_REJECTED';
  readonly reason: string;

  constructor(reason: string) {
    super(`The request was rejected because ${reason.replaceAll('-', ' ')}`);
    this.reason = reason;
  }
}

/** A password could not be encoded or an encoded password is not in a known format. */
export class PasswordEncodingError extends PortcullisError {
  override readonly code = 'ERR_PASSWORD_ENCODING';
}

/**
 * A dependency of the security pipeline could not answer (a deadline passed, a store
 * is unreachable), so the request fails closed: HTTP 503 with `Retry-After`, tRPC
 * `SERVICE_UNAVAILABLE`, GraphQL `SERVICE_UNAVAILABLE` — never anonymous, never a
 * 500. The base of a family: branch on `code` for the cause.
 *
 * @example
 * ```ts
 * if (error instanceof UnavailableError) reply(503, { 'retry-after': String(error.retryAfter) });
 * ```
 */
export class UnavailableError extends PortcullisError {
  override readonly code: string = 'ERR_UNAVAILABLE';
  /**
   * Whole seconds, at least 1, after which the client may retry: the `Retry-After`
   * header's value as it is (RFC 9110 §10.2.3).
   */
  readonly retryAfter: number;

  /** @param retryAfter - seconds; rounded up to a whole second, at least 1 (5 when not a number) */
  constructor(message = 'The service is unavailable', retryAfter = 5, options?: ErrorOptions) {
    super(message, options);
    this.retryAfter = Number.isFinite(retryAfter) ? Math.max(1, Math.ceil(retryAfter)) : 5;
  }
}

/**
 * The client made too many attempts or requests: a login throttle refused a
 * credential check before any hashing, or a rate limit was reached. HTTP 429 with
 * `Retry-After`, tRPC `TOO_MANY_REQUESTS`, GraphQL `extensions.code`
 * `TOO_MANY_REQUESTS`. It is an {@link UnavailableError} (the request is refused for
 * now, never let through anonymously) whose status is 429, not 503: branch on `code`.
 * `limiter` names what refused (`login`, or a rate limit's name) and `scope` the
 * counter (`username`, `address`, or the rate limit's key kind); neither holds the
 * username or the address.
 *
 * @example
 * ```ts
 * if (error instanceof TooManyRequestsError) reply(429, { 'retry-after': String(error.retryAfter) });
 * ```
 */
export class TooManyRequestsError extends UnavailableError {
  override readonly code = 'ERR_TOO_MANY_REQUESTS';
  /** What refused: `login` (credential checks) or the name of a rate limit. */
  readonly limiter: string;
  /** Which counter refused: `username`, `address`, `user` or `key`. */
  readonly scope: string;

  /** @param retryAfter - seconds until the counter lets the client try again (at least 1) */
  constructor(limiter: string, scope: string, retryAfter: number, options?: ErrorOptions) {
    super(`Too many requests (${limiter}, ${scope})`, retryAfter, options);
    this.limiter = limiter;
    this.scope = scope;
  }
}

/**
 * A {@link TooManyRequestsError} made without capturing a stack trace: it is a
 * refusal, not a fault, and under a flood the refusals are the hot path.
 *
 * @internal
 */
export function tooManyRequests(
  limiter: string,
  scope: string,
  retryAfter: number,
): TooManyRequestsError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new TooManyRequestsError(limiter, scope, retryAfter);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The HTTP status of an {@link UnavailableError}: 429 for a {@link TooManyRequestsError}, else 503. @internal */
export function retryLaterStatus(error: UnavailableError): 429 | 503 {
  return error instanceof TooManyRequestsError ? 429 : 503;
}

/**
 * An await on user code or I/O (a password encoder, a custom expression function, a
 * user loader, a key-set fetch, a whole authentication) did not settle within its
 * deadline. `operation` names what timed out (e.g. `password-encoder`), `timeoutMs`
 * the deadline; neither holds a secret.
 */
export class DeadlineExceededError extends UnavailableError {
  override readonly code = 'ERR_DEADLINE_EXCEEDED';
  /** What timed out, e.g. `password-encoder`, `expression-function:isOwner`, `jwks`. */
  readonly operation: string;
  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number;

  constructor(operation: string, timeoutMs: number, options?: ErrorOptions) {
    super(`${operation} did not answer within ${timeoutMs} ms`, 5, options);
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A misconfiguration, found when the configuration is built (never at request time).
 * It is a `TypeError` (as helmet and iron-session throw) with `code`
 * `ERR_INVALID_OPTION` and the name of the offending option in `option`.
 *
 * @example
 * ```ts
 * new Access().roles([]); // ConfigurationError: roles: must name at least one role
 * ```
 */
export class ConfigurationError extends TypeError {
  readonly code = 'ERR_INVALID_OPTION';
  readonly option: string;

  constructor(option: string, problem: string) {
    super(`${option}: ${problem}`);
    this.name = 'ConfigurationError';
    this.option = option;
  }
}

/**
 * A store of the shared security state (Redis, a database) could not be reached or
 * did not answer within its deadline, so a revocation, a rotation or a spent
 * transaction could not be checked: the request fails closed with 503 and
 * `Retry-After`. `store` names the store (e.g. `redis`), `operation` what was asked
 * (e.g. `session-revocation`); neither holds a key or a secret.
 */
export class StoreUnavailableError extends UnavailableError {
  override readonly code = 'ERR_STORE_UNAVAILABLE';
  /** The store, e.g. `redis`. */
  readonly store: string;
  /** What was asked of it, e.g. `refresh-rotation`. */
  readonly operation: string;

  constructor(store: string, operation: string, retryAfter = 1, options?: ErrorOptions) {
    super(`The ${store} store is unavailable (${operation})`, retryAfter, options);
    this.store = store;
    this.operation = operation;
  }
}
