import type { AnyTRPCRouter, inferRouterContext } from '@trpc/server';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError } from '../core/errors.js';
import { rejectUnknownOptions } from '../core/validate.js';
import type { UserContext } from '../trpc/types.js';
import { fixedUser, testRequest, type TestRequest } from './fixed-user.js';
import { requireUserOrNull } from './user-check.js';
import { refuseInProduction } from './production.js';

/** The rest of a router's context: everything but `user`, which the kit fills. */
export type TrpcExtraContext<R extends AnyTRPCRouter> = Omit<inferRouterContext<R>, 'user'>;

/** Options of {@link createTrpcCallerAs}. */
export interface TrpcCallerOptions<R extends AnyTRPCRouter> {
  /**
   * The rest of the context (a database, a logger…), merged into what
   * `createTrpcContext` builds; or a function of that context, returning the whole
   * context (for a `createContext` that nests it).
   */
  readonly context?:
    | TrpcExtraContext<R>
    | ((security: UserContext) => inferRouterContext<R> | Promise<inferRouterContext<R>>);
  /**
   * The request the context is made from, a Fetch `Request` or a node request (its
   * headers and client address reach `rateLimited(… by: 'address')` and the denial
   * events; a Fetch `Request` has no address).
   * @defaultValue a node-style `POST /trpc` from `127.0.0.1`
   */
  readonly request?: TestRequest;
  /**
   * Call a router with procedures that carry no guard, as
   * `createTrpcContext({ dangerouslyAllowUnguardedProcedures: true })` serves it.
   * @defaultValue `false`: the router is checked with `assertSecured` first
   */
  readonly dangerouslyAllowUnguardedProcedures?: boolean;
}

const CALLER_OPTIONS = ['context', 'request', 'dangerouslyAllowUnguardedProcedures'];

/** The caller of a router: `router.createCaller(ctx)`'s type. */
export type TrpcCaller<R extends AnyTRPCRouter> = ReturnType<R['createCaller']>;

/**
 * A server-side caller of `router` (tRPC's `router.createCaller`) acting as `user`
 * (`null`: anonymous). Its context is the one `createTrpcContext({ authenticator,
 * router })` builds in production when the authenticator answers that user, made
 * afresh for each call, so the guards, `permitAll()`, `securityMeta()`, rate limits and
 * the `SecurityContext` behave as they do behind a server: an admin passes, a user
 * without the role gets `FORBIDDEN`, `null` gets `UNAUTHORIZED`. The router is checked
 * with `assertSecured` as `createTrpcContext` does with `router`: a procedure without
 * a guard fails the first call with a `ConfigurationError` (deny by default).
 *
 * `@trpc/server` is loaded on the first call, so importing the kit needs no peer.
 *
 * @example
 * ```ts
 * const caller = createTrpcCallerAs(appRouter, mockUser('ann', { roles: ['ADMIN'] }), {
 *   context: { db },
 * });
 * expect(await caller.admin.dashboard()).toEqual(stats);
 * await expect(createTrpcCallerAs(appRouter, null).profile()).rejects.toMatchObject({
 *   code: 'UNAUTHORIZED',
 * });
 * ```
 * @throws TypeError when `user` is not an `AuthenticatedUser` or `null`
 */
export function createTrpcCallerAs<R extends AnyTRPCRouter>(
  router: R,
  user: AuthenticatedUser | null,
  options: TrpcCallerOptions<R> = {},
): TrpcCaller<R> {
  refuseInProduction('createTrpcCallerAs');
  requireUserOrNull('createTrpcCallerAs', user);
  if (typeof (router as Partial<AnyTRPCRouter> | null)?.createCaller !== 'function') {
    throw new ConfigurationError('router', 'must be a tRPC router (t.router({ ... }))');
  }
  rejectUnknownOptions('createTrpcCallerAs', options, CALLER_OPTIONS, {
    aliases: { ctx: 'context', req: 'request' },
  });
  const { context, request, dangerouslyAllowUnguardedProcedures = false } = options;
  if (context !== undefined && typeof context !== 'function' && 'user' in context) {
    throw new ConfigurationError(
      'context',
      'must not hold user: the caller acts as the user given to createTrpcCallerAs',
    );
  }
  let factory: Promise<(req: TestRequest) => Promise<UserContext>> | undefined;
  const makeFactory = async () => {
    const { createTrpcContext } = await import('../trpc/context.js');
    return createTrpcContext({
      authenticator: fixedUser(user),
      // A caller names no procedure per call (tRPC passes no `info`): the router is
      // checked whole instead, unless unguarded procedures are allowed.
      ...(dangerouslyAllowUnguardedProcedures
        ? { dangerouslyAllowUnguardedProcedures: true }
        : { router }),
    });
  };
  const createContext = async (): Promise<inferRouterContext<R>> => {
    // The router is checked once, on the first call (createTrpcContext with `router`).
    factory ??= makeFactory().then((make) => (req: TestRequest) => make({ req }));
    const security = await (await factory)(request ?? testRequest('/trpc'));
    if (typeof context === 'function') return context(security);
    return { ...security, ...(context ?? {}) };
  };
  return router.createCaller(createContext) as TrpcCaller<R>;
}
