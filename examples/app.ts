/**
 * The example application: SPEC.md's routes on a plain node `http` server, secured
 * by portcullis with HTTP Basic over a user repository (Argon2id behind a
 * delegating encoder), bearer tokens, sealed-cookie sessions with a login page, URL
 * rules and the security headers; optionally, OAuth2 / OpenID Connect login against a
 * development provider on 127.0.0.1 (`OAUTH2_DEV_PROVIDER=1`). Its users and
 * security state are in memory, or on Redis with `redisUrl` (`REDIS_URL`), shared by
 * every instance (see `stores.ts`).
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  AuthenticationManager,
  LoginThrottle,
  RepositoryAuthenticator,
  SecurityHeaders,
  SecurityTransform,
  UnavailableError,
  securityEvents,
  rateLimit,
  TooManyRequestsError,
  type LoginThrottleOptions,
  type RateLimitOptions,
  type TrustedProxies,
} from 'portcullis';
import { createDelegatingPasswordEncoder } from 'portcullis/argon2';
import { JwtAuthenticator, JwtTokenService, tokenEndpoints } from 'portcullis/jwt';
import {
  securityRoutes,
  withSecurity,
  withSecurityHeaders,
  type SecuredRequest,
} from 'portcullis/node';
import type { SessionAuthenticator } from 'portcullis/session';
import { createAccountRoutes } from './account-routes.js';
import { routeRequest, text } from './routes.js';
import {
  createOAuth2Site,
  createSessionSite,
  createSessions,
  devProviderAccounts,
  sessionOptionsFromEnv,
  type OAuth2Site,
  type SessionSiteOptions,
  type SessionSummary,
} from './session-site.js';
import { DEMO_USERS, exampleJwtConfig, exampleRules } from './security.js';
import { createExampleStores, type ExampleStores } from './stores.js';

export { DEMO_USERS } from './security.js';

/** Options of {@link createApp}. */
export interface AppOptions {
  /** The sessions of the site. @defaultValue read from the environment (`sessionOptionsFromEnv`) */
  readonly session?: SessionSiteOptions;
  /**
   * Start the development OpenID provider on 127.0.0.1 (`oidc-provider`, a
   * devDependency, loaded only then) and offer "Log in with the local test provider".
   * `appOrigin` is the example's origin in the browser (`http://127.0.0.1:3000`).
   * @defaultValue off (`examples/server.ts` turns it on with `OAUTH2_DEV_PROVIDER=1`)
   */
  readonly oauth2DevProvider?: { readonly appOrigin: string; readonly providerPort?: number };
  /**
   * Keep verified bearer tokens in the JWT authenticator's cache (the benchmark turns
   * it off to measure a verification per request).
   * @defaultValue `true`
   */
  readonly jwtCache?: boolean;
  /**
   * `redis://host:port`: the users and every piece of security state on that Redis,
   * shared by every instance (`examples/server.ts` passes `REDIS_URL`).
   * @defaultValue in memory (one process)
   */
  readonly redisUrl?: string | undefined;
  /**
   * The refresh tokens' grace window in seconds (0 to 60): refreshes of one token
   * within it on one instance get the same new pair; on another instance they are
   * refused without revoking the family. Later, a reuse revokes the family.
   * @defaultValue `10`
   */
  readonly refreshGraceSeconds?: number;
  /** Told of Redis connection errors. @defaultValue ignore them */
  readonly onStoreError?: (error: unknown) => void;
  /**
   * The proxies in front of the example whose `X-Forwarded-For` names the client the
   * login throttle counts (`examples/server.ts` reads `TRUSTED_PROXIES`: a hop count
   * such as `1`, or addresses and CIDR ranges separated by commas).
   * @defaultValue none: the socket's address
   */
  readonly trustedProxies?: TrustedProxies | undefined;
  /**
   * The login throttle's counters (see `LoginThrottleOptions`; the store and
   * `trustedProxies` are set by the app).
   * @defaultValue the defaults: 5 failures per username, 100 per address, in 15 minutes
   */
  readonly loginThrottle?: Pick<LoginThrottleOptions, 'username' | 'address'>;
  /**
   * The rate limit of `/api/**` per user (per address for an anonymous request), or
   * `false` for none (the benchmarks measure the routes without it).
   * @defaultValue `{ window: '1m', max: 600 }`
   */
  readonly apiRateLimit?: Pick<RateLimitOptions, 'window' | 'max'> | false;
}

/** Builds the secured request listener (passwords are Argon2id-encoded at start-up). */
export async function createApp(options: AppOptions = {}): Promise<{
  listener: ReturnType<typeof withSecurityHeaders>;
  transform: SecurityTransform;
  jwt: JwtAuthenticator;
  tokens: JwtTokenService;
  sessions: SessionAuthenticator;
  session: SessionSummary;
  /** HTTP Basic and password logins over the users. */
  authenticator: RepositoryAuthenticator;
  /** Where the users and the security state are: `'memory'` or `'redis'`. */
  mode: ExampleStores['mode'];
  /** The OAuth2 login, when the development provider is on. */
  oauth2: Pick<OAuth2Site, 'issuer'> | undefined;
  /** Stops what the app started besides the listener (the development provider, Redis connections). */
  close: () => Promise<void>;
}> {
  const encoder = createDelegatingPasswordEncoder();
  const stores = await createExampleStores({
    redisUrl: options.redisUrl,
    encoder,
    demoUsers: DEMO_USERS,
    ...(options.onStoreError === undefined ? {} : { onError: options.onStoreError }),
  });
  const { users } = stores;
  // One throttle for every credential check, counted in the shared store: after 5
  // failures for a username (or 100 from an address) in 15 minutes, attempts get 429
  // with Retry-After before any hashing, for delays growing from 1 to 15 minutes.
  const throttle = new LoginThrottle({
    ...options.loginThrottle,
    store: stores.throttle,
    ...(options.trustedProxies === undefined ? {} : { trustedProxies: options.trustedProxies }),
  });
  const apiLimit =
    options.apiRateLimit === false
      ? undefined
      : rateLimit({
          name: 'api',
          window: '1m',
          max: 600,
          ...options.apiRateLimit,
          by: 'user',
          store: stores.throttle,
          ...(options.trustedProxies === undefined
            ? {}
            : { trustedProxies: options.trustedProxies }),
        });
  // HTTP Basic, the login form and the token login check passwords here; a change
  // announced through userChanges (from any instance) drops the cached credential.
  const authenticator = new RepositoryAuthenticator({
    users,
    passwordEncoder: encoder,
    throttle,
    ...(stores.userChanges === undefined ? {} : { userChanges: stores.userChanges }),
  });

  // Bearer tokens (JWT, HS256) next to HTTP Basic. JWT_SECRET (at least 32 bytes)
  // keeps tokens valid across restarts and instances; without it a random secret is
  // made at start.
  const jwtConfig = exampleJwtConfig(
    process.env['JWT_SECRET'] ?? randomBytes(32).toString('base64url'),
  );
  if (options.jwtCache === false) jwtConfig.cache(false);
  const tokens = new JwtTokenService(jwtConfig, {
    ...(stores.refreshTokens === undefined ? {} : { store: stores.refreshTokens }),
    ...(stores.accessTokens === undefined ? {} : { revocations: stores.accessTokens }),
    ...(options.refreshGraceSeconds === undefined
      ? {}
      : { graceSeconds: options.refreshGraceSeconds }),
  }).refreshExpirationDays(7);
  // The service's authenticator checks its access-token revocations on every request.
  const jwt = tokens.authenticator;
  // Bad refresh tokens count against the client's address in the same throttle.
  const endpoints = tokenEndpoints({ authenticator, tokens, users: stores.readers, throttle });
  // Sessions for the server-rendered site (/login, /me); the cookie also
  // authenticates the page's calls to /trpc and /graphql.
  const { sessions, summary } = createSessions(
    options.session ?? sessionOptionsFromEnv(),
    stores.readers,
    stores.sessions,
  );
  const devProvider = options.oauth2DevProvider;
  let oauth2: OAuth2Site | undefined;
  try {
    oauth2 =
      devProvider === undefined
        ? undefined
        : await createOAuth2Site(
            {
              ...devProvider,
              accounts: devProviderAccounts(DEMO_USERS),
              spentTransactions: stores.spentIds,
              throttle,
            },
            sessions,
            users,
          );
  } catch (error) {
    await stores.close();
    throw error;
  }
  const site = createSessionSite(sessions, authenticator, { oauth2: oauth2 !== undefined });
  const extraRoutes = {
    ...site.pages,
    ...createAccountRoutes({ authenticator, users, encoder, sessions, tokens }),
  };
  // The routes portcullis answers itself: form login and logout, the token endpoints,
  // and the OAuth2 login routes (only with the development provider).
  const routes = securityRoutes(
    ...site.routes,
    endpoints,
    ...(oauth2 === undefined ? [] : [oauth2.login]),
  );

  const transform = new SecurityTransform()
    // A bearer token, else the session cookie, else HTTP Basic: the first user found wins.
    .configAuthenticator(() => AuthenticationManager.anyOf(jwt, sessions, authenticator))
    // The URL rules (security.ts, which `npx portcullis explain` reads too).
    .configAuthorizer(() => exampleRules({ tokenPaths: endpoints.paths, apiLimit }));

  const siteRouter = (req: SecuredRequest, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const extraRoute = extraRoutes[`${req.method ?? 'GET'} ${path}`];
    if (extraRoute === undefined) {
      routeRequest(req, res);
      return;
    }
    extraRoute(req, res).then(
      () => undefined,
      (error: unknown) => {
        if (res.headersSent) res.destroy();
        else if (error instanceof TooManyRequestsError) {
          // The current password of a password change, checked too often.
          res.setHeader('retry-after', String(error.retryAfter));
          text(res, 429, 'Too Many Requests\n');
        } else if (error instanceof UnavailableError) {
          // A store or the user table cannot answer now: fail closed, retry later.
          res.setHeader('retry-after', String(error.retryAfter));
          text(res, 503, 'Service Unavailable\n');
        } else text(res, 500, 'Internal Server Error\n');
      },
    );
  };
  // portcullis' own routes first, then the site's.
  const router = (req: SecuredRequest, res: ServerResponse): void => {
    routes(req, res, () => {
      siteRouter(req, res);
    });
  };
  // helmet's policy, plus a per-response nonce for the inline script of /me.
  const headers = new SecurityHeaders({
    contentSecurityPolicy: { directives: { scriptSrc: ["'self'", SecurityHeaders.nonce] } },
  });
  const listener = withSecurityHeaders(withSecurity(transform, router), headers);
  return {
    listener,
    transform,
    jwt,
    tokens,
    sessions,
    session: summary,
    authenticator,
    mode: stores.mode,
    oauth2: oauth2 && { issuer: oauth2.issuer },
    close: async () => {
      authenticator.close();
      try {
        await oauth2?.close();
      } finally {
        await stores.close();
      }
    },
  };
}

export { routeRequest } from './routes.js';

/** Prints audit events of the example to the console (no credentials are in them). */
export function logSecurityEvents(): () => void {
  return securityEvents.on('*', (event) => {
    if (event.type === 'authentication-success') return;
    console.log(`[security] ${JSON.stringify(event)}`);
  });
}
