/**
 * `extensions.http.headers` of a GraphQL error (`WWW-Authenticate`, `Retry-After`), in
 * the two shapes servers read: a `Map` (Apollo Server merges only a `Map`) that also
 * has each header as an own property (GraphQL Yoga copies properties with
 * `Object.assign`; JSON shows them).
 *
 * @internal
 */
export function headerMap(headers: Readonly<Record<string, string>>): ChallengeHeaders {
  const map = new Map(Object.entries(headers));
  for (const [name, value] of map) {
    Object.defineProperty(map, name, { value, enumerable: true });
  }
  return map as unknown as ChallengeHeaders;
}

/** {@link headerMap} of one `WWW-Authenticate` challenge. @internal */
export function challengeHeaders(challenge: string): ChallengeHeaders {
  return headerMap({ 'www-authenticate': challenge });
}

/** A `Map` of headers that also holds each as a property. @internal */
export type ChallengeHeaders = Map<string, string> & Readonly<Record<string, string>>;
