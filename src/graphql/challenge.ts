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

export { challengeOf, requireChallenges } from '../authorization/challenges.js';
