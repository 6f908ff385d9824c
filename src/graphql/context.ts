import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import { userOf } from '../core/outcome.js';
import { assertAuthenticatorConfigured, type Authenticator } from '../core/security.js';
import {
  authenticateContext,
  resolveContextAuthentication,
} from '../http/context-authentication.js';
import { CONTEXT_REQUEST } from '../http/context-request.js';
import { findRequest, isWebSocketUpgrade, viewOf } from '../http/find-request.js';
import { readConnectionParams, type NodeRequestLike } from '../http/request-views.js';
import { CHALLENGE, challengeOf, requireChallenges } from './challenge.js';
import { unavailableError } from './unavailable.js';

/** Options of {@link createGraphQLContext}. */
export interface GraphQLContextOptions {
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
 * The part of the GraphQL context {@link createGraphQLContext} fills: the user the
 * directives read. A type literal, not an interface, so that it fits context types
 * declared as `Record<PropertyKey, unknown>` (graphql-http's `OperationContext`).
 */
export type GraphQLUserContext = {
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

/** The function {@link createGraphQLContext} returns. */
export type GraphQLContextFactory = (input: GraphQLContextInput) => Promise<GraphQLUserContext>;

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
 * const security = createGraphQLContext({ authenticator });
 * // graphql-http:  context: (req) => security(req)
 * // GraphQL Yoga:  context: (initial) => security(initial)
 * // Apollo Server: context: async ({ req }) => ({ ...(await security(req)), db })
 * ```
 */
export function createGraphQLContext(options: GraphQLContextOptions): GraphQLContextFactory {
  const settings = resolveContextAuthentication('createGraphQLContext', options, ['challenges']);
  const challenges = requireChallenges(options.challenges ?? []);
  assertAuthenticatorConfigured(settings.authenticator);
  return async (input) => {
    const found = findRequest(input, { holders: true });
    if (!found) {
      throw new ConfigurationError(
        'createGraphQLContext',
        'found no request: pass the node request, the Fetch Request, or the object holding it as req, raw or request',
      );
    }
    // graphql-ws: the upgrade request, and the credential in connectionParams.
    const wsContext = found.kind === 'node' && found.params !== undefined;
    const request = viewOf(
      found,
      wsContext ? readConnectionParams(settings.names, found.params, true) : undefined,
    );
    // A graphql-ws operation is authenticated each time (its connection outlives a
    // session); a deadline passed or a store down is SERVICE_UNAVAILABLE (503).
    const authentication = await authenticateContext(
      settings,
      request,
      wsContext || isWebSocketUpgrade(found),
      unavailableError,
    );
    return {
      user: userOf(authentication),
      [CHALLENGE]: challengeOf(challenges, authentication),
      [CONTEXT_REQUEST]: request,
    };
  };
}
