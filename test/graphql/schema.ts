/** In-process helpers for the directive tests: build, transform, execute. */
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers } from '@graphql-tools/utils';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import type { AuthenticatedUser } from '../../src/index.js';
import { securityDirectives, type SecurityDirectivesOptions } from '../../src/graphql/index.js';
import { executeAs, mockUser } from '../../src/testing/index.js';

/** A user with roles and authorities (none by default). */
export const userWith = (
  username: string,
  roles: readonly string[] = [],
  authorities: readonly string[] = [],
): AuthenticatedUser => mockUser(username, { roles, authorities });

export const ALICE = userWith('alice', ['USER'], ['posts:read']);
export const WRITER = userWith('writer', ['USER'], ['posts:read', 'posts:write']);
export const ADMIN = userWith('admin', ['ADMIN', 'USER'], ['posts:read', 'users:write']);
export const GUEST = userWith('guest');

/**
 * Makes an executable schema with the directives' SDL, then applies the transformer.
 * These schemas test the directives one by one, so fields without a directive are
 * open (`defaultPolicy: 'permitAll'`, an explicit opt-out of deny-by-default) unless
 * the options say otherwise.
 */
export function secureSchema(
  sdl: string,
  resolvers: IResolvers = {},
  options?: SecurityDirectivesOptions,
): GraphQLSchema {
  const { typeDefs, transformer } = securityDirectives({ defaultPolicy: 'permitAll', ...options });
  return transformer(makeExecutableSchema({ typeDefs: [typeDefs, sdl], resolvers }));
}

/** Runs an operation as `user`, with the context `createGraphQLContext` builds for it. */
export const run = (
  schema: GraphQLSchema,
  source: string,
  user: AuthenticatedUser | null,
  variableValues?: Record<string, unknown>,
): Promise<ExecutionResult> =>
  executeAs({ schema, source, user, ...(variableValues ? { variableValues } : {}) });

/** The error code at each error path, as `path → code`. */
export function denials(result: ExecutionResult): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const error of result.errors ?? []) {
    out[(error.path ?? []).join('.')] = error.extensions['code'];
  }
  return out;
}
