/**
 * Errors of portcullis, in one style:
 *
 * - Every runtime failure is a {@link PortcullisError}: one subclass per area (a
 *   `JwtError` for tokens, an `OAuth2Error` for login with a provider, …) or per
 *   failure (`AccessDeniedError`), each with a `readonly code` typed as the union of
 *   the literal `ERR_…` codes that class can carry (one literal for a per-failure
 *   class). The code is stable: branch on it, never on the message. A failure that
 *   has its own handling has its own code, never a second field to read (no `reason`).
 * - Every misconfiguration is a {@link ConfigurationError}: a `TypeError` (as helmet
 *   and iron-session throw), thrown when the configuration is built, with the same
 *   shape (`code` `ERR_INVALID_OPTION`, and `option`).
 * - {@link isPortcullisError} tells both apart from anything else, so one `catch`
 *   can branch on `code` for every error portcullis throws.
 * - `name` is the class name; no message ever contains a password, a token, a
 *   secret or a credential.
 *
 * @example
 * ```ts
 * try {
 *   await handle(request);
 * } catch (error) {
 *   if (!isPortcullisError(error)) throw error;
 *   switch (error.code) {
 *     case 'ERR_JWT_EXPIRED': …
 *     case 'ERR_INVALID_OPTION': …
 *   }
 * }
 * ```
 *
 * @module portcullis
 */

/**
 * Base class of portcullis' runtime errors. Abstract: each subclass declares its
 * `code` as the literal `ERR_…` codes it can carry. Branch on `code`, never on
 * `message`; `name` is the class name.
 */
export abstract class PortcullisError extends Error {
  /** A stable machine-readable code, e.g. `ERR_ACCESS_DENIED`. */
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Whether `error` is an error portcullis throws: a {@link PortcullisError} (a runtime
 * failure) or a {@link ConfigurationError} (a misconfiguration, which is a
 * `TypeError` and so not a `PortcullisError`). Either way it has a stable `code` to
 * branch on.
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (isPortcullisError(error)) log.warn({ code: error.code });
 * }
 * ```
 */
export function isPortcullisError(error: unknown): error is PortcullisError | ConfigurationError {
  return error instanceof PortcullisError || error instanceof ConfigurationError;
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
 * The stable codes of {@link RequestRejectedError}: `ERR_REQUEST_REJECTED_` and the
 * firewall's reason (`FirewallRejectionReason`) in upper snake case, e.g.
 * `encoded-slash` → `ERR_REQUEST_REJECTED_ENCODED_SLASH`.
 */
export type RequestRejectedErrorCode =
  | 'ERR_REQUEST_REJECTED_METHOD_NOT_ALLOWED'
  | 'ERR_REQUEST_REJECTED_PATH_TOO_LONG'
  | 'ERR_REQUEST_REJECTED_FRAGMENT'
  | 'ERR_REQUEST_REJECTED_PATH_NOT_ABSOLUTE'
  | 'ERR_REQUEST_REJECTED_MALFORMED_ENCODING'
  | 'ERR_REQUEST_REJECTED_NULL_CHARACTER'
  | 'ERR_REQUEST_REJECTED_LINE_BREAK'
  | 'ERR_REQUEST_REJECTED_CONTROL_CHARACTER'
  | 'ERR_REQUEST_REJECTED_ENCODED_SLASH'
  | 'ERR_REQUEST_REJECTED_BACKSLASH'
  | 'ERR_REQUEST_REJECTED_SEMICOLON'
  | 'ERR_REQUEST_REJECTED_ENCODED_PERCENT'
  | 'ERR_REQUEST_REJECTED_ENCODED_PERIOD'
  | 'ERR_REQUEST_REJECTED_DOUBLE_SLASH'
  | 'ERR_REQUEST_REJECTED_DOT_SEGMENT'
  | 'ERR_REQUEST_REJECTED_AMBIGUOUS_CASE_FOLDING'
  | 'ERR_REQUEST_REJECTED_DUPLICATE_HEADER'
  | 'ERR_REQUEST_REJECTED_INVALID_HOST'
  | 'ERR_REQUEST_REJECTED_HOST_NOT_ALLOWED';

/**
 * The firewall refused a request whose path or headers are not in normal form.
 * Maps to HTTP 400. The `code` names the failure (see {@link RequestRejectedErrorCode});
 * the message never echoes the path.
 *
 * @example
 * ```ts
 * new RequestRejectedError('ERR_REQUEST_REJECTED_ENCODED_SLASH').message;
 * // 'The request was rejected (encoded slash)'
 * ```
 */
export class RequestRejectedError extends PortcullisError {
  override readonly code: RequestRejectedErrorCode;

  constructor(code: RequestRejectedErrorCode, options?: ErrorOptions) {
    const what = code.slice('ERR_REQUEST_REJECTED_'.length).toLowerCase().replaceAll('_', ' ');
    super(`The request was rejected (${what})`, options);
    this.code = code;
  }
}

/**
 * The stable codes of the {@link UnavailableError} family: `ERR_UNAVAILABLE` (the
 * class itself), `ERR_TOO_MANY_REQUESTS` ({@link TooManyRequestsError}),
 * `ERR_DEADLINE_EXCEEDED` ({@link DeadlineExceededError}), `ERR_STORE_UNAVAILABLE`
 * ({@link StoreUnavailableError}) and `ERR_STORE_FULL` (an in-memory store full of
 * live records: `MemoryStoreFullError` and its subclasses).
 */
export type UnavailableErrorCode =
  | 'ERR_UNAVAILABLE'
  | 'ERR_TOO_MANY_REQUESTS'
  | 'ERR_DEADLINE_EXCEEDED'
  | 'ERR_STORE_UNAVAILABLE'
  | 'ERR_STORE_FULL';

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
  override readonly code: UnavailableErrorCode = 'ERR_UNAVAILABLE';
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
 * It is a `TypeError` (as helmet and iron-session throw: a wrong option is a wrong
 * argument, and `catch (e) { if (e instanceof TypeError) … }` keeps working), so it
 * is not a {@link PortcullisError}; it has the same shape, `code`
 * (`ERR_INVALID_OPTION`) and `name`, and the name of the offending option in
 * `option`. {@link isPortcullisError} accepts both.
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
