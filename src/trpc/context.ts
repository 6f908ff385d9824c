import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import {
  assertAuthenticatorConfigured,
  authenticateWith,
  authenticatorFailed,
  type Authenticator,
} from '../core/security.js';
import { rejectUnknownOptions, requireNames } from '../lib/validate.js';
import { CLIENT_ADDRESS } from '../lib/client-address.js';
import { readConnectionParams } from '../lib/request-views.js';
import { isWebSocketUpgrade, toSecurityRequest } from './request.js';
import type { UserContext } from './types.js';
import type { ContextOptionsLike } from './request.js';

/** Options of {@link createSecurityContext}. */
export interface SecurityContextOptions {
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
   * Where an `authentication-failure` event goes when the authenticator throws.
   * @defaultValue `securityEvents`
   */
  readonly events?: SecurityEvents;
}

/** The function {@link createSecurityContext} returns: `createContext` or part of it. */
export type SecurityContextFactory = (opts: ContextOptionsLike) => Promise<UserContext>;

const KNOWN = [
  'authenticator',
  'connectionParams',
  'dangerouslyAllowConnectionParamsOverHttp',
  'events',
];

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
 * @throws ConfigurationError for invalid options
 *
 * @example
 * ```ts
 * import { createHTTPServer } from '@trpc/server/adapters/standalone';
 * import { createSecurityContext } from 'portcullis/trpc';
 *
 * const securityContext = createSecurityContext({ authenticator });
 * createHTTPServer({
 *   router: appRouter,
 *   createContext: async (opts) => ({ ...(await securityContext(opts)), db }),
 * }).listen(3000);
 * ```
 */
export function createSecurityContext(options: SecurityContextOptions): SecurityContextFactory {
  const settings = resolve(options);
  const { authenticator, names, events, anyTransport } = settings;
  assertAuthenticatorConfigured(authenticator);
  return async (opts) => {
    const req = opts.req;
    const params =
      names.length === 0
        ? EMPTY
        : readConnectionParams(names, opts.info, anyTransport || isWebSocketUpgrade(req));
    const request = toSecurityRequest(req, params);
    let user: AuthenticatedUser | null;
    try {
      user = await authenticateWith(authenticator, request);
    } catch (error) {
      user = authenticatorFailed(authenticator, request, error, events);
    }
    const ctx = { user, [CLIENT_ADDRESS]: request.clientAddress };
    return ctx;
  };
}

const EMPTY: ReadonlyMap<string, string> = new Map();

interface Settings {
  readonly authenticator: Authenticator;
  readonly names: readonly string[];
  readonly events: SecurityEvents;
  readonly anyTransport: boolean;
}

function resolve(options: SecurityContextOptions): Settings {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object with an authenticator');
  }
  rejectUnknownOptions('createSecurityContext', options, KNOWN);
  const {
    authenticator,
    connectionParams = ['authorization'],
    dangerouslyAllowConnectionParamsOverHttp = false,
    events = securityEvents,
  } = options;
  if (typeof (authenticator as Partial<Authenticator> | null)?.getUser !== 'function') {
    throw new ConfigurationError('authenticator', 'must be an Authenticator');
  }
  if (typeof dangerouslyAllowConnectionParamsOverHttp !== 'boolean') {
    throw new ConfigurationError('dangerouslyAllowConnectionParamsOverHttp', 'must be a boolean');
  }
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  const names =
    connectionParams === false
      ? []
      : Object.freeze(requireNames('connectionParams', connectionParams));
  return { authenticator, names, events, anyTransport: dangerouslyAllowConnectionParamsOverHttp };
}
