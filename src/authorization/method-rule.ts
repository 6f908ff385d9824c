import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError } from '../core/errors.js';
import type { AccessDeniedEvent, SecurityEvents } from '../core/events.js';
import { Access } from './access.js';
import {
  compileExpression,
  type CompiledExpression,
  type ExpressionNode,
} from '../expression/index.js';
import { isPromiseLike } from '../lib/promise.js';
import { didYouMean } from '../lib/suggest.js';

/**
 * What `preAuthorize({ ... })` accepts besides an expression: any one of the roles
 * and any one of the authorities; when both are given, both must hold.
 */
export interface RightsRequirement {
  /** A role or several (any one of them). */
  readonly role?: string | readonly string[];
  /** An authority or several (any one of them). */
  readonly authority?: string | readonly string[];
}

/**
 * A compiled method-security rule (tRPC guards, NestJS decorators). Every rule but `permitAll` needs an authenticated user:
 * the guard answers `UNAUTHORIZED` before `check` runs when there is none.
 *
 * @internal
 */
export interface Rule {
  /** The rule in expression syntax, for events and debug messages. */
  readonly description: string;
  /** Whether the rule reads the procedure's input (`args.*`). */
  readonly usesArgs: boolean;
  /** Whether the authenticated user passes, with the procedure's input as `args`. */
  readonly check: (user: AuthenticatedUser, args: unknown) => boolean | PromiseLike<boolean>;
  /**
   * Debug mode: the term of the rule that decided (for a denial, the failing term);
   * absent where the rule is one term.
   */
  readonly explain?: (user: AuthenticatedUser | null, args: unknown) => Promise<string>;
}

/** `authenticated()`: any authenticated user. @internal */
export const AUTHENTICATED: Rule = Object.freeze({
  description: 'isAuthenticated()',
  usesArgs: false,
  check: () => true,
});

/** `denyAll()`: nobody. @internal */
export const DENY_ALL: Rule = Object.freeze({
  description: 'denyAll()',
  usesArgs: false,
  check: () => false,
});

/** Any one of the roles (`secured`, `rolesAllowed`). @internal */
export function rolesRule(roles: readonly unknown[]): Rule {
  return accessRule(Access.roles(roles as readonly string[]));
}

/** The rule of `preAuthorize(...)`: an expression (text, tree or compiled) or rights. @internal */
export function preAuthorizeRule(value: unknown): Rule {
  if (typeof value === 'string') return expressionRule(compileExpression(value));
  if (typeof value !== 'object' || value === null) {
    throw new ConfigurationError(
      'preAuthorize',
      'must be an expression, an expression tree, a compiled expression or { role, authority }',
    );
  }
  if (isCompiled(value)) return expressionRule(value);
  if ('type' in value) return expressionRule(compileExpression(value as ExpressionNode));
  return rightsRule(value);
}

const RIGHTS = ['role', 'authority'];

function rightsRule(requirement: object): Rule {
  for (const key of Object.keys(requirement)) {
    if (!RIGHTS.includes(key)) {
      throw new ConfigurationError(
        key,
        `is not a key of preAuthorize({ role, authority })${didYouMean(key, RIGHTS)}`,
      );
    }
  }
  const { role, authority } = requirement as RightsRequirement;
  if (role === undefined && authority === undefined) {
    throw new ConfigurationError('preAuthorize', 'must name a role or an authority');
  }
  let access = new Access();
  if (role !== undefined) access = access.roles(listOf(role));
  if (authority !== undefined) access = access.authorities(listOf(authority));
  return accessRule(access);
}

function listOf(value: string | readonly string[]): readonly string[] {
  return typeof value === 'string' ? [value] : value;
}

function accessRule(access: Access): Rule {
  const check = access.check;
  return Object.freeze({
    description: String(access),
    explain: (user: AuthenticatedUser | null) =>
      access.explain(user).then((explained) => explained.term),
    usesArgs: false,
    check: (user: AuthenticatedUser) => {
      const outcome = check(user);
      return isPromiseLike(outcome)
        ? Promise.resolve(outcome).then((o) => o === 'granted')
        : outcome === 'granted';
    },
  });
}

function expressionRule(expression: CompiledExpression): Rule {
  // Only URL rules capture path variables; here `path.x` would always be missing. (A
  // hand-made compiled expression may not list them.)
  const pathVariables = (expression.pathVariables as readonly string[] | undefined) ?? [];
  if (pathVariables.length > 0) {
    throw new ConfigurationError(
      'preAuthorize',
      `${pathVariables.map((name) => `path.${name}`).join(', ')}: a procedure or handler has no path variables (they come from URL rules' path patterns); use args`,
    );
  }
  const evaluate = expression.evaluate;
  return Object.freeze({
    description: expression.source,
    usesArgs: expression.usesArgs,
    // A hand-made compiled expression may have no explain.
    ...(typeof expression.explain === 'function'
      ? {
          explain: (user: AuthenticatedUser | null, args: unknown) =>
            expression.explain(user, args).then((explained) => explained.term),
        }
      : {}),
    check: (user: AuthenticatedUser, args: unknown) => evaluate(user, args),
  });
}

/** Whether a value is a compiled expression (from `compileExpression`). @internal */
export function isCompiled(value: unknown): value is CompiledExpression {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<CompiledExpression>).evaluate === 'function' &&
    typeof (value as Partial<CompiledExpression>).source === 'string'
  );
}

/**
 * Debug mode: publishes a denial's `access-denied` event with the requirement
 * (`expression`) and, once `explain` answers, the term that failed (`failingTerm`).
 * The denial itself does not wait for it: the event comes just after. Never throws.
 *
 * @internal
 */
export function publishExplained(
  events: Pick<SecurityEvents, 'publish'>,
  event: AccessDeniedEvent,
  expression: string,
  explain: (() => Promise<string>) | undefined,
): void {
  const withExpression: AccessDeniedEvent = { ...event, expression };
  if (explain === undefined) {
    events.publish({ ...withExpression, failingTerm: expression });
    return;
  }
  let explained: Promise<string>;
  try {
    explained = explain();
  } catch {
    events.publish(withExpression);
    return;
  }
  explained.then(
    (failingTerm) => {
      events.publish({ ...withExpression, failingTerm });
    },
    () => {
      events.publish(withExpression);
    },
  );
}
