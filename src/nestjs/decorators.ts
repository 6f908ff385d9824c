import {
  SetMetadata,
  createParamDecorator,
  type CustomDecorator,
  type ExecutionContext,
} from '@nestjs/common';
import type { RightsRequirement } from '../authorization/method-rule.js';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import type { CheckExpression, CompiledExpression, ExpressionNode } from '../expression/index.js';
import { requestUser } from './request.js';

/** The metadata key of a portcullis decorator's rule. @internal */
export const RULE_METADATA = 'portcullis:rule';

/**
 * What a decorator records; compiled into a rule when the application starts
 * (`app.init()`), so a bad rule fails the start, never a request.
 *
 * @internal
 */
export type RuleMetadata =
  | { readonly kind: 'roles'; readonly decorator: string; readonly roles: readonly unknown[] }
  | { readonly kind: 'preAuthorize'; readonly rule: unknown }
  | { readonly kind: 'permitAll' }
  | { readonly kind: 'denyAll' }
  | { readonly kind: 'authenticated' };

/** A portcullis decorator: on a handler, or on a controller for each of its handlers (a handler's own wins). */
export type SecurityDecorator = CustomDecorator<typeof RULE_METADATA>;

const rule = (metadata: RuleMetadata): SecurityDecorator =>
  SetMetadata(RULE_METADATA, Object.freeze(metadata));

/**
 * Users holding any one of the roles (SPEC.md's `secured`); anonymous callers get
 * 401, others 403.
 *
 * @example
 * ```ts no-check
 * @Secured('ADMIN')
 * @Get('admin')
 * dashboard() { ... }
 * ```
 */
export function Secured(...roles: readonly [string, ...string[]]): SecurityDecorator {
  return rule({ kind: 'roles', decorator: 'Secured', roles });
}

/** Java EE's `@RolesAllowed`: the same as {@link Secured}. */
export function RolesAllowed(...roles: readonly [string, ...string[]]): SecurityDecorator {
  return rule({ kind: 'roles', decorator: 'RolesAllowed', roles });
}

/**
 * Users who pass a security expression, or who hold `{ role, authority }`. A string
 * literal is checked by `tsc`; every rule is compiled when the application starts
 * (a typo fails `app.init()` with its column). `args` is the handler's request
 * data: the query, then the body (when an object), then the route params, each
 * overriding the one before (`args.id == principal.username`). An anonymous caller
 * gets 401 before the expression runs.
 *
 * @example
 * ```ts no-check
 * @PreAuthorize("hasRole('ADMIN') or args.author == principal.username")
 * @Put('posts/:id')
 * update() { ... }
 * ```
 */
export function PreAuthorize<const S extends string>(
  rule: CheckExpression<S> | ExpressionNode | CompiledExpression | RightsRequirement,
): SecurityDecorator {
  return SetMetadata(RULE_METADATA, Object.freeze({ kind: 'preAuthorize', rule }));
}

/** Everyone, anonymous callers too (the user, when there is one, is still known). */
export function PermitAll(): SecurityDecorator {
  return rule({ kind: 'permitAll' });
}

/** Nobody: 401 when anonymous, else 403. */
export function DenyAll(): SecurityDecorator {
  return rule({ kind: 'denyAll' });
}

/** Any authenticated user (the default policy, said explicitly). */
export function Authenticated(): SecurityDecorator {
  return rule({ kind: 'authenticated' });
}

/**
 * The handler parameter holding the caller (SPEC.md's `AuthenticatedUser`):
 * an `AuthenticatedUser`, or `null` for an anonymous caller of a `@PermitAll()`
 * handler. Behind any other rule it is never `null`.
 *
 * @example
 * ```ts no-check
 * @Get('profile')
 * profile(@CurrentUser() user: AuthenticatedUser) { return user.username; }
 * ```
 */
export const CurrentUser: () => ParameterDecorator = createParamDecorator<
  undefined,
  AuthenticatedUser | null
>((_data: undefined, context: ExecutionContext) => currentUser(context));

/** The caller of the handler `context` runs: what `@CurrentUser()` gives. */
export function currentUser(context: ExecutionContext): AuthenticatedUser | null {
  return requestUser(context);
}
