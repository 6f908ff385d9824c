import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError } from '../core/errors.js';
import { rejectUnknownOptions } from '../core/validate.js';
import type { GraphQLUserContext } from '../graphql/context.js';
import { fixedUser, testRequest, type TestRequest } from './fixed-user.js';
import { refuseInProduction } from './production.js';
import { requireUserOrNull } from './user-check.js';

/** What {@link executeAs} runs. */
export interface ExecuteAsArgs {
  /** The schema, with `securityDirectives()`'s transformer applied. */
  readonly schema: GraphQLSchema;
  /** The operation: its text, or a parsed document. Exactly one of the two. */
  readonly source?: string;
  readonly document?: DocumentNode;
  readonly variableValues?: Readonly<Record<string, unknown>>;
  readonly operationName?: string;
  readonly rootValue?: unknown;
  /** The caller; `null` for an anonymous one. */
  readonly user: AuthenticatedUser | null;
  /**
   * The rest of the context, merged into what `createGraphQLContext` builds; or a
   * function of that context returning the whole context (for a `user` option that
   * reads the user elsewhere).
   */
  readonly contextValue?:
    Readonly<Record<string, unknown>> | ((security: GraphQLUserContext) => unknown);
  /**
   * The request the context is made from, a Fetch `Request` or a node request.
   * @defaultValue a node-style `POST /graphql` from `127.0.0.1`
   */
  readonly request?: TestRequest;
}

const EXECUTE_ARGS = [
  'schema',
  'source',
  'document',
  'variableValues',
  'operationName',
  'rootValue',
  'user',
  'contextValue',
  'request',
];

/**
 * Runs a GraphQL operation as `user` (`null`: anonymous), as a server does: the text
 * is parsed and validated against the schema (a validation error is returned, not
 * thrown), then executed with the context `createGraphQLContext` builds in production
 * for that user, so `@secured`, `@preAuthorize`, the default policy and
 * `SecurityContext` in resolvers behave as behind graphql-http, Yoga or Apollo.
 * Returns graphql's `ExecutionResult`: a denied field is `null` with an error whose
 * `extensions.code` is `UNAUTHENTICATED` or `FORBIDDEN`.
 *
 * `graphql` is loaded on the first call, so importing the kit needs no peer.
 *
 * @example
 * ```ts
 * const result = await executeAs({ schema, source: '{ adminDashboard { users } }', user: mockUser() });
 * expect(result.errors?.[0]?.extensions['code']).toBe('FORBIDDEN');
 * ```
 * @throws TypeError when `user` is not an `AuthenticatedUser` or `null`
 */
export async function executeAs(args: ExecuteAsArgs): Promise<ExecutionResult> {
  refuseInProduction('executeAs');
  requireUserOrNull('executeAs', args.user);
  rejectUnknownOptions('executeAs', args, EXECUTE_ARGS, { aliases: { query: 'source' } });
  const { schema, source, document, contextValue } = args;
  if ((source === undefined) === (document === undefined)) {
    throw new ConfigurationError('executeAs', 'takes exactly one of source and document');
  }
  if (
    contextValue !== undefined &&
    typeof contextValue !== 'function' &&
    Object.hasOwn(contextValue, 'user')
  ) {
    throw new ConfigurationError(
      'contextValue',
      'must not hold user: the operation runs as the user given to executeAs',
    );
  }
  const [{ execute, parse, validate, GraphQLError }, { createGraphQLContext }] = await Promise.all([
    import('graphql'),
    import('../graphql/context.js'),
  ]);
  let parsed: DocumentNode;
  if (document === undefined) {
    try {
      parsed = parse(source as string);
    } catch (error) {
      if (error instanceof GraphQLError) return { errors: [error] };
      throw error;
    }
  } else parsed = document;
  const errors = validate(schema, parsed);
  if (errors.length > 0) return { errors };
  const security = await createGraphQLContext({ authenticator: fixedUser(args.user) })(
    args.request ?? testRequest('/graphql'),
  );
  const context =
    typeof contextValue === 'function'
      ? contextValue(security)
      : { ...security, ...(contextValue ?? {}) };
  return execute({
    schema,
    document: parsed,
    contextValue: context,
    rootValue: args.rootValue,
    variableValues: args.variableValues,
    operationName: args.operationName,
  });
}
