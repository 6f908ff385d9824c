import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError, DeadlineExceededError } from '../core/errors.js';
import type { ExpressionNode } from './ast.js';
import { compileNode, pathVariableNames, readsArgs } from './compile-node.js';
import { explainNode, type ExpressionExplanation } from './explain.js';
import type { CheckExpression } from './expression-types.js';
import type { FunctionSignatures } from './functions.js';
import type { MaybeAsyncCheck } from './logic.js';
import {
  resolveOptions,
  type CompileExpressionOptions,
  type ParseExpressionOptions,
  type UncheckedOptions,
} from './options.js';
import { parse } from './parser.js';
import { printExpression } from './print.js';
import type { Check } from './rights.js';

interface CompiledExpressionBase {
  /** The canonical text of the expression (see {@link printExpression}). */
  readonly source: string;
  /** Whether the expression reads `args` (callers without arguments may skip building them). */
  readonly usesArgs: boolean;
  /**
   * The `path.<name>` variables the expression reads (URL rules with a path pattern
   * capture them); empty when it reads none.
   */
  readonly pathVariables: readonly string[];
  /** The validated syntax tree (frozen). */
  readonly ast: ExpressionNode;
  /** The canonical text, as {@link CompiledExpressionBase.source}. */
  toString(): string;
  /**
   * Why the user passes or not: the same answer as `evaluate`, with the term that
   * decided (for a denial, the failing term). Walks the tree leaf by leaf, so it is
   * slower than `evaluate`: for debug mode and `npx portcullis explain`, not for the
   * per-request path. A custom function runs again when it is called.
   *
   * @example
   * ```ts
   * const rule = compileExpression("hasRole('USER') and hasAuthority('posts:write')");
   * await rule.explain(user); // { granted: false, term: "hasAuthority('posts:write')", functionFailed: false }
   * ```
   */
  explain(user: AuthenticatedUser | null, args?: unknown): Promise<ExpressionExplanation>;
}

/**
 * A compiled expression that calls no asynchronous function: `evaluate` answers at
 * once, allocates nothing and never throws.
 */
export interface SyncCompiledExpression extends CompiledExpressionBase {
  readonly async: false;
  /**
   * Whether the user (`null` for anonymous) passes, with `args` (the tRPC input,
   * the GraphQL field arguments) for `args.*` references. Never throws: a failing
   * custom function denies.
   */
  readonly evaluate: (user: AuthenticatedUser | null, args?: unknown) => boolean;
}

/** A compiled expression that calls an asynchronous custom function. */
export interface AsyncCompiledExpression extends CompiledExpressionBase {
  readonly async: true;
  /**
   * Whether the user (`null` for anonymous) passes, with `args` for `args.*`
   * references. A failing custom function denies; the one rejection is a
   * `DeadlineExceededError` when a function passes its `timeoutMs` (fail closed: 503,
   * not a denial).
   */
  readonly evaluate: (user: AuthenticatedUser | null, args?: unknown) => Promise<boolean>;
}

/** A compiled security expression; branch on `async` for the type of `evaluate`. */
export type CompiledExpression = SyncCompiledExpression | AsyncCompiledExpression;

/** No custom functions (what `F` is when `functions` is not given). */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- an empty map of functions is meant
type NoFunctions = Record<never, never>;

/**
 * Without custom functions an expression is synchronous; with them it may not be
 * (branch on `async`).
 */
export type CompiledExpressionOf<F extends FunctionSignatures> = [keyof F] extends [never]
  ? SyncCompiledExpression
  : CompiledExpression;

/** A plain `string` skips the literal checker; a literal goes through it. */
type ExpressionText<S extends string, F extends string> = string extends S
  ? string
  : CheckExpression<S, F>;

/**
 * Parses, validates and compiles a security expression, once, when a rule is
 * defined; evaluating it per request is a few set lookups. Takes the text or a tree
 * from the {@link expr} builder. Without custom functions the result is always
 * synchronous; with them, it is asynchronous exactly when the expression calls a
 * function declared `async: true`.
 *
 * Where the text is a string literal, TypeScript checks it too (unknown functions,
 * unbalanced parentheses); a `string` is checked here only.
 *
 * @throws ExpressionSyntaxError with the `code`, `column` and `excerpt` of the problem
 * @throws ConfigurationError for invalid options or a malformed tree
 *
 * @example
 * ```ts
 * import { compileExpression } from 'portcullis';
 * const canEdit = compileExpression("hasRole('ADMIN') or args.authorId == principal.username");
 * canEdit.evaluate(user, { authorId: 'alice' }); // boolean
 *
 * const isOwner = compileExpression('isOwner(args.postId)', {
 *   functions: {
 *     isOwner: { params: ['reference'], async: true, call: (user, id) => posts.isOwner(user, id) },
 *   },
 * });
 * if (isOwner.async) await isOwner.evaluate(user, { postId: 7 });
 * ```
 */
export function compileExpression<
  const S extends string,
  const F extends FunctionSignatures = NoFunctions,
>(
  expression: ExpressionText<S, keyof F & string> | ExpressionNode,
  options?: CompileExpressionOptions<F>,
): CompiledExpressionOf<F>;
export function compileExpression(
  expression: string | ExpressionNode,
  options?: UncheckedOptions,
): CompiledExpression {
  const resolved = resolveOptions(options);
  const text = textOf(expression);
  const ast = parse(text, resolved);
  const source = typeof expression === 'string' ? printExpression(ast) : text;
  const context = {
    custom: resolved.custom,
    report: { expression: source, events: resolved.events },
  };
  const base = {
    source,
    usesArgs: readsArgs(ast),
    pathVariables: pathVariableNames(ast),
    ast,
    toString: () => source,
    explain: (user: AuthenticatedUser | null, args?: unknown) =>
      explainNode(ast, context, user, args),
  };
  const compiled = compileNode(ast, context);
  return Object.freeze(
    compiled.async
      ? { ...base, async: true, evaluate: asyncEvaluator(compiled.check) }
      : { ...base, async: false, evaluate: syncEvaluator(compiled.check) },
  );
}

/**
 * Parses and validates an expression (functions, arities, argument kinds,
 * references, limits) without compiling it: the tree it returns prints back to
 * the canonical text.
 *
 * @throws ExpressionSyntaxError as {@link compileExpression}
 *
 * @example
 * ```ts
 * parseExpression("HASROLE('x')"); // ExpressionSyntaxError ERR_EXPRESSION_UNKNOWN_FUNCTION
 * parseExpression("hasRole('a') OR hasRole('b')");
 * // { type: 'or', operands: [{ type: 'call', name: 'hasRole', … }, …] }
 * ```
 */
export function parseExpression<const F extends FunctionSignatures>(
  expression: string | ExpressionNode,
  options?: ParseExpressionOptions<F>,
): ExpressionNode {
  return parse(textOf(expression), resolveOptions(options));
}

function textOf(expression: string | ExpressionNode): string {
  if (typeof expression === 'string') return expression;
  if (typeof expression !== 'object' || (expression as unknown) === null) {
    throw new ConfigurationError('expression', 'must be a string or an expression tree');
  }
  return printExpression(expression);
}

function syncEvaluator(check: Check): SyncCompiledExpression['evaluate'] {
  return (user, args) => {
    try {
      return check(user, args);
    } catch {
      // A failing custom function (already reported), or a malformed user object.
      return false;
    }
  };
}

function asyncEvaluator(check: MaybeAsyncCheck): AsyncCompiledExpression['evaluate'] {
  return (user, args) => {
    try {
      const result = check(user, args);
      // A fresh promise each time: a shared one would have to stay unfrozen (Node's
      // promise hooks tag promises when AsyncLocalStorage is on), and callers may
      // keep or decorate what they get.
      if (typeof result === 'boolean') return Promise.resolve(result);
      return result.then(undefined, denied);
    } catch {
      return Promise.resolve(false);
    }
  };
}

function denied(error: unknown): boolean {
  if (error instanceof DeadlineExceededError) throw error;
  return false;
}
