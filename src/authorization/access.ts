import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError } from '../core/errors.js';
import { requireNames } from '../core/validate.js';
import type { PathVariables } from '../expression/path-variables.js';
import {
  compileExpression,
  type CheckExpression,
  type CompiledExpression,
  type ExpressionNode,
} from '../expression/index.js';

/** What an {@link Access} requirement says of a (possibly anonymous) user. */
export type AccessOutcome = 'granted' | 'unauthenticated' | 'forbidden';

/**
 * A compiled {@link Access} requirement: pure and allocation-free; synchronous unless
 * its expression calls an asynchronous function. `path` carries the variables a
 * path-pattern rule captured, for `path.<name>` references (the URL-rule authorizer
 * passes it).
 */
export type AccessCheck = (
  user: AuthenticatedUser | null,
  path?: PathVariables,
) => AccessOutcome | Promise<AccessOutcome>;

/**
 * Why an {@link Access} grants or refuses a user: what {@link Access.explain}
 * answers (debug mode, `npx portcullis explain`).
 */
export interface AccessExplanation {
  /** The same outcome as {@link Access.check}. */
  readonly outcome: AccessOutcome;
  /** The requirement in security-expression syntax (as `toString()`). */
  readonly requirement: string;
  /**
   * The term that decided, in expression syntax: for a refusal the failing term
   * (`hasAnyAuthority('users:write')` of `hasAnyRole('ADMIN') and
   * hasAnyAuthority('users:write')`), for a grant the term that granted.
   */
  readonly term: string;
  /** A custom function of the expression failed (threw, rejected, not a boolean): it denied. */
  readonly functionFailed: boolean;
}

/** The requirement an {@link Access} holds. Private: the expression language adds a variant. */
type AccessState =
  | { readonly kind: 'permitAll' | 'denyAll' | 'authenticated' }
  | { readonly kind: 'expression'; readonly expression: CompiledExpression }
  | {
      readonly kind: 'rights';
      readonly roles: readonly string[] | undefined;
      readonly authorities: readonly string[] | undefined;
    };

const AUTHENTICATED: AccessState = { kind: 'authenticated' };
const NONE: readonly string[] = Object.freeze([]);

/**
 * What a URL rule requires of the user. Immutable: every builder method returns a
 * new `Access`, so one shared instance can never be changed by another caller.
 *
 * - `new Access()` with nothing else requires an authenticated user.
 * - `.roles([...])` requires any one of the roles, `.authorities([...])` any one of
 *   the authorities; when both are set, both must hold. Roles and authorities are
 *   matched exactly and case-sensitively (`'ADMIN'` never looks for `'ROLE_ADMIN'`).
 * - `.permitAll()` lets everyone in, anonymous users too; `.denyAll()` nobody.
 *
 * An anonymous user who is refused gets `'unauthenticated'` (401 or a login redirect:
 * logging in may help), an authenticated one `'forbidden'` (403), as in Spring Security.
 *
 * @example
 * ```ts
 * import { Access } from 'portcullis';
 * const admins = new Access().roles(['ADMIN']);
 * const writers = admins.authorities(['users:write']); // admins is unchanged
 * String(writers); // "hasAnyRole('ADMIN') and hasAnyAuthority('users:write')"
 * ```
 */
export class Access {
  #state: AccessState = AUTHENTICATED;
  #check: AccessCheck = checkAuthenticated;
  #description = 'isAuthenticated()';

  /** A requirement for any authenticated user; narrow it with the builder methods. */
  constructor() {
    Object.freeze(this);
  }

  /** Everyone, anonymous users included. */
  static permitAll(): Access {
    return new Access().permitAll();
  }

  /** Nobody. */
  static denyAll(): Access {
    return new Access().denyAll();
  }

  /** Any authenticated user (the same as `new Access()`). */
  static authenticated(): Access {
    return new Access();
  }

  /** Users with any one of these roles. */
  static roles(roles: Iterable<string>): Access {
    return new Access().roles(roles);
  }

  /** Users with any one of these authorities. */
  static authorities(authorities: Iterable<string>): Access {
    return new Access().authorities(authorities);
  }

  /**
   * A new requirement: the user must hold at least one of these roles.
   * @throws ConfigurationError when the list is empty, already set, or combined with
   * `permitAll()` / `denyAll()`
   */
  roles(roles: Iterable<string>): Access {
    const state = this.#rights('roles');
    if (state.roles) throw new ConfigurationError('roles', 'is already set on this Access');
    return Access.#of({ ...state, roles: nonEmpty('roles', roles) });
  }

  /**
   * A new requirement: the user must hold at least one of these authorities.
   * @throws ConfigurationError when the list is empty, already set, or combined with
   * `permitAll()` / `denyAll()`
   */
  authorities(authorities: Iterable<string>): Access {
    const state = this.#rights('authorities');
    if (state.authorities) {
      throw new ConfigurationError('authorities', 'is already set on this Access');
    }
    return Access.#of({ ...state, authorities: nonEmpty('authorities', authorities) });
  }

  /** A new requirement for an authenticated user (roles and authorities already imply it). */
  authenticated(): Access {
    if (this.#state.kind === 'expression') {
      throw new ConfigurationError('authenticated', 'cannot be combined with expression()');
    }
    if (this.#state.kind === 'permitAll' || this.#state.kind === 'denyAll') {
      throw new ConfigurationError(
        'authenticated',
        `cannot be combined with ${this.#state.kind}()`,
      );
    }
    return Access.#of(this.#state);
  }

  /**
   * A requirement given by a security expression (`hasRole('ADMIN') or
   * hasAuthority('users:write')`), compiled now: a bad expression throws an
   * `ExpressionSyntaxError` with its column when the rule is defined. Takes the
   * text (a string literal is also checked by `tsc`), a tree from `expr`, or an
   * expression compiled with custom functions (an asynchronous one makes the rule
   * asynchronous). URL rules have no `args`: an expression that reads them is refused.
   * They have `path.<name>`: the variables of a path-pattern rule (`/users/{id}` →
   * `path.id == principal.username`); a rule whose pattern does not capture a
   * variable the expression reads is refused when it is added.
   * A user who fails the expression gets 403; an anonymous one, 401 or the login page.
   *
   * @example
   * ```ts
   * new Access().expression("hasRole('ADMIN') and hasAuthority('users:write')");
   * Access.expression(expr.hasAnyRole(...config.adminRoles));
   * ```
   */
  expression<const S extends string>(
    expression: CheckExpression<S> | ExpressionNode | CompiledExpression,
  ): Access {
    if (this.#state.kind !== 'authenticated') {
      throw new ConfigurationError(
        'expression',
        `cannot be combined with ${describeKind(this.#state)}`,
      );
    }
    const compiled = isCompiled(expression)
      ? expression
      : compileExpression(expression as string | ExpressionNode);
    if (compiled.usesArgs) {
      throw new ConfigurationError('expression', 'URL rules have no args to compare');
    }
    return Access.#of({ kind: 'expression', expression: compiled });
  }

  /** A requirement given by a security expression: see {@link Access.expression}. */
  static expression<const S extends string>(
    expression: CheckExpression<S> | ExpressionNode | CompiledExpression,
  ): Access {
    return new Access().expression(expression);
  }

  /** A new requirement that lets everyone in, anonymous users too. */
  permitAll(): Access {
    return Access.#of(this.#exclusive('permitAll'));
  }

  /** A new requirement that lets nobody in. */
  denyAll(): Access {
    return Access.#of(this.#exclusive('denyAll'));
  }

  /**
   * The compiled requirement. Extract it once (`const check = access.check`) and
   * call it per request: it is a closure over precomputed data.
   */
  get check(): AccessCheck {
    return this.#check;
  }

  /**
   * The `path.<name>` variables the requirement reads (empty unless it is an
   * expression that reads some): a URL rule must capture each of them.
   */
  get pathVariables(): readonly string[] {
    return this.#state.kind === 'expression' ? this.#state.expression.pathVariables : NONE;
  }

  /**
   * Why `user` passes or not, with the term that decided (see
   * {@link AccessExplanation}). Slower than {@link Access.check}: for debug mode and
   * tools, not for the per-request path. `path` as for the check.
   *
   * @example
   * ```ts
   * const access = new Access().roles(['ADMIN']).authorities(['users:write']);
   * (await access.explain(alice)).term; // "hasAnyAuthority('users:write')" when alice is an admin without it
   * ```
   */
  async explain(user: AuthenticatedUser | null, path?: PathVariables): Promise<AccessExplanation> {
    const state = this.#state;
    const requirement = this.#description;
    if (state.kind === 'expression' && typeof state.expression.explain === 'function') {
      const explained = await state.expression.explain(user, path);
      return Object.freeze({
        outcome: explained.granted ? 'granted' : denial(user),
        requirement,
        term: explained.term,
        functionFailed: explained.functionFailed,
      });
    }
    const outcome = await this.#check(user, path);
    let term = requirement;
    if (state.kind === 'rights' && outcome !== 'granted') {
      const { roles = [], authorities = [] } = state;
      const rolesHeld = user !== null && holdsAny(user.roles, roles);
      term =
        roles.length > 0 && !rolesHeld
          ? call('hasAnyRole', roles)
          : call('hasAnyAuthority', authorities);
    }
    return Object.freeze({ outcome, requirement, term, functionFailed: false });
  }

  /** The requirement in security-expression syntax, e.g. `hasAnyRole('ADMIN')`. */
  toString(): string {
    return this.#description;
  }

  static #of(state: AccessState): Access {
    const access = new Access();
    access.#state = state;
    [access.#check, access.#description] = compile(state);
    return access;
  }

  #rights(option: string): Extract<AccessState, { kind: 'rights' }> {
    const state = this.#state;
    if (state.kind === 'rights') return state;
    if (state.kind !== 'authenticated') {
      throw new ConfigurationError(option, `cannot be combined with ${describeKind(state)}`);
    }
    return { kind: 'rights', roles: undefined, authorities: undefined };
  }

  #exclusive(kind: 'permitAll' | 'denyAll'): AccessState {
    const state = this.#state;
    if (state.kind !== kind && state.kind !== 'authenticated') {
      throw new ConfigurationError(kind, `cannot be combined with ${describeKind(state)}`);
    }
    return { kind };
  }
}

function nonEmpty(option: 'roles' | 'authorities', values: Iterable<string>): readonly string[] {
  const names = [...new Set(requireNames(option, values))];
  if (names.length === 0) {
    throw new ConfigurationError(
      option,
      `must name at least one ${option === 'roles' ? 'role' : 'authority'}`,
    );
  }
  return Object.freeze(names);
}

function describeKind(state: AccessState): string {
  return state.kind === 'rights' ? 'roles or authorities' : `${state.kind}()`;
}

function isCompiled(value: unknown): value is CompiledExpression {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<CompiledExpression>).evaluate === 'function' &&
    typeof (value as Partial<CompiledExpression>).source === 'string'
  );
}

function expressionCheck(expression: CompiledExpression): AccessCheck {
  if (expression.async) {
    const evaluate = expression.evaluate;
    return (user, path) => evaluate(user, path).then((ok) => (ok ? 'granted' : denial(user)));
  }
  const evaluate = expression.evaluate;
  return (user, path) => (evaluate(user, path) ? 'granted' : denial(user));
}

function denial(user: AuthenticatedUser | null): AccessOutcome {
  return user ? 'forbidden' : 'unauthenticated';
}

function checkAuthenticated(user: AuthenticatedUser | null): AccessOutcome {
  return user ? 'granted' : 'unauthenticated';
}

/**
 * The private evaluator: turns a requirement into its check and description once.
 * A new kind of requirement (a compiled security expression) adds a case here.
 */
function compile(state: AccessState): [AccessCheck, string] {
  switch (state.kind) {
    case 'permitAll':
      return [() => 'granted', 'permitAll'];
    case 'denyAll':
      return [(user) => (user ? 'forbidden' : 'unauthenticated'), 'denyAll'];
    case 'authenticated':
      return [checkAuthenticated, 'isAuthenticated()'];
    case 'expression':
      return [expressionCheck(state.expression), state.expression.source];
    case 'rights': {
      const { roles = [], authorities = [] } = state;
      const check: AccessCheck = (user) => {
        if (!user) return 'unauthenticated';
        if (roles.length > 0 && !holdsAny(user.roles, roles)) return 'forbidden';
        if (authorities.length > 0 && !holdsAny(user.authorities, authorities)) return 'forbidden';
        return 'granted';
      };
      const parts: string[] = [];
      if (roles.length > 0) parts.push(call('hasAnyRole', roles));
      if (authorities.length > 0) parts.push(call('hasAnyAuthority', authorities));
      return [check, parts.join(' and ')];
    }
  }
}

function holdsAny(held: ReadonlySet<string>, wanted: readonly string[]): boolean {
  for (const name of wanted) if (held.has(name)) return true;
  return false;
}

function call(name: string, args: readonly string[]): string {
  return `${name}(${args.map((arg) => `'${arg.replaceAll(/['\\]/gu, '\\$&')}'`).join(', ')})`;
}
