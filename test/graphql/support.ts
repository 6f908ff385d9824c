/**
 * Shared by the HTTP tests of the directives: the schema, the demo users, and the
 * same schema served by graphql-http, GraphQL Yoga and Apollo Server on 127.0.0.1.
 */
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { execute, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import { createYoga } from 'graphql-yoga';
import {
  AuthenticationManager,
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  SecurityContext,
  User,
  type Authenticator,
} from '../../src/index.js';
import {
  createGraphQLContext,
  graphqlHttpContext,
  securityDirectives,
  useOperationCheck,
  withOperationCheck,
  type GraphQLUserContext,
  type SecurityDirectivesOptions,
} from '../../src/graphql/index.js';
import { USERS } from '../support/fixture.js';
import { basic, listen } from '../support/server.js';

export type Name = keyof typeof USERS;
export type Who = Name | 'anonymous';
export const WHO: readonly Who[] = ['anonymous', 'user', 'writer', 'admin', 'guest'];

/** The in-memory authenticator of the adapter tests: password `<name>-pw`, `{noop}`. */
export function createAuthenticator(): Authenticator {
  const encoder = new DelegatingPasswordEncoder()
    .withEncoder('noop', new NoOpPasswordEncoder())
    .defaultEncoder('noop');
  let authenticator = AuthenticationManager.inMemoryAuthentication().passwordEncoder(encoder);
  for (const [name, { roles, authorities }] of Object.entries(USERS)) {
    authenticator = authenticator.withUser(
      new User(name, `{noop}${name}-pw`).withRoles(roles).withAuthorities(authorities),
    );
  }
  // A user whose stored hash names an encoder nobody registered: never authenticates.
  return authenticator.withUser(new User('legacy', '{md5}legacy-pw').withRoles(['USER']));
}

/** `Authorization` headers for a demo user (none for `anonymous`). */
export function headersOf(who: Who): Record<string, string> {
  return who === 'anonymous' ? {} : { authorization: basic(who, `${who}-pw`) };
}

/** How many times each resolver (or subscription source) ran, by name. */
export const calls = new Map<string, number>();
const count = (name: string): void => {
  calls.set(name, (calls.get(name) ?? 0) + 1);
};

export const SDL = /* GraphQL */ `
  type Query {
    open: String
    securedList: String @secured(roles: ["ADMIN", "OPS"])
    securedOne: String @secured(roles: "USER")
    rolesAllowed: String @rolesAllowed(roles: ["USER"])
    preAuthorizeExpr: String @preAuthorize(expr: "hasRole('USER') and hasAuthority('posts:read')")
    preAuthorizeAuthority: String @preAuthorize(authority: "posts:write")
    preAuthorizeBoth: String @preAuthorize(expr: "hasRole('USER')", authority: "users:write")
    permitAll: String @permitAll
    denyAll: String @denyAll
    authenticated: String @authenticated
    "The context's user and the SecurityContext's user inside the resolver."
    whoami: String @authenticated
    account: Account
    settings: Settings
    node(id: ID!): Node
    nodes: [Node!]!
    posts: [Post!]!
    vault: Vault
    vaults: [Vault]
    postsBy(authorId: String!): [String!]
      @preAuthorize(expr: "hasRole('ADMIN') or args.authorId == principal.username")
  }
  type Account @secured(roles: "USER") {
    username: String
    motto: String @permitAll
    balance: String @secured(roles: "ADMIN")
  }
  type Settings @authenticated {
    theme: String
    apiKey: String @preAuthorize(authority: "users:write")
  }
  interface Node @secured(roles: "USER") {
    id: ID
    internal: String @secured(roles: "ADMIN")
  }
  type Article implements Node {
    id: ID
    internal: String
    title: String
  }
  type Comment implements Node {
    id: ID
    internal: String @permitAll
    body: String
  }
  type Post {
    id: ID!
    title: String
    secret: String @secured(roles: "ADMIN")
  }
  type Vault {
    label: String
    code: String! @secured(roles: "ADMIN")
  }
  type Mutation {
    createPost(title: String!): Post @preAuthorize(authority: "posts:write")
    renamePost(authorId: String!, title: String!): String
      @preAuthorize(expr: "hasRole('ADMIN') or args.authorId == principal.username")
  }
  type Subscription {
    ticks(count: Int!): String @secured(roles: "USER")
  }
`;

/** The directive fields of `Query` that answer the caller's name. */
export const DIRECTIVE_FIELDS: readonly string[] = (
  'open securedList securedOne rolesAllowed preAuthorizeExpr preAuthorizeAuthority ' +
  'preAuthorizeBoth permitAll denyAll authenticated'
).split(' ');

type Context = Partial<GraphQLUserContext>;
const nameOf = (context: Context): string => context.user?.username ?? 'anonymous';
const node = (id: string) =>
  id.startsWith('a')
    ? { __typename: 'Article', id, internal: `internal ${id}`, title: `title ${id}` }
    : { __typename: 'Comment', id, internal: `internal ${id}`, body: `body ${id}` };
const article = (id: string) => ({ id, title: `title ${id}`, secret: `secret ${id}` });

const resolvers = {
  Query: {
    ...Object.fromEntries(
      DIRECTIVE_FIELDS.map((field) => [
        field,
        (_: unknown, __: unknown, context: Context) => {
          count(field);
          return nameOf(context);
        },
      ]),
    ),
    whoami: (_: unknown, __: unknown, context: Context) =>
      `${nameOf(context)}/${SecurityContext.getUser()?.username ?? 'none'}`,
    account: () => ({ username: 'acct', motto: 'carpe diem', balance: '42' }),
    settings: () => ({ theme: 'dark', apiKey: 'k-123' }),
    node: (_: unknown, { id }: { id: string }) => node(id),
    nodes: () => [node('a1'), node('c1')],
    posts: () => [article('p1'), article('p2')],
    vault: () => ({ label: 'v', code: 'c' }),
    vaults: () => [1, 2].map((i) => ({ label: `v${i}`, code: `c${i}` })),
    postsBy: (_: unknown, { authorId }: { authorId: string }) => [`${authorId}'s post`],
  },
  Node: { __resolveType: (value: { __typename: string }) => value.__typename },
  Mutation: {
    createPost: (_: unknown, { title }: { title: string }) => {
      count('createPost');
      return { id: 'new', title, secret: 's' };
    },
    renamePost: (_: unknown, { authorId, title }: Record<string, string>, context: Context) => {
      count('renamePost');
      return `${nameOf(context)} renamed ${authorId}'s post to ${title}`;
    },
  },
  Subscription: {
    ticks: {
      subscribe: (_: unknown, { count: n }: { count: number }, context: Context) => {
        // Counted when the source stream is created: a denied subscription never gets here.
        count('ticks');
        return (async function* () {
          for (let i = 0; i < n; i++) {
            await sleep(1);
            yield { ticks: `${nameOf(context)}:${i}` };
          }
        })();
      },
    },
  },
};

/**
 * The test schema, with the directives applied. `open` has no directive on purpose:
 * this schema opts out of deny-by-default (`defaultPolicy: 'permitAll'`) unless the
 * options say otherwise.
 */
export function createSchema(options?: SecurityDirectivesOptions): GraphQLSchema {
  const { typeDefs, transformer } = securityDirectives({ defaultPolicy: 'permitAll', ...options });
  return transformer(makeExecutableSchema({ typeDefs: [typeDefs, SDL], resolvers }));
}

/** A schema without directives on most fields, for the deny-by-default policies. */
export function createPolicySchema(defaultPolicy: 'authenticated' | 'denyAll'): GraphQLSchema {
  const { typeDefs, transformer } = securityDirectives({ defaultPolicy });
  const sdl = `type Query { hello: String, open: String @permitAll, admin: String @secured(roles: "ADMIN") }`;
  const hello = (_: unknown, __: unknown, context: Context) => `hello ${nameOf(context)}`;
  return transformer(
    makeExecutableSchema({
      typeDefs: [typeDefs, sdl],
      resolvers: { Query: { hello, open: hello, admin: hello } },
    }),
  );
}

export type ServerName = 'graphql-http' | 'yoga' | 'apollo';
export const SERVERS: readonly ServerName[] = ['graphql-http', 'yoga', 'apollo'];

/** A GraphQL endpoint on 127.0.0.1. */
export interface GraphQLServer {
  readonly name: ServerName;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `schema` with each server, the user from HTTP Basic. With `apolloCheck`
 * (Apollo's operation-check plugin), every server runs the all-or-nothing check.
 */
export async function startServers(
  schema: GraphQLSchema,
  apolloCheck?: ApolloServerPlugin<GraphQLUserContext>,
): Promise<readonly GraphQLServer[]> {
  const check = apolloCheck !== undefined;
  const security = createGraphQLContext({ authenticator: createAuthenticator() });

  const handler = createHandler({
    schema,
    // As the README shows it: the context type fits graphql-http's without a copy, and
    // a request refused for now (429, 503) is answered with its status, not a 500.
    context: graphqlHttpContext((req) => security(req)),
    ...(check ? { execute: withOperationCheck(execute) } : {}),
  });
  const http = await listen(createServer((req, res) => void handler(req, res)));

  const yoga = createYoga({
    schema,
    context: (initial) => security(initial),
    plugins: check ? [useOperationCheck()] : [],
    logging: false,
  });
  const yogaServer = await listen(createServer(yoga.requestListener));

  const apollo = new ApolloServer<GraphQLUserContext>({
    schema,
    plugins: apolloCheck ? [apolloCheck] : [],
  });
  const { url } = await startStandaloneServer(apollo, {
    listen: { port: 0, host: '127.0.0.1' },
    context: ({ req }) => security(req),
  });

  return [
    { name: 'graphql-http', url: `${http.origin}/graphql`, close: () => http.close() },
    { name: 'yoga', url: `${yogaServer.origin}/graphql`, close: () => yogaServer.close() },
    { name: 'apollo', url, close: () => apollo.stop() },
  ];
}

/** Closes every server. */
export async function closeAll(servers: readonly GraphQLServer[] | undefined): Promise<void> {
  await Promise.all((servers ?? []).map((server) => server.close()));
}

/** A GraphQL response over HTTP: status and JSON body. */
export interface Answer {
  readonly status: number;
  readonly data?: Record<string, unknown> | null;
  readonly errors?: readonly GraphQLFormattedError[];
}

/** POSTs an operation as `who` (or with raw `headers`), in `application/json`. */
export async function post(
  url: string,
  query: string,
  init: { who?: Who; variables?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...headersOf(init.who ?? 'anonymous'),
      ...init.headers,
    },
    body: JSON.stringify({ query, variables: init.variables }),
  });
  const body = (await response.json()) as Omit<Answer, 'status'>;
  return { status: response.status, ...body };
}

/** The `extensions.code` of each error, by path (`a.0.b → code`). */
export function codes(answer: Pick<Answer, 'errors'>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const error of answer.errors ?? []) {
    out[(error.path ?? []).join('.')] = error.extensions?.['code'];
  }
  return out;
}
