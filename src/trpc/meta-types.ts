import type { CompiledExpression, ExpressionNode } from '../expression/index.js';
import type { RateLimit } from '../throttle/rate-limit.js';
import type { RightsRequirement } from './types.js';

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
