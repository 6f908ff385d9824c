import type { CheckExpression, CompiledExpression, ExpressionNode } from '../expression/index.js';
import { createGuard, createOpenGuard } from './guard-middleware.js';
import { resolveGuardOptions, type GuardOptions } from './options.js';
import { AUTHENTICATED, DENY_ALL, preAuthorizeRule, rolesRule } from './rule.js';
import type { Guard, OpenGuard, RightsRequirement } from './types.js';

/**
 * The five guards of SPEC.md (and `authenticated()`) as tRPC middlewares, bound to
 * one set of {@link GuardOptions}. Each guard's rule is validated and compiled when
 * the guard is created, i.e. when the procedure is defined; a bad rule throws
 * there, never at call time.
 *
 * Every guard but `permitAll()` refuses an anonymous caller with `UNAUTHORIZED`,
 * then an authenticated one who fails the rule with `FORBIDDEN`, and types
 * `ctx.user` as non-null `AuthenticatedUser` for what follows it. Each fills the
 * `SecurityContext` for the rest of the call.
 */
export interface Guards {
  /** Any authenticated user. */
  readonly authenticated: () => Guard;
  /**
   * Users holding any one of the roles (SPEC.md's `secured`).
   * @throws ConfigurationError without a role, or with an empty or non-string one
   */
  readonly secured: (...roles: readonly [string, ...string[]]) => Guard;
  /** Users holding any one of the roles (Java EE's `@RolesAllowed`): the same as {@link Guards.secured}. */
  readonly rolesAllowed: (...roles: readonly [string, ...string[]]) => Guard;
  /**
   * Users who pass a security expression (text, tree from `expr`, or compiled with
   * custom functions), or who hold `{ role, authority }`. The expression is
   * compiled once, now; a string literal is also checked by `tsc`. Placed after
   * `.input(...)`, the expression reads the parsed input as `args`; placed before
   * it, `args` is `undefined` and every `args.*` comparison is false.
   *
   * An anonymous caller is refused with `UNAUTHORIZED` before the expression runs,
   * so `ctx.user` is non-null after it; use `permitAll()` for public procedures.
   *
   * @throws ExpressionSyntaxError for a bad expression, with its column
   * @throws ConfigurationError for a malformed `{ role, authority }`
   */
  readonly preAuthorize: <const S extends string>(
    rule: CheckExpression<S> | ExpressionNode | CompiledExpression | RightsRequirement,
  ) => Guard;
  /** Everyone, anonymous callers too; only fills the `SecurityContext`. `ctx.user` stays nullable. */
  readonly permitAll: () => OpenGuard;
  /** Nobody: `UNAUTHORIZED` when anonymous, else `FORBIDDEN`. */
  readonly denyAll: () => Guard;
}

/**
 * Creates the guards with options: `debug` (show the rule in denial messages) and
 * `events` (where `access-denied` events go). The top-level `authenticated`,
 * `secured`, ... exports are `createGuards()` with the defaults.
 *
 * @example
 * ```ts
 * import { createGuards } from 'portcullis/trpc';
 * const { secured, preAuthorize } = createGuards({ debug: process.env.NODE_ENV === 'development' });
 * const adminProcedure = t.procedure.use(secured('ADMIN'));
 * ```
 */
export function createGuards(options?: GuardOptions): Guards {
  const settings = resolveGuardOptions(options, [], 'createGuards');
  const secured = (...roles: readonly string[]): Guard => createGuard(rolesRule(roles), settings);
  return Object.freeze({
    authenticated: () => createGuard(AUTHENTICATED, settings),
    secured,
    rolesAllowed: secured,
    preAuthorize: (rule: unknown) => createGuard(preAuthorizeRule(rule), settings),
    permitAll: () => createOpenGuard(settings),
    denyAll: () => createGuard(DENY_ALL, settings),
  });
}

const defaults = createGuards();

/**
 * Lets any authenticated user through; `ctx.user` is non-null after it.
 *
 * @example
 * ```ts
 * const me = t.procedure.use(authenticated()).query(({ ctx }) => ctx.user.username);
 * ```
 */
export const authenticated: Guards['authenticated'] = defaults.authenticated;

/**
 * Lets users holding any one of the roles through (SPEC.md's `secured`).
 *
 * @example
 * ```ts
 * const dashboard = t.procedure.use(secured('ADMIN')).query(() => stats());
 * ```
 */
export const secured: Guards['secured'] = defaults.secured;

/** Java EE's `@RolesAllowed`: the same as {@link secured}. */
export const rolesAllowed: Guards['rolesAllowed'] = defaults.rolesAllowed;

/**
 * Lets users who pass a security expression, or hold `{ role, authority }`, through.
 * Put it after `.input(...)` when the expression reads `args`.
 *
 * @example
 * ```ts
 * const update = t.procedure
 *   .input(z.object({ authorId: z.string(), text: z.string() }))
 *   .use(preAuthorize("hasRole('ADMIN') or args.authorId == principal.username"))
 *   .mutation(({ input, ctx }) => posts.update(input, ctx.user));
 * const create = t.procedure.use(preAuthorize({ authority: 'posts:write' })).mutation(...);
 * ```
 */
export const preAuthorize: Guards['preAuthorize'] = defaults.preAuthorize;

/** Lets everyone through (anonymous callers too) and fills the `SecurityContext`. */
export const permitAll: Guards['permitAll'] = defaults.permitAll;

/** Lets nobody through. */
export const denyAll: Guards['denyAll'] = defaults.denyAll;
