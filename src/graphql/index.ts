/**
 * GraphQL SDL directives (`@secured`, `@rolesAllowed`, `@preAuthorize`,
 * `@permitAll`, `@denyAll`, `@authenticated`) backed by the security-expression
 * language: a graphql-tools style `{ typeDefs, transformer }`, a context helper
 * that fills `context.user` from any `Authenticator`, and an optional
 * all-or-nothing operation check, and `@rateLimit` on fields. Needs the optional peers `graphql` and
 * `@graphql-tools/utils`.
 *
 * @module portcullis/graphql
 */
export type { DefaultPolicy } from '../authorization/default-policy.js';
export {
  createGraphQLContext,
  type GraphQLContextFactory,
  type GraphQLContextInput,
  type GraphQLContextOptions,
  type GraphQLUserContext,
} from './context.js';
export { securityDirectivesTypeDefs, type SecurityDirectiveName } from './directives.js';
export {
  SchemaSecurityError,
  type SchemaLocation,
  type SchemaSecurityProblem,
  type SchemaSecurityProblemCode,
} from './errors.js';
export {
  checkOperation,
  useOperationCheck,
  withOperationCheck,
  type EnvelopHookPayload,
  type ExecuteLike,
  type OperationArgs,
  type OperationCheckPlugin,
} from './operation.js';
export type { GraphQLDenial, SecurityDirectivesOptions, UserLike } from './options.js';
export { rateLimitDirectiveTypeDefs } from './rate-limits.js';
export { graphqlHttpContext, type GraphQLHttpResponse } from './unavailable.js';
export { checkSchemaSecurity, securityDirectives, type SecurityDirectives } from './transformer.js';
