import type { AuthenticationOutcome } from '../core/outcome.js';
import { REQUEST_SOURCE, type SecurityRequest } from '../core/request.js';

/**
 * The request each view was made of (a node request or a Fetch `Request`) is held by
 * the view itself (`REQUEST_SOURCE`, set by its constructor), and the outcome the
 * pipeline reached for a request under a module-private symbol on the request:
 * nothing a client sends, and no property another library sets on the request
 * (`req.user`), can make a request look authenticated. Not in WeakMaps: every request
 * would add two ephemerons, which the garbage collector pays for (about 2 µs a
 * request, measured), on every request of the server.
 */
const RECORD: unique symbol = Symbol('portcullis.authentication');

interface Recorded {
  readonly authenticator: object;
  readonly outcome: AuthenticationOutcome;
}

type Linked = SecurityRequest & { [REQUEST_SOURCE]?: object };
type Holding = object & { [RECORD]?: Recorded };

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
  const source = (view as Linked)[REQUEST_SOURCE];
  // A request that cannot take the record (frozen by someone) is simply authenticated again.
  if (source !== undefined && Object.isExtensible(source)) {
    Object.defineProperty(source, RECORD, {
      value: { authenticator, outcome },
      configurable: true,
    });
  }
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
  const source = (view as Linked)[REQUEST_SOURCE];
  const recorded = source === undefined ? undefined : (source as Holding)[RECORD];
  return recorded?.authenticator === authenticator ? recorded.outcome : undefined;
}
