import { requireChallenge, withError } from '../authorization/challenges.js';
import { credentialFailureOf } from '../core/credential-failure.js';
import { ConfigurationError } from '../core/errors.js';
import type { SecurityRequest } from '../core/request.js';

/**
 * The key under which `createSecurityContext` leaves the request's `WWW-Authenticate`
 * value on the GraphQL context (a symbol: not part of the context's type, kept by
 * object spread).
 *
 * @internal
 */
export const CHALLENGE: unique symbol = Symbol('portcullis.graphql.challenge');

/** Validates the `challenges` option. @internal */
export function requireChallenges(value: unknown): readonly string[] {
  if (!Array.isArray(value)) {
    throw new ConfigurationError('challenges', 'must be an array of WWW-Authenticate challenges');
  }
  return Object.freeze(value.map((challenge) => requireChallenge(challenge)));
}

/**
 * The `WWW-Authenticate` value of a request's 401: the configured challenges, the one
 * of the refused credential's scheme carrying its RFC 6750 error, added when none has
 * that scheme; `undefined` when there is nothing to say.
 *
 * @internal
 */
export function challengeOf(
  configured: readonly string[],
  request: SecurityRequest,
): string | undefined {
  const failure = credentialFailureOf(request);
  if (!failure) return configured.length === 0 ? undefined : configured.join(', ');
  const scheme = failure.scheme.toLowerCase();
  const matches = (challenge: string) => challenge.split(' ', 1)[0]?.toLowerCase() === scheme;
  const values = configured.map((c) => (matches(c) ? withError(c, failure) : c));
  if (!configured.some(matches)) values.push(withError(failure.scheme, failure));
  return values.join(', ');
}

/** The challenge `createSecurityContext` left on a context, if any. @internal */
export function contextChallenge(context: unknown): string | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const value = (context as { [CHALLENGE]?: unknown })[CHALLENGE];
  return typeof value === 'string' ? value : undefined;
}

/**
 * `extensions.http.headers` holding `WWW-Authenticate`, in the two shapes servers
 * read: a `Map` (Apollo Server merges only a `Map`) that also has the header as an
 * own property (GraphQL Yoga copies properties with `Object.assign`; JSON shows it).
 *
 * @internal
 */
export function challengeHeaders(challenge: string): ChallengeHeaders {
  const headers = new Map([['www-authenticate', challenge]]);
  Object.defineProperty(headers, 'www-authenticate', { value: challenge, enumerable: true });
  return headers as unknown as ChallengeHeaders;
}

/** A `Map` of headers that also holds each as a property. @internal */
export type ChallengeHeaders = Map<string, string> & Readonly<Record<string, string>>;
