import { AuthenticatedUser } from '../core/authenticated-user.js';
import { debugOption } from '../core/debug.js';
import { ConfigurationError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import type { ExpressionFunctions } from '../expression/index.js';
import { isPromiseLike } from '../lib/promise.js';
import { requireDefaultPolicy, type DefaultPolicy } from '../authorization/default-policy.js';
import { rejectUnknownOptions } from '../core/validate.js';
import type { RateLimit } from '../throttle/rate-limit.js';
import { resolveRateLimits } from './rate-limits.js';

/** What a user getter may return: the user, nothing (anonymous), or a promise of either. */
export type UserLike =
  AuthenticatedUser | null | undefined | PromiseLike<AuthenticatedUser | null | undefined>;

/** A denial, as {@link SecurityDirectivesOptions.createError} receives it. */
export interface GraphQLDenial {
  /** `UNAUTHENTICATED` for an anonymous caller, `FORBIDDEN` for an authenticated one. */
  readonly code: 'UNAUTHENTICATED' | 'FORBIDDEN';
  /** 401 or 403. */
  readonly status: 401 | 403;
  /** The field's schema coordinate, e.g. `Query.adminDashboard`. */
  readonly coordinate: string;
  /** The rule that denied, in expression syntax (for logs; do not show it to clients). */
  readonly rule: string;
  /**
   * The response path of the field, e.g. `['posts', 0, 'author']` (from the operation
   * check, which runs before any list exists: field names and aliases only).
   */
  readonly path: readonly (string | number)[];
  /** The default message (with the rule when `debug` is on). */
  readonly message: string;
}

/** Options of {@link securityDirectives}. */
export interface SecurityDirectivesOptions {
  /**
   * The rule of fields without a security directive (directly, on their type or an
   * interface): `'authenticated'` (deny by default: any authenticated user),
   * `'denyAll'` (nobody), or `'permitAll'` (everyone: a forgotten directive leaves
   * the field open, so choose it knowingly; `@permitAll` on the fields that are
   * public is the safer way). Introspection (`__schema`, `__type`, `__typename`)
   * and Apollo Federation's `_service` / `_entities` stay reachable.
   * @defaultValue `'authenticated'`
   */
  readonly defaultPolicy?: DefaultPolicy;
  /**
   * Where the user is in the GraphQL context. Anything but an `AuthenticatedUser`
   * (or a promise of one) counts as anonymous.
   * @defaultValue `(context) => context.user`, as filled by `createGraphQLContext`
   */
  readonly user?: (context: unknown) => UserLike;
  /** Custom functions for `@preAuthorize` expressions (see `compileExpression`). */
  readonly functions?: ExpressionFunctions;
  /**
   * Debug mode: show the denying rule in error messages, and put the requirement and
   * its failing term in the `access-denied` event (`expression`, `failingTerm`; the
   * event then comes just after the denial). Development only: it tells clients how
   * the schema is protected. Refused with `NODE_ENV=production` (a
   * `ConfigurationError`).
   * @defaultValue `false`
   */
  readonly debug?: boolean;
  /**
   * Where `access-denied` (and custom-function `expression-error`) events go.
   * @defaultValue `securityEvents`
   */
  readonly events?: SecurityEvents;
  /**
   * Builds the error of a denial, to change its message or extensions. The default
   * is a `GraphQLError` with `extensions: { code, http: { status } }`. A function
   * that throws or returns no `Error` falls back to the default.
   */
  readonly createError?: (denial: GraphQLDenial) => Error;
  /**
   * The rate limits the schema's `@rateLimit(limit: "<name>")` directives name (see
   * `rateLimit`): `{ search: rateLimit({ window: '1m', max: 30, by: 'user' }) }`. With
   * it, `typeDefs` also define `@rateLimit`, and the transformer refuses a name that
   * is not here. Each resolution of a limited field counts (aliases and list items
   * included), before its security rule, so refused ones count too; past the limit
   * the field answers `extensions.code` `TOO_MANY_REQUESTS` (HTTP 429, `Retry-After`).
   * @defaultValue none: `@rateLimit` is not defined nor read
   */
  readonly rateLimits?: Readonly<Record<string, RateLimit>>;
  /**
   * Run a guarded field's resolver (and a subscription's stream) with the user in
   * `SecurityContext`. The context's user is there either way; off,
   * `SecurityContext.getUser()` in a guarded resolver is what the HTTP adapter put
   * there, if anything (`null` without one). On by default on every runtime, because
   * only then is `SecurityContext` right in resolvers. Its cost depends on what
   * `AsyncLocalStorage` runs on: on Node 24 (AsyncContextFrame) a frame per guarded
   * field; on Node 20 and 22 (promise hooks, unless Node 22 runs with
   * `--experimental-async-context-frame`) the hooks, once on, slow every promise of
   * the process: some 70 µs on the benchmark query through graphql-http in process
   * (`npm run bench -- graphql-inprocess`), more than the directives' own work.
   * Switch it off there when resolvers read the context's user only.
   * @defaultValue `true`
   */
  readonly securityContext?: boolean;
}

/** The validated options. @internal */
export interface Settings {
  readonly defaultPolicy: DefaultPolicy;
  readonly userOf: (
    context: unknown,
  ) => AuthenticatedUser | null | Promise<AuthenticatedUser | null>;
  readonly functions: ExpressionFunctions | undefined;
  readonly debug: boolean;
  readonly events: SecurityEvents;
  readonly createError: ((denial: GraphQLDenial) => Error) | undefined;
  /** The named rate limits, when the option is given. */
  readonly rateLimits: ReadonlyMap<string, RateLimit> | undefined;
  readonly securityContext: boolean;
}

const KNOWN = [
  'defaultPolicy',
  'user',
  'functions',
  'debug',
  'events',
  'createError',
  'rateLimits',
  'securityContext',
];

/** Validates the options of `securityDirectives`. @internal */
export function resolveSettings(options: SecurityDirectivesOptions | undefined): Settings {
  if (options === undefined) return DEFAULTS;
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknownOptions('securityDirectives', options, KNOWN);
  const {
    defaultPolicy = 'authenticated',
    user,
    functions,
    debug = false,
    events = securityEvents,
    createError,
    rateLimits,
    securityContext = true,
  } = options;
  const policy = requireDefaultPolicy(defaultPolicy);
  if (user !== undefined && typeof user !== 'function') {
    throw new ConfigurationError('user', 'must be a function (context) => user');
  }
  if (
    functions !== undefined &&
    (typeof functions !== 'object' || (functions as unknown) === null)
  ) {
    throw new ConfigurationError('functions', 'must be an object of custom functions');
  }
  debugOption(debug);
  if (typeof securityContext !== 'boolean') {
    throw new ConfigurationError('securityContext', 'must be a boolean');
  }
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  if (createError !== undefined && typeof createError !== 'function') {
    throw new ConfigurationError('createError', 'must be a function (denial) => Error');
  }
  return Object.freeze({
    defaultPolicy: policy,
    userOf: user === undefined ? defaultUserOf : customUserOf(user),
    functions,
    debug,
    events,
    createError,
    rateLimits: resolveRateLimits(rateLimits),
    securityContext,
  });
}

/** `context.user`, when it is an `AuthenticatedUser`. */
function defaultUserOf(context: unknown): AuthenticatedUser | null {
  const user = (context as { user?: unknown } | null | undefined)?.user;
  return user instanceof AuthenticatedUser ? user : null;
}

function customUserOf(getter: (context: unknown) => UserLike): Settings['userOf'] {
  return (context) => {
    const user = getter(context);
    if (user instanceof AuthenticatedUser) return user;
    if (isPromiseLike(user)) {
      return Promise.resolve(user).then((u) => (u instanceof AuthenticatedUser ? u : null));
    }
    return null;
  };
}

const DEFAULTS: Settings = Object.freeze({
  defaultPolicy: 'authenticated',
  userOf: defaultUserOf,
  functions: undefined,
  debug: false,
  events: securityEvents,
  createError: undefined,
  rateLimits: undefined,
  securityContext: true,
});
