/**
 * A strict TypeScript consumer of every subpath, as an application writes it.
 * `.ci/consumer-check.mjs` compiles it (never runs it) against the packed package
 * installed with its peers, under each TypeScript and module resolution of
 * `.ci/consumer-matrix.mjs`; `npm run typecheck` checks it against the sources.
 * Each subpath is used with the peer types it meets in an application: a tRPC
 * instance, a Fastify app, a graphql schema, a node-redis client.
 */
import { createServer } from 'node:http';
import { initTRPC } from '@trpc/server';
import Fastify from 'fastify';
import { buildSchema, type GraphQLSchema } from 'graphql';
import { createClient } from 'redis';
import {
  Access,
  AuthenticationManager,
  AuthorizationManager,
  SecurityHeaders,
  SecurityTransform,
  User,
  type AuthenticatedUser,
  type Authenticator,
} from 'portcullis';
import { Argon2PasswordEncoder, createDelegatingPasswordEncoder } from 'portcullis/argon2';
import {
  securityRoutes as fetchRoutes,
  userOf as fetchUserOf,
  withSecurity as withFetchSecurity,
  withSecurityHeaders as withFetchHeaders,
} from 'portcullis/fetch';
import { security, securityHeaders, securityRoutes as fastifyRoutes } from 'portcullis/fastify';
import { createGraphQLContext, securityDirectives } from 'portcullis/graphql';
import { JwtAuthenticator, JwtConfig, JwtTokenService, tokenEndpoints } from 'portcullis/jwt';
import {
  securityRoutes as nodeRoutes,
  userOf,
  withSecurity,
  withSecurityHeaders,
} from 'portcullis/node';
import {
  OAuth2ClientRepository,
  OAuth2Config,
  OAuth2Provider,
  oauth2Login,
} from 'portcullis/oauth2';
import {
  CurrentUser,
  PermitAll,
  PortcullisModule,
  PreAuthorize,
  Secured,
  type SecurityDecorator,
} from 'portcullis/nestjs';
import { createRedisStores, type RedisStores } from 'portcullis/redis';
import { SessionAuthenticator, SessionConfig, formLogin, formLogout } from 'portcullis/session';
import {
  createTrpcCallerAs,
  executeAs,
  manualClock,
  mockUser,
  sessionCookieFor,
  testJwt,
  type ManualClock,
} from 'portcullis/testing';
import {
  assertSecured,
  createProcedures,
  createTrpcContext,
  preAuthorize,
  securityResponseMeta,
  type UserContext,
} from 'portcullis/trpc';

// No top-level await: the file compiles as CommonJS too (`module` `commonjs`).

// portcullis: users, an authenticator, URL rules.
const encoder = createDelegatingPasswordEncoder();
export const hash: Promise<string> = new Argon2PasswordEncoder().encode('secret');
const basic = AuthenticationManager.inMemoryAuthentication()
  .passwordEncoder(encoder)
  .withUser(User.withEncodedPassword('alice', '{noop}secret').withRoles(['USER']));
const found: User | null = basic.findUser('alice');

// portcullis/jwt and portcullis/session: bearer tokens and sessions.
const jwtConfig = new JwtConfig('a-secret-of-at-least-32-bytes-long!!').issuer('consumer');
const tokens = new JwtTokenService(jwtConfig);
const jwt: JwtAuthenticator = tokens.authenticator;
const sessions = new SessionAuthenticator(
  new SessionConfig().passwords({ 1: 'a-password-of-at-least-32-characters' }),
);
const login = formLogin({ sessions, credentials: basic });
const logout = formLogout({ sessions });
const endpoints = tokenEndpoints({
  authenticator: basic,
  tokens,
  users: { loadUser: (name) => basic.findUser(name) },
});

const authenticator: Authenticator = AuthenticationManager.anyOf(jwt, sessions, basic);
const transform = new SecurityTransform()
  .configAuthenticator(() => authenticator)
  .configAuthorizer(() =>
    AuthorizationManager.requestMatcher()
      .httpBasic()
      .requestMatchers(['/login', '/logout', ...endpoints.paths], Access.permitAll())
      .requestMatchers('/admin/**', new Access().roles(['ADMIN'])),
  );

// portcullis/oauth2, and portcullis/node: node http (and Express, Connect).
export async function startNode(): Promise<void> {
  const oauth2Clients = await OAuth2ClientRepository.create([
    new OAuth2Config('id', 'secret', 'https://app.example/login/oauth2/code/google').provider(
      OAuth2Provider.Google,
    ),
  ]);
  const oauth2 = oauth2Login({ repository: oauth2Clients, sessions });
  const routes = nodeRoutes(login, logout, endpoints, oauth2);
  createServer(
    withSecurityHeaders(
      withSecurity(transform, (req, res) => {
        routes(req, res, () => {
          const user: AuthenticatedUser | null = req.user ?? userOf(req);
          res.end(user?.username ?? 'anonymous');
        });
      }),
      new SecurityHeaders(),
    ),
  ).listen(0, '127.0.0.1');
}

// portcullis/fetch: the Fetch API.
const answer = fetchRoutes(login, logout);
export const fetchHandler = withFetchHeaders(
  withFetchSecurity(
    transform,
    async (request, { user }) =>
      (await answer(request)) ??
      new Response(user?.username ?? fetchUserOf(request)?.username ?? 'anonymous'),
  ),
);

// portcullis/fastify: the plugins and the typed request.user.
export async function startFastify(): Promise<void> {
  const app = Fastify();
  await app.register(securityHeaders, { headers: { xFrameOptions: { action: 'deny' } } });
  await app.register(security, { transform });
  await app.register(fastifyRoutes, { routes: [login, logout] });
  app.get('/profile', (request) => request.user?.username ?? null);
  await app.listen({ host: '127.0.0.1', port: 0 });
}

// portcullis/trpc: guards on an initTRPC instance.
const t = initTRPC.context<UserContext>().create();
const { publicProcedure, roleProcedure } = createProcedures(t);
export const appRouter = t.router({
  health: publicProcedure.query(() => 'ok'),
  profile: roleProcedure('USER').query(({ ctx }) => ctx.user.username),
  admin: t.procedure.use(preAuthorize("hasRole('ADMIN')")).query(() => 'dashboard'),
});
assertSecured(appRouter);
export const trpcContext = createTrpcContext({ authenticator, router: appRouter });
export const responseMeta = securityResponseMeta();

// portcullis/graphql: the directives on a graphql schema.
const { typeDefs, transformer } = securityDirectives();
const schema: GraphQLSchema = transformer(
  buildSchema(`${typeDefs}\ntype Query { profile: String @secured(roles: "USER") }`),
);
export const graphqlContext = createGraphQLContext({ authenticator });

// portcullis/redis: the stores on a node-redis client.
const stores: RedisStores = createRedisStores({ client: createClient(), prefix: 'consumer:' });
export const redisTokens = new JwtTokenService(jwtConfig, { store: stores.refreshTokens });

// portcullis/nestjs: the module and the decorators (applied with decorator syntax in an
// application compiled with experimentalDecorators; called here as the functions they are).
export const nestModule = PortcullisModule.forRoot({
  authenticator,
  defaultPolicy: 'authenticated',
});
export const nestRules: SecurityDecorator[] = [
  Secured('ADMIN'),
  PreAuthorize("hasRole('USER') and hasAuthority('posts:read')"),
  PreAuthorize({ authority: 'posts:write' }),
  PermitAll(),
];
export const currentUserParameter: ParameterDecorator = CurrentUser();

// portcullis/testing: a user, a caller, an operation and credentials, as tests write them.
const admin: AuthenticatedUser = mockUser('admin', {
  roles: ['ADMIN'],
  authorities: ['users:write'],
});
const clock: ManualClock = manualClock();
export const dashboard: Promise<string> = createTrpcCallerAs(appRouter, admin).admin();
export const anonymousHealth: Promise<string> = createTrpcCallerAs(appRouter, null).health();
export const profileAsAdmin = executeAs({ schema, source: '{ profile }', user: admin });
export const bearer: Promise<string> = testJwt({ issuer: 'consumer', clock }).then((kit) =>
  kit.bearerFor(admin),
);
export const cookie: Promise<string> = sessionCookieFor(admin, sessions);
clock.advance('16m');

export { found, schema };
