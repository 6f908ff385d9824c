import type { AnyTRPCRouter } from '@trpc/server';
import { ConfigurationError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import { userOf } from '../core/outcome.js';
import { isPromiseLike } from '../lib/promise.js';
import { assertAuthenticatorConfigured, type Authenticator } from '../core/security.js';
import {
  authenticateContext,
  resolveContextAuthentication,
  type ContextAuthentication,
} from '../http/context-authentication.js';
import { CONTEXT_REQUEST } from '../http/context-request.js';
import { isWebSocketUpgrade, viewOf } from '../http/find-request.js';
import { readConnectionParams } from '../http/request-views.js';
import { assertSecured, isSecuredProcedure } from './assert-secured.js';
import { CHALLENGE, challengeOf, requireChallenges } from './challenge.js';
import { denial, unavailable } from './guard-middleware.js';
import { DENY_ALL, type Rule } from './rule.js';
import { findContextRequest } from './request.js';
import type { UserContext } from './types.js';
import type { ContextOptionsLike } from './request.js';

/** Options of {@link createTrpcContext}. */
export interface TrpcContextOptions {
  /** Who the caller is: HTTP Basic, JWT, sessions, or any {@link Authenticator}. */
  readonly authenticator: Authenticator;
  /**
   * The `connectionParams` a WebSocket client may send its credential in (browsers
   * cannot set headers on a WebSocket): each named parameter is read as the header
   * of the same name (lower-cased) when the upgrade request has no such header.
   * `false` reads none.
   * @defaultValue `['authorization']`
   */
  readonly connectionParams?: readonly string[] | false;
  /**
   * Also read `connectionParams` on plain HTTP requests (`httpSubscriptionLink`
   * sends them in the URL's query string, where proxies and access logs record
   * them). Prefer cookies or headers for SSE.
   * @defaultValue `false`: only WebSocket connections
   */
  readonly dangerouslyAllowConnectionParamsOverHttp?: boolean;
  /**
   * Where an `authentication-failure` event goes when the authenticator throws, and
   * the `access-denied` event of a call refused because its procedure is unguarded.
   * @defaultValue `securityEvents`
   */
  readonly events?: SecurityEvents;
  /**
   * The router served: checked now, at start-up, with {@link assertSecured} (every
   * procedure guarded or annotated, every rule valid), so a forgotten guard fails the
   * start. Without it, each call is still checked when it arrives (see
   * {@link TrpcContextOptions.dangerouslyAllowUnguardedProcedures}).
   */
  readonly router?: AnyTRPCRouter;
  /**
   * The `WWW-Authenticate` challenges of an `UNAUTHORIZED` answer (RFC 9110 §11.6.1),
   * e.g. `['Bearer realm="api"']`, as the HTTP edge's `challenges` / `bearer()`. A
   * refused bearer token adds its RFC 6750 error (`error="invalid_token"`). Sent by
   * {@link securityResponseMeta}.
   * @defaultValue `[]`: a challenge only for a refused credential
   */
  readonly challenges?: readonly string[];
  /**
   * Serve procedures that carry no portcullis guard and do not run `securityMeta()`.
   * By default such a call is refused before any procedure of the request runs
   * (`UNAUTHORIZED` when anonymous, else `FORBIDDEN`, with an `access-denied` event),
   * so a forgotten guard never leaves a procedure public: mark public procedures
   * with `permitAll()` instead. A context made without tRPC's `info` (a
   * `createContext` that passes only `{ req }` on), a WebSocket context (made once per
   * connection, before any call) and a tRPC 11 release older than
   * `info.calls[].procedure` name no procedure: without `router` (checked at
   * start-up) such a request is refused whole, so pass `router`, or `opts` whole.
   * @defaultValue `false`
   */
  readonly dangerouslyAllowUnguardedProcedures?: boolean;
  /**
   * How long the authentication of one request may take, in milliseconds (1 to
   * 600,000). Past it the request fails closed: `SERVICE_UNAVAILABLE` (HTTP 503), a `deadline-exceeded`
   * event, never an anonymous user.
   * @defaultValue `10_000`
   */
  readonly authenticationTimeoutMs?: number;
}

/** The function {@link createTrpcContext} returns: `createContext` or part of it. */
export type TrpcContextFactory = (opts: ContextOptionsLike) => Promise<UserContext>;

/** The options of tRPC's context besides those every context factory takes. */
const OWN = [
  'dangerouslyAllowConnectionParamsOverHttp',
  'router',
  'challenges',
  'dangerouslyAllowUnguardedProcedures',
];

/** The rule of a call whose procedure has no guard. */
const UNGUARDED: Rule = Object.freeze({
  ...DENY_ALL,
  description: 'denyAll() (procedure without a guard)',
});

/** The rule of a request whose procedures cannot be told (a WebSocket, an older tRPC 11). */
const UNCHECKABLE: Rule = Object.freeze({
  ...DENY_ALL,
  description:
    'denyAll() (the procedures of this request cannot be checked: pass router to createTrpcContext)',
});

/**
 * Builds the tRPC context's `user` (an `AuthenticatedUser`, or `null`) from an
 * {@link Authenticator}. Use it as `createContext`, or inside yours, with the
 * standalone / node `http`, Express, Fastify, Fetch and WebSocket adapters. A bad or
 * missing credential gives `user: null` (the guards answer `UNAUTHORIZED`), never an
 * error; an authenticator that throws counts as a failed authentication (an
 * `authentication-failure` event with reason `other`).
 *
 * The guards fill the `SecurityContext` for each procedure call.
 *
 * Deny by default: a call of a procedure with no portcullis guard (and no
 * `securityMeta()`) is refused here, before any procedure runs; with `router`, such
 * a procedure fails the start instead ({@link assertSecured}).
 *
 * @throws ConfigurationError for invalid options, or (with `router`) when a procedure
 * is not secured
 *
 * @example
 * ```ts
 * import { createHTTPServer } from '@trpc/server/adapters/standalone';
 * import { createTrpcContext } from 'portcullis/trpc';
 *
 * const trpcContext = createTrpcContext({ authenticator, router: appRouter });
 * createHTTPServer({
 *   router: appRouter,
 *   createContext: async (opts) => ({ ...(await trpcContext(opts)), db }),
 *   responseMeta: securityResponseMeta(), // WWW-Authenticate on 401
 * }).listen(3000);
 * ```
 */
export function createTrpcContext(options: TrpcContextOptions): TrpcContextFactory {
  const settings = resolve(options);
  const { authenticator, names, events, anyTransport, challenges, allowUnguarded } = settings;
  assertAuthenticatorConfigured(authenticator);
  const checkedAtStart = options.router !== undefined;
  if (options.router !== undefined) assertSecured(options.router);
  const guard = { debug: false, events, securityContext: false };
  return async (opts) => {
    const found = findContextRequest(opts.req);
    const upgrade = isWebSocketUpgrade(found);
    // Connection parameters are read on a WebSocket only, unless the application opted in.
    const params =
      names.length === 0 || !(anyTransport || upgrade)
        ? EMPTY
        : readConnectionParams(names, opts.info, true);
    const request = viewOf(found, params);
    // A deadline passed or a store is down: SERVICE_UNAVAILABLE (503), never anonymous.
    // A synchronous outcome (a cached token) is not awaited: one promise less per request.
    const pending = authenticateContext(settings, request, upgrade, unavailable);
    const authentication = isPromiseLike(pending) ? await pending : pending;
    const user = userOf(authentication);
    const challenge = challengeOf(challenges, authentication);
    const ctx = {
      user,
      [CHALLENGE]: challenge,
      [CONTEXT_REQUEST]: request,
    };
    if (!allowUnguarded && !checkedAtStart) {
      // `info` is what tRPC passes to createContext: a caller that drops it (calling
      // the factory with `{ req }` only), a WebSocket context (made before any call)
      // and a tRPC 11 release without `info.calls[].procedure` name no procedure, so
      // nothing is served until `router` has been checked at start-up.
      const calls = opts.info?.calls;
      if (calls === undefined || upgrade) {
        throw denial(UNCHECKABLE, guard, { ctx, path: '', input: undefined }, user);
      }
      for (const call of calls) {
        if (!('procedure' in call)) {
          throw denial(UNCHECKABLE, guard, { ctx, path: call.path, input: undefined }, user);
        }
        // `procedure` is null for an unknown path (tRPC answers NOT_FOUND itself).
        if (call.procedure != null && !isSecuredProcedure(call.procedure)) {
          throw denial(UNGUARDED, guard, { ctx, path: call.path, input: undefined }, user);
        }
      }
    }
    return ctx;
  };
}

const EMPTY: ReadonlyMap<string, string> = new Map();

interface Settings extends ContextAuthentication {
  readonly anyTransport: boolean;
  readonly challenges: readonly string[];
  readonly allowUnguarded: boolean;
}

function resolve(options: TrpcContextOptions): Settings {
  const shared = resolveContextAuthentication('createTrpcContext', options, OWN);
  const {
    dangerouslyAllowConnectionParamsOverHttp = false,
    router,
    challenges = [],
    dangerouslyAllowUnguardedProcedures = false,
  } = options;
  if (typeof dangerouslyAllowConnectionParamsOverHttp !== 'boolean') {
    throw new ConfigurationError('dangerouslyAllowConnectionParamsOverHttp', 'must be a boolean');
  }
  if (typeof dangerouslyAllowUnguardedProcedures !== 'boolean') {
    throw new ConfigurationError('dangerouslyAllowUnguardedProcedures', 'must be a boolean');
  }
  if (router !== undefined && typeof (router as Partial<AnyTRPCRouter> | null)?._def !== 'object') {
    throw new ConfigurationError('router', 'must be a tRPC router (t.router({ ... }))');
  }
  return {
    ...shared,
    anyTransport: dangerouslyAllowConnectionParamsOverHttp,
    challenges: requireChallenges(challenges),
    allowUnguarded: dangerouslyAllowUnguardedProcedures,
  };
}
