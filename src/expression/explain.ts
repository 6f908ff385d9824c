import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { DeadlineExceededError } from '../core/errors.js';
import type { ExpressionNode } from './ast.js';
import { compileNode, type CompileContext } from './compile-node.js';
import { EvaluationFailed } from './custom.js';
import { printExpression } from './print.js';

/**
 * Why an expression granted or denied: what `explain` of a compiled expression
 * answers (debug mode, `npx portcullis explain`), never on the per-request path.
 */
export interface ExpressionExplanation {
  /** What the evaluation answered (the same as `evaluate`). */
  readonly granted: boolean;
  /**
   * The smallest part of the expression that decided, in canonical text: for a
   * denial, the failing term (the first operand of an `and` that failed, a whole
   * `or` whose every operand failed, a `not` whose operand held, or a custom
   * function that failed); for a grant, the term that granted.
   */
  readonly term: string;
  /**
   * `true` when a custom function threw, rejected or answered something other than
   * a boolean: the whole expression denied, whatever surrounds the call (its
   * `expression-error` event says more).
   */
  readonly functionFailed: boolean;
}

interface Step {
  readonly granted: boolean;
  readonly term: ExpressionNode;
}

/** A failing custom function aborts the whole explanation, as it aborts an evaluation. */
class Aborted extends Error {
  constructor(readonly term: ExpressionNode) {
    super('A custom expression function failed');
  }
}

/**
 * Explains an evaluation by walking the tree, each leaf compiled on its own with the
 * same custom functions: the same short-circuits, left to right, as the compiled
 * check. Slower than `evaluate` (a closure per leaf per call); for debugging only.
 *
 * @internal
 */
export async function explainNode(
  node: ExpressionNode,
  context: CompileContext,
  user: AuthenticatedUser | null,
  args: unknown,
): Promise<ExpressionExplanation> {
  try {
    const step = await walk(node, context, user, args);
    return { granted: step.granted, term: printExpression(step.term), functionFailed: false };
  } catch (error) {
    if (error instanceof Aborted) {
      return { granted: false, term: printExpression(error.term), functionFailed: true };
    }
    throw error;
  }
}

async function walk(
  node: ExpressionNode,
  context: CompileContext,
  user: AuthenticatedUser | null,
  args: unknown,
): Promise<Step> {
  switch (node.type) {
    case 'and':
      for (const operand of node.operands) {
        const step = await walk(operand, context, user, args);
        if (!step.granted) return step;
      }
      return { granted: true, term: node };
    case 'or':
      for (const operand of node.operands) {
        const step = await walk(operand, context, user, args);
        if (step.granted) return step;
      }
      return { granted: false, term: node };
    case 'not': {
      const step = await walk(node.operand, context, user, args);
      return { granted: !step.granted, term: node };
    }
    default:
      return { granted: await leaf(node, context, user, args), term: node };
  }
}

async function leaf(
  node: ExpressionNode,
  context: CompileContext,
  user: AuthenticatedUser | null,
  args: unknown,
): Promise<boolean> {
  const compiled = compileNode(node, context);
  try {
    return await compiled.check(user, args);
  } catch (error) {
    if (error instanceof DeadlineExceededError) throw error;
    if (error instanceof EvaluationFailed) throw new Aborted(node);
    // A malformed user object: `evaluate` denies the same way.
    return false;
  }
}
