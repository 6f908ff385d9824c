/**
 * The key under which `createGraphQLContext` leaves the request's `WWW-Authenticate`
 * value on the GraphQL context (a symbol: not part of the context's type, kept by
 * object spread).
 *
 * @internal
 */
export const CHALLENGE: unique symbol = Symbol('portcullis.graphql.challenge');

/** The challenge `createGraphQLContext` left on a context, if any. @internal */
export function contextChallenge(context: unknown): string | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const value = (context as { [CHALLENGE]?: unknown })[CHALLENGE];
  return typeof value === 'string' ? value : undefined;
}

export { challengeHeaders, type ChallengeHeaders } from '../http/challenge-headers.js';
export { challengeOf, requireChallenges } from '../authorization/challenges.js';
