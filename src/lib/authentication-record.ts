import type { AuthenticationOutcome } from '../core/outcome.js';
import type { SecurityRequest } from '../core/request.js';

/**
 * The request each view was made of (a node request or a Fetch `Request`). Module
 * private: nothing a client sends, and no property another library sets on the
 * request (`req.user`), can make a request look authenticated.
 */
const sources = new WeakMap<SecurityRequest, object>();

interface Recorded {
  readonly authenticator: object;
  readonly outcome: AuthenticationOutcome;
}

/** The outcome the pipeline reached for each request, with the authenticator that reached it. */
const records = new WeakMap<object, Recorded>();

/**
 * Records that `view` is the view of `source`, so an outcome recorded through one
 * view of a request is found through another. Only views made of the request alone
 * are linked: one that reads other values as headers (connection parameters) may
 * carry a credential the request does not.
 *
 * @internal
 */
export function linkSource(view: SecurityRequest, source: object): void {
  sources.set(view, source);
}

/**
 * Records the outcome `authenticator` reached for the request behind `view`, once the
 * pipeline let it through, so the context factories downstream do not authenticate
 * the same request again.
 *
 * @internal
 */
export function recordAuthentication(
  view: SecurityRequest,
  authenticator: object,
  outcome: AuthenticationOutcome,
): void {
  const source = sources.get(view);
  if (source !== undefined) records.set(source, { authenticator, outcome });
}

/**
 * The outcome the pipeline recorded for the request behind `view`, when the same
 * `authenticator` reached it; else `undefined` (authenticate it).
 *
 * @internal
 */
export function recordedAuthentication(
  view: SecurityRequest,
  authenticator: object,
): AuthenticationOutcome | undefined {
  const source = sources.get(view);
  const recorded = source === undefined ? undefined : records.get(source);
  return recorded?.authenticator === authenticator ? recorded.outcome : undefined;
}
