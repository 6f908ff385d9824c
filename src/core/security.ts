import { AuthenticatedUser } from './authenticated-user.js';
import { deadlineExceeded } from './deadline.js';
import { ConfigurationError, UnavailableError } from './errors.js';
import { summarize, type SecurityEvents } from './events.js';
import { maybeWithDeadline } from '../lib/deadline.js';
import { isPromiseLike } from '../lib/promise.js';
import { Outcome, userOfAttempt, type AuthenticationOutcome } from './outcome.js';
import type { SecurityRequest } from './request.js';
import type { User } from './user.js';

/**
 * Turns a request into a user, or `null` when the request carries no valid
 * credential. HTTP Basic, JWT, sessions, OAuth2 and custom authenticators all
 * implement it.
 *
 * @example
 * ```ts
 * const apiKeys: Authenticator = {
 *   authenticationMethod: 'api-key',
 *   getUser: (request) => keys.get(request.header('x-api-key') ?? '') ?? null,
 * };
 * ```
 */
export interface Authenticator {
  /** SPEC.md's operation: the user, or `null`. May be sync or async. */
  getUser(request: SecurityRequest): User | null | Promise<User | null>;
  /**
   * Optional richer form: the authenticated user with its method and attributes.
   * When present it is used instead of {@link Authenticator.getUser}.
   */
  authenticate?(
    request: SecurityRequest,
  ): AuthenticatedUser | null | Promise<AuthenticatedUser | null>;
  /**
   * The richest form: the explicit {@link AuthenticationOutcome} of the request (a
   * user, anonymous, a refused credential with its reason and challenge, or a
   * refusal). When present it is used instead of `authenticate` and `getUser`.
   * Rejects only with an `UnavailableError` (the credential could not be checked)
   * or a `ConfigurationError`.
   */
  attempt?(request: SecurityRequest): AuthenticationOutcome | Promise<AuthenticationOutcome>;
  /**
   * The method name recorded on {@link AuthenticatedUser.authenticationMethod}.
   * @defaultValue `'custom'`
   */
  readonly authenticationMethod?: string;
  /**
   * Throws a `ConfigurationError` when the authenticator cannot work as configured
   * (an in-memory store without a password encoder, say). Whoever installs an
   * authenticator (`SecurityTransform`, the tRPC and GraphQL context factories,
   * `AuthenticationManager.anyOf`) calls it once, at start-up, so a misconfiguration
   * fails the start instead of the first request.
   */
  assertConfigured?(): void;
}

/**
 * Calls {@link Authenticator.assertConfigured} when the authenticator has it: the
 * start-up check of whoever installs an authenticator.
 *
 * @internal
 */
export function assertAuthenticatorConfigured(authenticator: Authenticator): void {
  if (typeof authenticator.assertConfigured === 'function') authenticator.assertConfigured();
}

/** The outcome of an {@link Authorizer}. */
export type AuthorizationDecision =
  | { readonly granted: true }
  | {
      readonly granted: false;
      /** `unauthenticated`: a user is needed (401 or login); `forbidden`: the user lacks a right (403). */
      readonly reason: 'unauthenticated' | 'forbidden';
      /** A description of the rule that denied, for events and debugging; never sent to clients. */
      readonly rule: string;
    };

/** A response portcullis answers with instead of calling the handler. */
export interface SecurityResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * `Set-Cookie` values, each written as its own header line by every adapter
   * (never joined: a cookie's `Expires` holds a comma).
   */
  readonly cookies?: readonly string[];
  readonly body: string;
}

/** Decides whether a (possibly anonymous) user may make a request. */
export interface Authorizer {
  authorize(
    user: AuthenticatedUser | null,
    request: SecurityRequest,
  ): AuthorizationDecision | Promise<AuthorizationDecision>;
  /**
   * Builds the response to a denial (a challenge, a redirect to a login page, a 403).
   * Without it a plain 401 or 403 is answered. `authentication` is the request's
   * authentication outcome: a refused credential's challenge, or a refusal (403).
   */
  onDenied?(
    decision: Extract<AuthorizationDecision, { granted: false }>,
    request: SecurityRequest,
    authentication?: AuthenticationOutcome,
  ): SecurityResponse;
  /**
   * Optional: why `user` is granted or refused `request`, with the rule that decided
   * and the term of its requirement that failed. What debug mode
   * (`SecurityTransformOptions.debug`) puts in its events and `npx portcullis
   * explain` prints; never called on the per-request path otherwise. Counts nothing
   * (no rate limit is consumed). The URL-rule authorizer has it.
   */
  explain?(
    user: AuthenticatedUser | null,
    request: SecurityRequest,
  ): Promise<AuthorizationExplanation>;
}

/** Why an {@link Authorizer} grants or refuses a request: see {@link Authorizer.explain}. */
export interface AuthorizationExplanation {
  /** What the authorizer decides: `granted`, or the reason of its denial. */
  readonly outcome: 'granted' | 'unauthenticated' | 'forbidden';
  /** The rule that decided, as a denial's `rule` names it: `/admin/** → hasAnyRole('ADMIN')`. */
  readonly rule: string;
  /** The rule's requirement in security-expression syntax. */
  readonly requirement: string;
  /** The term of the requirement that decided: for a denial the failing term. */
  readonly term: string;
  /** A custom function of the requirement failed (threw, rejected, not a boolean): it denied. */
  readonly functionFailed: boolean;
}

/** The decision that grants. */
export const GRANTED: AuthorizationDecision = Object.freeze({ granted: true });

/**
 * Runs an authenticator for its explicit outcome: its `attempt` when it has one, else
 * `authenticate`, else `getUser` (a user is `authenticated`, `null` is `anonymous`).
 * Synchronous when the authenticator answers synchronously. An `attempt` that answers
 * something that is not an outcome throws a `TypeError` (a failed authentication for
 * the caller, never a user).
 */
export function attemptWith(
  authenticator: Authenticator,
  request: SecurityRequest,
): AuthenticationOutcome | Promise<AuthenticationOutcome> {
  if (typeof authenticator.attempt === 'function') {
    const outcome = authenticator.attempt(request);
    return isPromiseLike(outcome)
      ? Promise.resolve(outcome).then(requireOutcome)
      : requireOutcome(outcome);
  }
  const found = legacyAuthenticate(authenticator, request);
  return isPromiseLike(found) ? Promise.resolve(found).then(toOutcome) : toOutcome(found);
}

/**
 * Runs an authenticator for its user only: {@link attemptWith}'s user, or `null`
 * (anonymous, a refused credential or a refusal).
 */
export function authenticateWith(
  authenticator: Authenticator,
  request: SecurityRequest,
): AuthenticatedUser | null | Promise<AuthenticatedUser | null> {
  if (typeof authenticator.attempt !== 'function')
    return legacyAuthenticate(authenticator, request);
  return userOfAttempt(attemptWith(authenticator, request));
}

/** `authenticate`, or `getUser` wrapped as an AuthenticatedUser with the authenticator's method. */
function legacyAuthenticate(
  authenticator: Authenticator,
  request: SecurityRequest,
): AuthenticatedUser | null | Promise<AuthenticatedUser | null> {
  if (authenticator.authenticate) return authenticator.authenticate(request);
  const method = authenticator.authenticationMethod ?? 'custom';
  const found = authenticator.getUser(request);
  if (isPromiseLike(found)) {
    return Promise.resolve(found).then((user) =>
      user ? AuthenticatedUser.from(user, { authenticationMethod: method }) : null,
    );
  }
  return found ? AuthenticatedUser.from(found, { authenticationMethod: method }) : null;
}

function toOutcome(user: AuthenticatedUser | null | undefined): AuthenticationOutcome {
  if (user === null || user === undefined) return Outcome.anonymous();
  if (!(user instanceof AuthenticatedUser)) {
    throw new TypeError('authenticate() must answer an AuthenticatedUser or null');
  }
  return Outcome.authenticated(user);
}

const KINDS = new Set(['authenticated', 'anonymous', 'failed', 'refused']);

/** The outcome, checked: an `authenticated` one carries an AuthenticatedUser. */
function requireOutcome(outcome: AuthenticationOutcome): AuthenticationOutcome {
  const value: unknown = outcome;
  const kind =
    typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined;
  if (typeof kind !== 'string' || !KINDS.has(kind)) {
    throw new TypeError('attempt() must answer an AuthenticationOutcome');
  }
  if (
    kind === 'authenticated' &&
    !((value as { user?: unknown }).user instanceof AuthenticatedUser)
  ) {
    throw new TypeError('an authenticated outcome must carry an AuthenticatedUser');
  }
  return outcome;
}

/**
 * {@link attemptWith} under a deadline: when the authenticator's promise has not
 * settled within `timeoutMs`, it rejects with a `DeadlineExceededError` (operation
 * `authentication`) and a `deadline-exceeded` event is published. A synchronous
 * answer stays synchronous.
 *
 * @internal
 */
export function attemptWithin(
  authenticator: Authenticator,
  request: SecurityRequest,
  timeoutMs: number,
  events: SecurityEvents,
): AuthenticationOutcome | Promise<AuthenticationOutcome> {
  return maybeWithDeadline(attemptWith(authenticator, request), timeoutMs, () =>
    deadlineExceeded('authentication', timeoutMs, events, request),
  );
}

/**
 * Authenticates a request the way every installer of an authenticator does:
 * {@link attemptWithin} its deadline, and an authenticator that throws is a failed
 * authentication ({@link authenticatorFailed}: an `authentication-failure` event and
 * the `failed` outcome). Throws or rejects only with an {@link UnavailableError} (a
 * deadline passed, a store is down: fail closed) or a `ConfigurationError`. A
 * synchronous answer stays synchronous.
 *
 * @internal
 */
export function authenticateWithin(
  authenticator: Authenticator,
  request: SecurityRequest,
  timeoutMs: number,
  events: SecurityEvents,
): AuthenticationOutcome | Promise<AuthenticationOutcome> {
  let found: AuthenticationOutcome | Promise<AuthenticationOutcome>;
  try {
    found = attemptWithin(authenticator, request, timeoutMs, events);
  } catch (error) {
    return authenticatorFailed(authenticator, request, error, events);
  }
  if (!isPromiseLike(found)) return found;
  return found.then(undefined, (error: unknown) =>
    authenticatorFailed(authenticator, request, error, events),
  );
}

/**
 * What to do when an authenticator throws: a failed authentication (an
 * `authentication-failure` event with reason `other`, and the `failed` outcome),
 * never a server error — except a `ConfigurationError` (e.g. no password encoder
 * set), which is the application's bug and is rethrown so it is seen instead of
 * hiding behind 401s, and an {@link UnavailableError} (a deadline passed, a store is
 * unreachable), which is rethrown so the request fails closed with 503: a credential
 * that could not be checked is not "no credential".
 *
 * @internal
 */
export function authenticatorFailed(
  authenticator: Authenticator,
  request: SecurityRequest,
  error: unknown,
  events: SecurityEvents,
): AuthenticationOutcome {
  if (error instanceof ConfigurationError || error instanceof UnavailableError) throw error;
  try {
    if (events.hasListeners) {
      events.publish({
        type: 'authentication-failure',
        username: undefined,
        authenticationMethod: authenticator.authenticationMethod ?? 'custom',
        reason: 'other',
        request: summarize(request),
      });
    }
  } catch {
    // A faulty custom publisher must not break the request.
  }
  return FAILED_OTHER;
}

const FAILED_OTHER = Outcome.failed('other');
