import type { TRPCMiddlewareBuilder } from '@trpc/server';
import type { AuthenticatedUser } from '../core/authenticated-user.js';

/**
 * The context the portcullis middlewares read: `ctx.user`, the caller or `null`, as
 * {@link createTrpcContext} builds it. Your context may hold more.
 */
export interface UserContext {
  user: AuthenticatedUser | null;
}

/** The context after a guard other than `permitAll()`: `ctx.user` is never `null`. */
export interface AuthenticatedContext {
  user: AuthenticatedUser;
}

/**
 * A guard that lets only an authenticated user through: after it, `ctx.user` is typed
 * `AuthenticatedUser` in the next middlewares and the resolver. Use it with
 * `t.procedure.use(guard)` on any root whose context has `user: AuthenticatedUser | null`.
 */
export type Guard = TRPCMiddlewareBuilder<UserContext, object, AuthenticatedContext, unknown>;

/** `permitAll()`: everyone through; `ctx.user` stays `AuthenticatedUser | null`. */
export type OpenGuard = TRPCMiddlewareBuilder<UserContext, object, UserContext, unknown>;

export type { RightsRequirement } from '../authorization/method-rule.js';
