/**
 * tRPC integration (`portcullis/trpc`, peer `@trpc/server` ^11): the context user
 * from any authenticator, SPEC.md's guards as procedure middlewares that narrow
 * `ctx.user`, procedure builders, meta-driven checks with deny-by-default, and a
 * start-up check that every procedure is secured, and rate limits on procedures
 * (`rateLimited`). Denials are `TRPCError`s `UNAUTHORIZED` / `FORBIDDEN`, a rate
 * limit's refusal `TOO_MANY_REQUESTS`.
 *
 * @module portcullis/trpc
 */
export type { DefaultPolicy } from '../authorization/default-policy.js';
export { assertSecured, type AssertSecuredOptions } from './assert-secured.js';
export {
  securityResponseMeta,
  type ResponseMetaLike,
  type ResponseMetaOptionsLike,
} from './challenge.js';
export { createTrpcContext, type TrpcContextFactory, type TrpcContextOptions } from './context.js';
export {
  authenticated,
  createGuards,
  denyAll,
  permitAll,
  preAuthorize,
  rolesAllowed,
  secured,
  type Guards,
} from './guards.js';
export {
  securityMeta,
  type AuthMeta,
  type SecurityMeta,
  type SecurityMetaMiddleware,
  type SecurityMetaOptions,
} from './security-meta.js';
export type { GuardOptions } from './options.js';
export { createProcedures, type BaseProcedure, type Procedures } from './procedures.js';
export { rateLimited, type RateLimitMiddleware } from './rate-limited.js';
export type {
  ConnectionParams,
  ContextOptionsLike,
  FastifyRequestLike,
  NodeRequestLike,
} from './request.js';
export type {
  AuthenticatedContext,
  Guard,
  OpenGuard,
  RightsRequirement,
  UserContext,
} from './types.js';
