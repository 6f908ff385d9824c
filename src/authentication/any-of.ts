import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import { Outcome, userOfAttempt, type AuthenticationOutcome } from '../core/outcome.js';
import type { SecurityRequest } from '../core/request.js';
import {
  assertAuthenticatorConfigured,
  attemptWith,
  type Authenticator,
} from '../core/security.js';
import type { User } from '../core/user.js';
import { isPromiseLike } from '../lib/promise.js';
import { publishAuthentication } from './publish.js';

/** Options of {@link AuthenticationManager.anyOf}. */
export interface AnyOfOptions {
  /**
   * Where the `authentication-failure` event of an authenticator that threw is published.
   * @defaultValue `securityEvents`
   */
  readonly events?: SecurityEvents;
}

/**
 * An authenticator that asks several in order; the first user found wins. Each
 * keeps its own `authenticationMethod` (through `authenticateWith`). An
 * authenticator that throws or rejects is treated as having found no user: an
 * `authentication-failure` event with reason `other` is published, a process
 * warning names the error's class (once per authenticator), and the next one is
 * asked. This fails closed (401 rather than 500) and keeps one broken mechanism
 * from locking out users of the others. An authenticator that could not answer (an
 * `UnavailableError`: a deadline passed, the key server is unreachable) is skipped
 * the same way, but when no other one finds a user its error is rethrown, so the
 * request fails closed with 503 instead of going on as anonymous.
 *
 * @example
 * ```ts
 * const authenticator = AuthenticationManager.anyOf(jwtAuthenticator, basicAuthenticator);
 * ```
 */
export function anyOf(...authenticators: Authenticator[]): Authenticator;
export function anyOf(
  authenticators: readonly Authenticator[],
  options?: AnyOfOptions,
): Authenticator;
export function anyOf(...args: unknown[]): Authenticator {
  const [first, second] = args;
  const list = Array.isArray(first) ? (first as unknown[]) : args;
  const options = (Array.isArray(first) ? second : undefined) as AnyOfOptions | undefined;
  if (list.length === 0) {
    throw new ConfigurationError('authenticators', 'must name at least one authenticator');
  }
  for (const candidate of list) {
    if (
      typeof candidate !== 'object' ||
      candidate === null ||
      typeof (candidate as Partial<Authenticator>).getUser !== 'function'
    ) {
      throw new ConfigurationError('authenticators', 'must be Authenticators (with getUser)');
    }
  }
  return new AnyOfAuthenticator([...(list as Authenticator[])], options?.events);
}

const ANONYMOUS = Outcome.anonymous();

class AnyOfAuthenticator implements Authenticator {
  readonly #authenticators: readonly Authenticator[];
  readonly #events: SecurityEvents | undefined;
  readonly #warned = new Set<number>();

  constructor(authenticators: readonly Authenticator[], events: SecurityEvents | undefined) {
    this.#authenticators = authenticators;
    this.#events = events;
  }

  /** Checks every authenticator it asks (see {@link Authenticator.assertConfigured}). */
  assertConfigured(): void {
    for (const authenticator of this.#authenticators) assertAuthenticatorConfigured(authenticator);
  }

  getUser(request: SecurityRequest): User | null | Promise<User | null> {
    return this.#first(request, (authenticator) => authenticator.getUser(request), 0, undefined);
  }

  authenticate(
    request: SecurityRequest,
  ): AuthenticatedUser | null | Promise<AuthenticatedUser | null> {
    return userOfAttempt(this.attempt(request));
  }

  /**
   * The first `authenticated` outcome; without one, a refusal of any authenticator
   * (a session cookie failing the CSRF checks stays a 403), else the last refused
   * credential (its challenge), else anonymous.
   */
  attempt(request: SecurityRequest): AuthenticationOutcome | Promise<AuthenticationOutcome> {
    return this.#first(
      request,
      (authenticator) => attemptWith(authenticator, request),
      0,
      undefined,
      { best: ANONYMOUS },
    ) as AuthenticationOutcome | Promise<AuthenticationOutcome>;
  }

  /**
   * Asks the authenticators from `start` on. Synchronous as long as they answer
   * synchronously (a verified-token cache hit, say): no promise, no deadline timer
   * on the hot path; the first promise makes the rest asynchronous. With `outcomes`,
   * the answers are outcomes: the first `authenticated` one wins and the others are
   * ranked in `outcomes.best`.
   */
  #first<T>(
    request: SecurityRequest,
    ask: (authenticator: Authenticator) => T | null | PromiseLike<T | null>,
    start: number,
    unavailable: UnavailableError | undefined,
    outcomes?: { best: AuthenticationOutcome },
  ): T | null | Promise<T | null> {
    const authenticators = this.#authenticators;
    const found = (value: T | null | undefined): boolean => {
      if (value === null || value === undefined) return false;
      if (outcomes === undefined) return true;
      const outcome = value as unknown as AuthenticationOutcome;
      if (outcome.kind === 'authenticated') return true;
      if (
        outcome.kind === 'refused' ||
        (outcome.kind === 'failed' && outcomes.best.kind !== 'refused')
      ) {
        outcomes.best = outcome;
      }
      return false;
    };
    for (let index = start; index < authenticators.length; index++) {
      const authenticator = authenticators[index] as Authenticator;
      let answer: T | null | PromiseLike<T | null>;
      try {
        answer = ask(authenticator);
      } catch (error) {
        unavailable = this.#failed(index, authenticator, error, request, unavailable);
        continue;
      }
      if (isPromiseLike(answer)) {
        return Promise.resolve(answer).then(
          (value) =>
            found(value) ? value : this.#first(request, ask, index + 1, unavailable, outcomes),
          (error: unknown) =>
            this.#first(
              request,
              ask,
              index + 1,
              this.#failed(index, authenticator, error, request, unavailable),
              outcomes,
            ),
        );
      }
      if (found(answer)) return answer;
    }
    if (unavailable !== undefined) throw unavailable;
    return outcomes === undefined ? null : (outcomes.best as T);
  }

  /**
   * An authenticator threw or rejected: an {@link UnavailableError} is kept (rethrown
   * when no other authenticator finds a user: a credential that could not be checked
   * is not "no credential"), anything else is reported and counts as no user.
   */
  #failed(
    index: number,
    authenticator: Authenticator,
    error: unknown,
    request: SecurityRequest,
    unavailable: UnavailableError | undefined,
  ): UnavailableError | undefined {
    if (error instanceof UnavailableError) return unavailable ?? error;
    this.#report(index, authenticator, error, request);
    return unavailable;
  }

  #report(
    index: number,
    authenticator: Authenticator,
    error: unknown,
    request: SecurityRequest,
  ): void {
    const method = authenticator.authenticationMethod ?? 'custom';
    publishAuthentication(
      this.#events,
      { ok: false, username: undefined, reason: 'other' },
      method,
      request,
    );
    if (this.#warned.has(index)) return;
    this.#warned.add(index);
    const name = error instanceof Error ? error.name : typeof error;
    process.emitWarning(
      `portcullis: authenticator #${index} (${method}) failed (${name}); treated as no user`,
      { code: 'PORTCULLIS_AUTHENTICATION' },
    );
  }
}
