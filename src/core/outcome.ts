import type { AuthenticatedUser } from './authenticated-user.js';
import type { AuthenticationFailureReason } from './events.js';
import { isPromiseLike } from '../lib/promise.js';

/**
 * What a refused credential lets the 401 say in its challenge (RFC 6750 §3:
 * `Bearer error="invalid_token"`). Never contains the credential.
 */
export interface CredentialChallenge {
  /** The auth-scheme of the challenge to extend, e.g. `Bearer`. */
  readonly scheme: string;
  /** The RFC 6750 error code. */
  readonly error: 'invalid_request' | 'invalid_token';
  /** A fixed, human-readable description (no part of the credential). */
  readonly description: string;
}

/**
 * What one authentication attempt of a request came to. An authenticator answers
 * exactly one of four:
 *
 * - `authenticated`: the request carries a valid credential; `user` is who it is.
 * - `anonymous`: the request carries no credential this authenticator reads.
 * - `failed`: it carries a credential that was refused (a wrong password, a bad
 *   token, a locked account). `reason` is the event's reason; `challenge`, when
 *   present, is what the 401's `WWW-Authenticate` may say. The request continues as
 *   anonymous: a rule that needs a user answers 401.
 * - `refused`: the request must not go on even anonymously, for a reason that is not
 *   a bad credential (a cookie-authenticated request failing the CSRF checks): 403.
 *
 * A credential that could not be checked (a store down, a deadline passed) is none
 * of these: the authenticator throws an `UnavailableError` and the request fails
 * closed with 503.
 */
export type AuthenticationOutcome =
  | { readonly kind: 'authenticated'; readonly user: AuthenticatedUser }
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'failed';
      readonly reason: AuthenticationFailureReason;
      /** The username the credential named, when it named one (for events; never sent). */
      readonly username?: string | undefined;
      readonly challenge?: CredentialChallenge | undefined;
    }
  | {
      readonly kind: 'refused';
      readonly status: 403;
      /** e.g. `csrf`. */
      readonly reason: string;
    };

/** The `failed` outcome. */
export type CredentialFailureOutcome = Extract<AuthenticationOutcome, { kind: 'failed' }>;

/** The `refused` outcome. */
export type RefusalOutcome = Extract<AuthenticationOutcome, { kind: 'refused' }>;

const ANONYMOUS: AuthenticationOutcome = Object.freeze({ kind: 'anonymous' });

/**
 * Builders of {@link AuthenticationOutcome}s, for custom authenticators.
 *
 * @example
 * ```ts
 * const apiKeys: Authenticator = {
 *   authenticationMethod: 'api-key',
 *   getUser: () => null,
 *   attempt(request) {
 *     const key = request.header('x-api-key');
 *     if (key === undefined) return Outcome.anonymous();
 *     const user = keys.get(key);
 *     return user ? Outcome.authenticated(AuthenticatedUser.from(user)) : Outcome.failed('bad-credentials');
 *   },
 * };
 * ```
 */
export const Outcome = Object.freeze({
  /** The request is `user`'s. */
  authenticated(user: AuthenticatedUser): AuthenticationOutcome {
    return Object.freeze({ kind: 'authenticated', user });
  },
  /** The request carries no credential this authenticator reads. */
  anonymous(): AuthenticationOutcome {
    return ANONYMOUS;
  },
  /** The request's credential was refused. */
  failed(
    reason: AuthenticationFailureReason,
    details: { readonly username?: string; readonly challenge?: CredentialChallenge } = {},
  ): CredentialFailureOutcome {
    return Object.freeze({
      kind: 'failed',
      reason,
      username: details.username,
      challenge:
        details.challenge === undefined ? undefined : Object.freeze({ ...details.challenge }),
    });
  },
  /** The request is refused outright (403), e.g. `csrf`. */
  refused(reason: string): RefusalOutcome {
    return Object.freeze({ kind: 'refused', status: 403, reason });
  },
});

/** The user of an outcome, or `null` unless it is `authenticated`. */
export function userOf(outcome: AuthenticationOutcome): AuthenticatedUser | null {
  return outcome.kind === 'authenticated' ? outcome.user : null;
}

/**
 * {@link userOf} of an outcome that may still be on its way: synchronous when the
 * outcome is. What an authenticator's `authenticate` answers from its `attempt`.
 *
 * @internal
 */
export function userOfAttempt(
  outcome: AuthenticationOutcome | Promise<AuthenticationOutcome>,
): AuthenticatedUser | null | Promise<AuthenticatedUser | null> {
  return isPromiseLike(outcome) ? outcome.then(userOf) : userOf(outcome);
}

/** Options of {@link CredentialsAuthenticator.attemptCredentials}. */
export interface AttemptCredentialsOptions {
  /** The request the credentials came with, summarized in the events. */
  readonly request?: import('./request.js').SecurityRequest;
  /**
   * The method name in the events and on the user, e.g. `form`, `password`.
   * @defaultValue `'password'`
   */
  readonly authenticationMethod?: string;
}

/**
 * Checks a username and password that came from elsewhere than an `Authorization`
 * header (a login form, a JSON body), with every protection of the authenticator
 * (dummy hash for unknown users, bounded hashing, cache, account state, events).
 * Never rejects for anything the client sent; rejects with an `UnavailableError`
 * when the credential could not be checked (the repository is down, a deadline passed).
 */
export interface CredentialsAuthenticator {
  attemptCredentials(
    username: unknown,
    password: unknown,
    options?: AttemptCredentialsOptions,
  ): Promise<AuthenticationOutcome>;
}
