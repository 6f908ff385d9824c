import { TRPCError, initTRPC, type TRPCMiddlewareBuilder } from '@trpc/server';
import { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError } from '../core/errors.js';
import { didYouMean } from '../lib/suggest.js';
import { requireDefaultPolicy, type DefaultPolicy } from '../authorization/default-policy.js';
import type { CompiledExpression, ExpressionNode } from '../expression/index.js';
import { authorize, nextWith, runAs, userOf } from './guard-middleware.js';
import { resolveGuardOptions, type GuardOptions } from './options.js';
import { AUTHENTICATED, DENY_ALL, preAuthorizeRule, rolesRule, type Rule } from './rule.js';
import type { RightsRequirement, UserContext } from './types.js';
import type { RateLimit } from '../throttle/rate-limit.js';
import { countCall, metaRateLimits } from './rate-limited.js';

interface NoAuthKeys {
  readonly permitAll?: never;
  readonly denyAll?: never;
  readonly authenticated?: never;
  readonly secured?: never;
  readonly rolesAllowed?: never;
  readonly preAuthorize?: never;
}

/** One key of {@link AuthMeta}, the others excluded. */
type OneOf<K extends keyof NoAuthKeys, V> = Omit<NoAuthKeys, K> & { readonly [P in K]: V };

/**
 * The security of a procedure in meta mode, exactly one of:
 * `{ permitAll: true }`, `{ denyAll: true }`, `{ authenticated: true }`,
 * `{ secured: 'ADMIN' | ['ADMIN', 'OPS'] }` (any one of the roles), `{ rolesAllowed: … }`
 * (the same), `{ preAuthorize: "expression" | tree | compiled | { role, authority } }`.
 *
 * An expression given as text is compiled on the first call (or at start-up by
 * {@link assertSecured}); give a `compileExpression(...)` result to have it compiled
 * and checked by `tsc` where the procedure is defined.
 */
export type AuthMeta =
  | OneOf<'permitAll', true>
  | OneOf<'denyAll', true>
  | OneOf<'authenticated', true>
  | OneOf<'secured', string | readonly string[]>
  | OneOf<'rolesAllowed', string | readonly string[]>
  | OneOf<'preAuthorize', string | ExpressionNode | CompiledExpression | RightsRequirement>;

/**
 * The procedure metadata {@link securityMeta} reads: declare it on the root with
 * `initTRPC.context<Ctx>().meta<SecurityMeta>()` (or a type that extends it).
 *
 * @example
 * ```ts
 * const t = initTRPC.context<UserContext>().meta<SecurityMeta>().create();
 * const procedure = t.procedure.use(securityMeta());
 * const list = procedure.meta({ auth: { preAuthorize: "hasAuthority('posts:read')" } }).query(...);
 * ```
 */
export interface SecurityMeta {
  auth?: AuthMeta;
  /**
   * Rate limits each call counts against, before `auth` is checked (refused calls
   * count too); past one, `TOO_MANY_REQUESTS`. See `rateLimited`.
   */
  rateLimit?: RateLimit | readonly RateLimit[];
}

/** Options of {@link securityMeta}. */
export interface SecurityMetaOptions extends GuardOptions {
  /**
   * The rule of a procedure without `meta.auth`: `'denyAll'` refuses every call
   * (`UNAUTHORIZED` when anonymous, else `FORBIDDEN`), so no procedure is forgotten;
   * `'authenticated'` lets any user through; `'permitAll'` everyone. To make a
   * missing annotation a start-up error instead, call {@link assertSecured} on the router.
   * (tRPC's `'deny'` before 1.0 is refused with a "did you mean `'denyAll'`").
   * @defaultValue `'denyAll'`
   */
  readonly defaultPolicy?: DefaultPolicy;
}

/** The middleware {@link securityMeta} returns. */
export type SecurityMetaMiddleware = TRPCMiddlewareBuilder<
  UserContext,
  SecurityMeta,
  UserContext,
  unknown
>;

const root = initTRPC.context<UserContext>().meta<SecurityMeta>().create({ isServer: true });

/** The middleware functions {@link securityMeta} made (for {@link assertSecured}). @internal */
export const metaMiddlewares = new WeakSet<object>();

const POLICIES: Readonly<Record<DefaultPolicy, Rule | null>> = {
  denyAll: Object.freeze({ ...DENY_ALL, description: 'denyAll() (no security metadata)' }),
  authenticated: Object.freeze({
    ...AUTHENTICATED,
    description: 'isAuthenticated() (no security metadata)',
  }),
  permitAll: null,
};

/**
 * One global middleware that enforces each procedure's `meta.auth` ({@link AuthMeta}),
 * for teams that prefer annotations to per-procedure guards. A rule is compiled once
 * per distinct `auth` object and cached. A procedure without `meta.auth` gets the
 * `defaultPolicy` (deny by default); {@link assertSecured} turns a missing or invalid
 * annotation into a start-up error.
 *
 * `ctx.user` keeps its nullable type (the rule is data, not a type); the
 * `SecurityContext` is filled for the call. The middleware runs where it is placed:
 * as the base procedure's first middleware an expression's `args` is `undefined`
 * (every `args.*` comparison is false); use a `preAuthorize` guard after `.input()`
 * for rules on the input.
 *
 * @throws ConfigurationError for invalid options
 *
 * @example
 * ```ts
 * const t = initTRPC.context<UserContext>().meta<SecurityMeta>().create();
 * const procedure = t.procedure.use(securityMeta({ defaultPolicy: 'denyAll' }));
 * export const appRouter = t.router({
 *   health: procedure.meta({ auth: { permitAll: true } }).query(() => 'ok'),
 *   dashboard: procedure.meta({ auth: { secured: 'ADMIN' } }).query(() => stats()),
 * });
 * assertSecured(appRouter); // at start-up: every procedure annotated, every rule valid
 * ```
 */
export function securityMeta(options?: SecurityMetaOptions): SecurityMetaMiddleware {
  const settings = resolveGuardOptions(options, ['defaultPolicy'], 'securityMeta');
  const fallback = POLICIES[requireDefaultPolicy(options?.defaultPolicy ?? 'denyAll')];
  const middleware = root.middleware((opts) => {
    const limits = opts.meta?.rateLimit;
    if (limits === undefined) return check(opts);
    // Counted before the rule, so refused calls count too.
    const counted = countCall(cachedLimits(limits), opts.ctx);
    return counted === undefined ? check(opts) : counted.then(() => check(opts));
  });
  for (const fn of middleware._middlewares) metaMiddlewares.add(fn);
  return middleware;

  function check(opts: MetaCall): ReturnType<MetaCall['next']> {
    const proceed = (user: AuthenticatedUser | null) =>
      runAs(user, opts.type, () => nextWith(opts, user), settings.securityContext);
    const auth = opts.meta?.auth;
    // An invalid annotation or a synchronous denial throws here; tRPC turns it into the call's error.
    const rule = auth === undefined ? fallback : cachedRule(auth);
    if (rule === null) return proceed(userOf(opts.ctx));
    const user = authorize(rule, settings, opts);
    return user instanceof AuthenticatedUser ? proceed(user) : user.then(proceed);
  }
}

/** What the meta middleware receives from tRPC. */
type MetaCall = Parameters<Parameters<typeof root.middleware>[0]>[0];

/** The validated limits of a `meta.rateLimit` value (an invalid one: the call's error). */
function cachedLimits(value: unknown): readonly RateLimit[] {
  try {
    return metaRateLimits(value) ?? [];
  } catch (error) {
    return invalid(error);
  }
}

type CacheEntry = { readonly rule: Rule | null } | { readonly error: unknown };

const cache = new WeakMap<object, CacheEntry>();

/**
 * The rule of an `auth` object, compiled on first use. An invalid annotation is a
 * server misconfiguration, not a denial: the call fails with `INTERNAL_SERVER_ERROR`
 * (run {@link assertSecured} at start-up to find it before any call).
 */
function cachedRule(auth: unknown): Rule | null {
  if (typeof auth !== 'object' || auth === null) return invalid(auth);
  let entry = cache.get(auth);
  if (!entry) {
    try {
      entry = { rule: ruleOfAuth(auth) };
    } catch (error) {
      entry = { error };
    }
    cache.set(auth, entry);
  }
  return 'rule' in entry ? entry.rule : invalid(entry.error);
}

function invalid(cause: unknown): never {
  throw new TRPCError({
    code: 'INTERNAL_SERVER_ERROR',
    message: 'The security metadata of this procedure is invalid',
    cause,
  });
}

const KEYS = ['permitAll', 'denyAll', 'authenticated', 'secured', 'rolesAllowed', 'preAuthorize'];

/**
 * Validates and compiles an `auth` annotation: the rule, or `null` for `permitAll`.
 *
 * @throws ConfigurationError or ExpressionSyntaxError
 * @internal
 */
export function ruleOfAuth(auth: unknown): Rule | null {
  if (typeof auth !== 'object' || auth === null || Array.isArray(auth)) {
    throw new ConfigurationError('meta.auth', 'must be an object with one security key');
  }
  const keys = Object.keys(auth);
  for (const key of keys) {
    if (!KEYS.includes(key)) {
      throw new ConfigurationError(
        `meta.auth.${key}`,
        `is not a security key${didYouMean(key, KEYS)}`,
      );
    }
  }
  const [key] = keys;
  if (key === undefined || keys.length > 1) {
    throw new ConfigurationError('meta.auth', `must have exactly one of ${KEYS.join(', ')}`);
  }
  const value = (auth as Record<string, unknown>)[key];
  switch (key) {
    case 'permitAll':
    case 'denyAll':
    case 'authenticated':
      if (value !== true) throw new ConfigurationError(`meta.auth.${key}`, 'must be true');
      return key === 'permitAll' ? null : key === 'denyAll' ? DENY_ALL : AUTHENTICATED;
    case 'secured':
    case 'rolesAllowed':
      return rolesRule(typeof value === 'string' ? [value] : toArray(`meta.auth.${key}`, value));
    default:
      return preAuthorizeRule(value);
  }
}

function toArray(option: string, value: unknown): readonly unknown[] {
  if (!Array.isArray(value))
    throw new ConfigurationError(option, 'must be a role or an array of roles');
  return value;
}
