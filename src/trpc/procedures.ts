import type { TRPCProcedureBuilder, TRPCUnsetMarker } from '@trpc/server';
import { createGuards } from './guards.js';
import type { GuardOptions } from './options.js';
import type { AuthenticatedContext, UserContext } from './types.js';

/** A procedure builder fresh from `t.procedure` with context additions `TOverrides`. */
export type BaseProcedure<TContext, TMeta, TOverrides, TErrorShape> = TRPCProcedureBuilder<
  TContext,
  TMeta,
  TOverrides,
  TRPCUnsetMarker,
  TRPCUnsetMarker,
  TRPCUnsetMarker,
  TRPCUnsetMarker,
  false,
  TErrorShape
>;

/** The procedure builders of {@link createProcedures}. */
export interface Procedures<TContext, TMeta, TErrorShape> {
  /** Everyone, anonymous callers too (`permitAll()`); `ctx.user` may be `null`. */
  readonly publicProcedure: BaseProcedure<TContext, TMeta, UserContext, TErrorShape>;
  /** Any authenticated user (`authenticated()`); `ctx.user` is non-null. */
  readonly protectedProcedure: BaseProcedure<TContext, TMeta, AuthenticatedContext, TErrorShape>;
  /** Users with any one of the roles (`secured(...roles)`); `ctx.user` is non-null. */
  readonly roleProcedure: (
    ...roles: readonly [string, ...string[]]
  ) => BaseProcedure<TContext, TMeta, AuthenticatedContext, TErrorShape>;
  /**
   * Users with any one of the authorities (`preAuthorize({ authority })`); `ctx.user`
   * is non-null.
   */
  readonly authorityProcedure: (
    ...authorities: readonly [string, ...string[]]
  ) => BaseProcedure<TContext, TMeta, AuthenticatedContext, TErrorShape>;
}

/**
 * The procedure builders an app needs, one line per kind of procedure, from a tRPC
 * root whose context has `user` (see {@link createTrpcContext}). The builders
 * are `t.procedure.use(guard)`: add `.input()`, more middlewares and the resolver
 * as usual.
 *
 * @example
 * ```ts
 * import { initTRPC } from '@trpc/server';
 * import { createProcedures, type UserContext } from 'portcullis/trpc';
 *
 * const t = initTRPC.context<UserContext>().create();
 * const { publicProcedure, protectedProcedure, roleProcedure } = createProcedures(t);
 * const adminProcedure = roleProcedure('ADMIN');
 *
 * export const appRouter = t.router({
 *   health: publicProcedure.query(() => 'ok'),
 *   profile: protectedProcedure.query(({ ctx }) => ctx.user.username),
 *   dashboard: adminProcedure.query(() => stats()),
 * });
 * ```
 */
export function createProcedures<TContext extends UserContext, TMeta extends object, TErrorShape>(
  t: { readonly procedure: BaseProcedure<TContext, TMeta, object, TErrorShape> },
  options?: GuardOptions,
): Procedures<TContext, TMeta, TErrorShape> {
  const guards = createGuards(options);
  // The builder's types follow the root's; `use` cannot be resolved on them generically.
  const base = t.procedure as unknown as BaseProcedure<UserContext, object, object, unknown>;
  type Open = Procedures<TContext, TMeta, TErrorShape>['publicProcedure'];
  type Guarded = Procedures<TContext, TMeta, TErrorShape>['protectedProcedure'];
  return Object.freeze({
    publicProcedure: base.use(guards.permitAll()) as unknown as Open,
    protectedProcedure: base.use(guards.authenticated()) as unknown as Guarded,
    roleProcedure: (...roles: readonly [string, ...string[]]) =>
      base.use(guards.secured(...roles)) as unknown as Guarded,
    authorityProcedure: (...authorities: readonly [string, ...string[]]) =>
      base.use(guards.preAuthorize({ authority: authorities })) as unknown as Guarded,
  });
}
