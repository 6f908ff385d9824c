import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { DEFAULT_DEADLINES, requireDeadline } from '../core/deadline.js';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import { userOf, type AuthenticationOutcome } from '../core/outcome.js';
import {
  assertAuthenticatorConfigured,
  authenticateWithin,
  type Authenticator,
} from '../core/security.js';
import { CONTEXT_REQUEST } from '../http/context-request.js';
import { recordedAuthentication } from '../http/authentication-record.js';
import { findRequest, isWebSocketUpgrade, viewOf } from '../http/find-request.js';
import { readConnectionParams, type NodeRequestLike } from '../http/request-views.js';
import { rejectUnknownOptions, requireNames } from '../core/validate.js';
import { CHALLENGE, challengeOf, requireChallenges } from './challenge.js';
import { unavailableError } from './unavailable.js';

/** Options of {@link createSecurityContext}. */
export interface SecurityContextOptions {
  /** Who the caller is: HTTP Basic, JWT, sessions, or any {@link Authenticator}. */
  readonly authenticator: Authenticator;
  /**
   * The `connectionParams` a graphql-ws client may send its credential in (browsers
   * cannot set headers on a WebSocket): each named parameter is read as the header
   * of the same name (lower-cased) when the upgrade request has no such header.
   * Only WebSocket contexts (graphql-ws's `{ extra: { request }, connectionParams }`)
   * read them. `false` reads none.
   * @defaultValue `['authorization']`
   */
  readonly connectionParams?: readonly string[] | false;
  /**
   * Where an `authentication-failure` event goes when the authenticator throws.
   * @defaultValue `securityEvents`
   */
  readonly events?: SecurityEvents;
  /**
   * The `WWW-Authenticate` challenges of an `UNAUTHENTICATED` denial (RFC 9110
   * §11.6.1), e.g. `['Bearer realm="api"']`, as the HTTP edge's `challenges` /
   * `bearer()`. A refused bearer token adds its RFC 6750 error
   * (`error="invalid_token"`). The denial carries them in `extensions.http.headers`,
   * which GraphQL Yoga and Apollo Server send as the response's header.
   * @defaultValue `[]`: a challenge only for a refused credential
   */
  readonly challenges?: readonly string[];
  /**
   * How long the authentication of one request may take, in milliseconds (1 to
   * 600,000). Past it the request fails closed: `extensions.code` `SERVICE_UNAVAILABLE` (HTTP 503), a `deadline-exceeded`
   * event, never an anonymous user.
   * @defaultValue `10_000`
   */
  readonly authenticationTimeoutMs?: number;
}

/**
 * The part of the GraphQL context {@link createSecurityContext} fills. A type
 * literal, not an interface, so that it fits context types declared as
 * `Record<PropertyKey, unknown>` (graphql-http's `OperationContext`).
 */
export type GraphQLSecurityContext = {
  /** The authenticated user, or `null` for an anonymous request. */
  readonly user: AuthenticatedUser | null;
};

/**
 * What the context factories of GraphQL servers receive, as far as portcullis
 * reads it: a node request, a Fetch `Request`, or an object holding one as `req`
 * (Apollo Server, Express), `raw` (graphql-http) or `request` (GraphQL Yoga), or
 * graphql-ws's context (`extra.request` and `connectionParams`).
 */
export type GraphQLContextInput =
  | NodeRequestLike
  | Request
  | {
      readonly req?: unknown;
      readonly raw?: unknown;
      readonly request?: unknown;
      readonly extra?: unknown;
      readonly connectionParams?: unknown;
    };

/** The function {@link createSecurityContext} returns. */
export type GraphQLSecurityContextFactory = (
  input: GraphQLContextInput,
) => Promise<GraphQLSecurityContext>;

const KNOWN = [
  'authenticator',
  'connectionParams',
  'events',
  'challenges',
  'authenticationTimeoutMs',
];

/**
 * Builds the GraphQL context's `user` (an `AuthenticatedUser`, or `null`) from an
 * {@link Authenticator}, once per request, for the directives to read. A bad or
 * missing credential gives `user: null` (protected fields answer
 * `UNAUTHENTICATED`), never an error; an authenticator that throws counts as a
 * failed authentication (an `authentication-failure` event).
 *
 * @throws ConfigurationError for invalid options; the returned function throws one
 * when it finds no request in what it is given
 *
 * @example
 * ```ts
 * const security = createSecurityContext({ authenticator });
 * // graphql-http:  context: (req) => security(req)
 * // GraphQL Yoga:  context: (initial) => security(initial)
 * // Apollo Server: context: async ({ req }) => ({ ...(await security(req)), db })
 * ```
 */
export function createSecurityContext(
  options: SecurityContextOptions,
): GraphQLSecurityContextFactory {
  const { authenticator, names, events, challenges, authenticationTimeoutMs } = resolve(options);
  assertAuthenticatorConfigured(authenticator);
  return async (input) => {
    const found = findRequest(input, { holders: true });
    if (!found) {
      throw new ConfigurationError(
        'createSecurityContext',
        'found no request: pass the node request, the Fetch Request, or the object holding it as req, raw or request',
      );
    }
    // graphql-ws: the upgrade request, and the credential in connectionParams.
    const wsContext = found.kind === 'node' && found.params !== undefined;
    const request = viewOf(
      found,
      wsContext ? readConnectionParams(names, found.params, true) : undefined,
    );
    let authentication: AuthenticationOutcome;
    try {
      // Behind withSecurity / secure / the Fastify plugin, the pipeline's outcome; a
      // graphql-ws operation is authenticated each time (its connection outlives a session).
      authentication =
        (wsContext || isWebSocketUpgrade(found)
          ? undefined
          : recordedAuthentication(request, authenticator)) ??
        (await authenticateWithin(authenticator, request, authenticationTimeoutMs, events));
    } catch (error) {
      // A deadline passed or a store is down: SERVICE_UNAVAILABLE (503), never anonymous.
      if (error instanceof UnavailableError) throw unavailableError(error);
      throw error;
    }
    return {
      user: userOf(authentication),
      [CHALLENGE]: challengeOf(challenges, authentication),
      [CONTEXT_REQUEST]: request,
    };
  };
}

interface Resolved {
  readonly authenticator: Authenticator;
  readonly names: readonly string[];
  readonly events: SecurityEvents;
  readonly challenges: readonly string[];
  readonly authenticationTimeoutMs: number;
}

function resolve(options: SecurityContextOptions): Resolved {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object with an authenticator');
  }
  rejectUnknownOptions('createSecurityContext', options, KNOWN);
  const {
    authenticator,
    connectionParams = ['authorization'],
    events = securityEvents,
    challenges = [],
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
    challenges: requireChallenges(challenges),
    authenticationTimeoutMs: requireDeadline('authenticationTimeoutMs', authenticationTimeoutMs),
  };
}
