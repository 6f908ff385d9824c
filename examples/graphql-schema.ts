/**
 * The example's GraphQL API, served under `/graphql`: SPEC.md's routes as fields,
 * secured by portcullis's SDL directives with the same demo users (HTTP Basic).
 *
 * Served by graphql-http, the reference implementation of the GraphQL-over-HTTP
 * spec: a plain node `(req, res)` handler like the rest of the example, no
 * GraphiQL bundle from a CDN (which the example's Content-Security-Policy would
 * block anyway), mutations refused over GET, and a partial result stays 200.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';
import { createHandler } from 'graphql-http/lib/use/http';
import type { AuthenticatedUser } from 'portcullis';
import { securityDirectives } from 'portcullis/graphql';
import { userOf as requestUser } from 'portcullis/node';

/** What every resolver gets: the user `withSecurity` already authenticated. */
type Context = { readonly user: AuthenticatedUser | null };

// Guarded fields are nullable: a denied non-null field would null its parent (at
// the root, the whole `data`), taking the fields the caller may see with it.
const typeDefs = /* GraphQL */ `
  type Query {
    "Public, like GET /health."
    health: String! @permitAll
    "Role USER, like GET /profile."
    profile: Profile @secured(roles: "USER")
    "Like GET /posts."
    posts: [Post!] @preAuthorize(expr: "hasRole('USER') and hasAuthority('posts:read')")
    "Like GET /admin/dashboard: guarded by its type."
    adminDashboard: AdminStats
  }

  type Mutation {
    "Like POST /posts."
    createPost(title: String!): Post @preAuthorize(authority: "posts:write")
    "Like POST /admin/users."
    createUser(username: String!): String
      @preAuthorize(expr: "hasRole('ADMIN') and hasAuthority('users:write')")
    "Ownership: an admin, or the post's author."
    renamePost(authorId: String!, title: String!): Post
      @preAuthorize(expr: "hasRole('ADMIN') or args.authorId == principal.username")
  }

  type Profile {
    username: String!
    roles: [String!]!
    authorities: [String!]!
  }

  type Post {
    id: ID!
    authorId: String!
    title: String!
  }

  "Every field of the type needs the role ADMIN."
  type AdminStats @secured(roles: "ADMIN") {
    users: Int!
    posts: Int!
  }
`;

const posts = [{ id: '1', authorId: 'writer', title: 'Hello' }] as const;

/** The user a guard let through (the directives already checked the rule). */
const userOf = (context: Context): AuthenticatedUser => {
  if (!context.user) throw new Error('unreachable: the field is guarded');
  return context.user;
};

const resolvers = {
  Query: {
    health: () => 'OK',
    profile: (_: unknown, __: unknown, context: Context) => {
      const user = userOf(context);
      return {
        username: user.username,
        roles: [...user.roles],
        authorities: [...user.authorities],
      };
    },
    posts: () => posts,
    adminDashboard: () => ({ users: 4, posts: posts.length }),
  },
  Mutation: {
    createPost: (_: unknown, { title }: { title: string }, context: Context) => ({
      id: String(posts.length + 1),
      authorId: userOf(context).username,
      title,
    }),
    createUser: (_: unknown, { username }: { username: string }) => `created ${username}`,
    renamePost: (_: unknown, { authorId, title }: { authorId: string; title: string }) => ({
      id: '1',
      authorId,
      title,
    }),
  },
};

// Deny-by-default: a field nobody annotated is closed to anonymous callers, and a
// bad directive (a typo in a rule, an unknown argument) fails here, at start-up.
const { typeDefs: securityTypeDefs, transformer } = securityDirectives({
  defaultPolicy: 'authenticated',
});

/** The example's executable schema, with the security directives applied. */
export const schema = transformer(
  makeExecutableSchema({ typeDefs: [securityTypeDefs, typeDefs], resolvers }),
);

/**
 * The `/graphql` handler. It runs behind `withSecurity`, so the user the
 * SecurityTransform authenticated is reused as the GraphQL context (no second
 * check of the password).
 */
export const graphqlHandler = createHandler<Context>({
  schema,
  context: (req) => ({ user: requestUser(req.raw) }),
});
