/**
 * The example's URL rules and demo users, in one module that starts nothing:
 * `app.ts` secures the server with these rules, and `npx portcullis explain` and
 * `npx portcullis token` read this module (`--config examples/security.ts`), so the
 * command explains exactly what the server enforces:
 *
 *   npx portcullis explain GET /admin/dashboard --config examples/security.ts --as writer
 *   JWT_SECRET=… npx portcullis token --config examples/security.ts --as admin
 */
import {
  Access,
  AuthorizationManager,
  type CliConfig,
  type RateLimit,
  type RequestMatcherAuthorizer,
} from 'portcullis';
import { JwtConfig } from 'portcullis/jwt';

/** The demo users: username, password, roles, authorities. */
export const DEMO_USERS = [
  { username: 'user', password: 'user-password', roles: ['USER'], authorities: ['posts:read'] },
  {
    username: 'writer',
    password: 'writer-password',
    roles: ['USER'],
    authorities: ['posts:read', 'posts:write'],
  },
  {
    username: 'admin',
    password: 'admin-password',
    roles: ['ADMIN', 'USER'],
    authorities: ['posts:read', 'posts:write', 'users:write'],
  },
  { username: 'guest', password: 'guest-password', roles: [], authorities: [] },
] as const;

/** The token endpoints' paths (`tokenEndpoints`' defaults). */
export const TOKEN_PATHS: readonly string[] = ['/auth/login', '/auth/refresh'];

/** Options of {@link exampleRules}. */
export interface ExampleRulesOptions {
  /** The token endpoints' paths. @defaultValue {@link TOKEN_PATHS} */
  readonly tokenPaths?: readonly string[];
  /** The rate limit of `/api/**`. @defaultValue none */
  readonly apiLimit?: RateLimit | undefined;
}

/** The example's URL rules, first match wins. */
export function exampleRules(options: ExampleRulesOptions = {}): RequestMatcherAuthorizer {
  const rules = AuthorizationManager.requestMatcher()
    // Browser navigations that need a login go to the form; other clients get 401
    // with the Basic and Bearer challenges.
    .loginUrl('/login', { targetParameter: 'continue' })
    .httpBasic()
    .bearer()
    // Spring path patterns, first match wins; a path no rule names needs a login.
    .requestMatchers(['/', '/health', '/login', '/logout'], Access.permitAll())
    // The OAuth2 login routes (answered only when the development provider is on).
    .requestMatchers(
      ['/oauth2/authorization/{registrationId}', '/login/oauth2/code/{registrationId}'],
      Access.permitAll(),
    )
    .requestMatchers('/me', Access.authenticated())
    .requestMatchers(options.tokenPaths ?? TOKEN_PATHS, Access.permitAll(), { methods: ['POST'] })
    .requestMatchers(['/account/password', '/logout/everywhere'], Access.authenticated(), {
      methods: ['POST'],
    })
    .requestMatchers('/profile', new Access().roles(['USER']))
    .requestMatchers('/posts', new Access().roles(['USER']).authorities(['posts:read']), {
      methods: ['GET'],
    })
    .requestMatchers('/posts', new Access().authorities(['posts:write']), { methods: ['POST'] })
    .requestMatchers('/admin/users', new Access().roles(['ADMIN']).authorities(['users:write']), {
      methods: ['POST'],
    })
    .requestMatchers('/admin/**', new Access().roles(['ADMIN']))
    .requestMatchers('/api/**', new Access().roles(['USER']))
    // GraphQL and tRPC guard each field and procedure themselves (deny by default
    // there too), so their endpoints let every request through to those guards.
    .requestMatchers(['/graphql', '/trpc/**'], Access.permitAll());
  // Every /api request counts against its user's limit (429 past it), checked after
  // authentication and before the rules, on every instance with Redis.
  return options.apiLimit === undefined ? rules : rules.rateLimit('/api/**', options.apiLimit);
}

/**
 * The example's JWT configuration (HS256 on `secret`, at least 32 bytes): issuer
 * `portcullis-example`, 15-minute access tokens.
 */
export function exampleJwtConfig(secret: string): JwtConfig {
  return new JwtConfig(secret).issuer('portcullis-example').expirationSeconds(15 * 60);
}

/**
 * What the `portcullis` command reads: the rules without their rate limit (explaining
 * a request counts nothing), the demo users, and, when `JWT_SECRET` is set as for
 * the server, its JWT configuration.
 */
export default function config(): CliConfig {
  const secret = process.env['JWT_SECRET'];
  return {
    authorizer: exampleRules(),
    users: DEMO_USERS,
    ...(secret === undefined || secret === '' ? {} : { jwt: exampleJwtConfig(secret) }),
  };
}
