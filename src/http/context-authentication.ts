import { DEFAULT_DEADLINES, requireDeadline } from '../core/deadline.js';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import type { AuthenticationOutcome } from '../core/outcome.js';
import type { SecurityRequest } from '../core/request.js';
import { authenticateWithin, type Authenticator } from '../core/security.js';
import { rejectUnknownOptions, requireNames } from '../core/validate.js';
import { isPromiseLike } from '../lib/promise.js';
import { recordedAuthentication } from './authentication-record.js';

/**
 * The options every context factory (tRPC's `createTrpcContext`, GraphQL's
 * `createGraphQLContext`) takes to authenticate the request: each adapter's options
 * type declares them again with its own documentation.
 *
 * @internal
 */
export interface ContextAuthenticationOptions {
  readonly authenticator: Authenticator;
  readonly connectionParams?: readonly string[] | false;
  readonly events?: SecurityEvents;
  readonly authenticationTimeoutMs?: number;
}

/** {@link ContextAuthenticationOptions}, validated, with their defaults. @internal */
export interface ContextAuthentication {
  readonly authenticator: Authenticator;
  /** The `connectionParams` read as headers (none for `false`). */
  readonly names: readonly string[];
  readonly events: SecurityEvents;
  readonly authenticationTimeoutMs: number;
}

const SHARED = ['authenticator', 'connectionParams', 'events', 'authenticationTimeoutMs'];

/**
 * Validates the options of a context factory: unknown names (besides the shared ones
 * and the factory's `own`) are refused with a "did you mean" naming `owner`, then
 * the shared options are checked and completed with their defaults.
 *
 * @throws ConfigurationError naming the first bad option
 * @internal
 */
export function resolveContextAuthentication(
  owner: string,
  options: ContextAuthenticationOptions,
  own: readonly string[],
): ContextAuthentication {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object with an authenticator');
  }
  rejectUnknownOptions(owner, options, [...SHARED, ...own]);
  const {
    authenticator,
    connectionParams = ['authorization'],
    events = securityEvents,
    authenticationTimeoutMs = DEFAULT_DEADLINES.authenticationMs,
  } = options;
  if (typeof (authenticator as Partial<Authenticator> | null)?.getUser !== 'function') {
    throw new ConfigurationError('authenticator', 'must be an Authenticator');
  }
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  const names =
    connectionParams === false
      ? []
      : Object.freeze(requireNames('connectionParams', connectionParams));
  return {
    authenticator,
    names,
    events,
    authenticationTimeoutMs: requireDeadline('authenticationTimeoutMs', authenticationTimeoutMs),
  };
}

/**
 * The authentication outcome of a context's request: the one the pipeline recorded
 * with the same authenticator (behind `withSecurity` / `security` / the Fastify
 * plugin), unless `fresh` (a WebSocket, whose connection outlives a session, or a
 * view that reads connection parameters as headers); else the authenticator's,
 * within the deadline. A bad or missing credential is an anonymous outcome, never an
 * error; an authenticator that throws counts as a failed authentication.
 *
 * Synchronous when the authenticator answers synchronously (a cached token).
 *
 * @throws (or rejects with) the adapter's error `unavailable` makes of an
 * `UnavailableError` (a deadline passed, a store is down): the request fails closed,
 * never anonymous
 * @internal
 */
export function authenticateContext(
  settings: ContextAuthentication,
  request: SecurityRequest,
  fresh: boolean,
  unavailable: (error: UnavailableError) => Error,
): AuthenticationOutcome | Promise<AuthenticationOutcome> {
  const { authenticator, authenticationTimeoutMs, events } = settings;
  const failed = (error: unknown): never => {
    if (error instanceof UnavailableError) throw unavailable(error);
    throw error;
  };
  let outcome: AuthenticationOutcome | Promise<AuthenticationOutcome>;
  try {
    outcome =
      (fresh ? undefined : recordedAuthentication(request, authenticator)) ??
      authenticateWithin(authenticator, request, authenticationTimeoutMs, events);
  } catch (error) {
    return failed(error);
  }
  // A synchronous answer (a cached token) stays synchronous: no promise to wait for.
  return isPromiseLike(outcome) ? Promise.resolve(outcome).then(undefined, failed) : outcome;
}
