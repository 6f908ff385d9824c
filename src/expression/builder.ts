import { ConfigurationError } from '../core/errors.js';
import {
  callNode,
  compareNode,
  junctionNode,
  literalNode,
  notNode,
  referenceNode,
  type ArgumentNode,
  type CallNode,
  type CompareNode,
  type ExpressionNode,
  type LiteralNode,
  type LiteralValue,
  type NotNode,
  type ReferenceNode,
  type ReferenceRoot,
  type ValueNode,
} from './ast.js';
import { checkReference } from './references.js';

const CONDITIONS = new Set(['and', 'or', 'not', 'compare', 'call']);
const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/u;

function requireString(option: string, value: unknown): string {
  if (typeof value !== 'string') throw new ConfigurationError(option, 'must be a string');
  return value;
}

function requireStrings(option: string, values: readonly unknown[]): string[] {
  if (values.length === 0) throw new ConfigurationError(option, 'needs at least one name');
  return values.map((value) => requireString(option, value));
}

function requireCondition(option: string, node: unknown): ExpressionNode {
  const candidate = node as Partial<ExpressionNode> | null;
  const ok =
    typeof candidate === 'object' &&
    candidate !== null &&
    (CONDITIONS.has(candidate.type as string) ||
      (candidate.type === 'literal' && typeof candidate.value === 'boolean'));
  if (!ok) {
    throw new ConfigurationError(
      option,
      'must be a condition (a call, a comparison, true/false, and/or/not)',
    );
  }
  return node as ExpressionNode;
}

function value(option: string, operand: ValueNode | LiteralValue): ValueNode {
  if (typeof operand === 'object' && operand !== null) {
    const type: unknown = operand.type;
    if (type === 'reference' || type === 'literal') return operand;
    throw new ConfigurationError(
      option,
      'must be a reference, a literal node or a primitive value',
    );
  }
  return literal(option, operand);
}

function literal(option: string, operand: unknown): LiteralNode {
  const type = typeof operand;
  if (
    type === 'number'
      ? !Number.isFinite(operand)
      : type !== 'string' && type !== 'boolean' && operand !== null
  ) {
    throw new ConfigurationError(option, 'must be a string, a finite number, a boolean or null');
  }
  return literalNode(operand as LiteralValue);
}

function reference(root: ReferenceRoot, path: readonly unknown[]): ReferenceNode {
  const segments = path.map((segment) => requireString(root, segment));
  const problem = checkReference(root, segments);
  if (problem) throw new ConfigurationError(root, problem.problem);
  return referenceNode(root, segments);
}

function junction(type: 'and' | 'or', operands: readonly unknown[]): ExpressionNode {
  const conditions = operands.map((operand) => requireCondition(type, operand));
  const [first] = conditions;
  if (first === undefined) {
    // An empty list from data must not silently mean "allow" (or "deny").
    throw new ConfigurationError(type, 'needs at least one condition');
  }
  return conditions.length === 1 ? first : junctionNode(type, conditions);
}

const call = (name: string, args: readonly string[]): CallNode =>
  callNode(
    name,
    args.map((arg) => literalNode(arg)),
  );

/**
 * Builds expression trees from data, so no rule is ever made by concatenating
 * strings: a role name is data wherever it comes from and can never become syntax
 * (`expr.hasRole("x') or permitAll() or hasRole('y")` checks exactly that odd
 * role). Every builder validates its input and throws a {@link ConfigurationError};
 * the result goes to {@link compileExpression} or {@link printExpression}.
 *
 * @example
 * ```ts
 * import { compileExpression, expr } from 'portcullis';
 * const rule = expr.or(
 *   expr.hasAnyRole(...config.adminRoles),
 *   expr.and(expr.hasAuthority('posts:write'), expr.eq(expr.args('authorId'), expr.principal('username'))),
 * );
 * const check = compileExpression(rule);
 * ```
 */
export const expr = Object.freeze({
  /** `hasRole(name)`. */
  hasRole: (name: string): CallNode => call('hasRole', [requireString('hasRole', name)]),
  /** `hasAnyRole(name, …)`: at least one name. */
  hasAnyRole: (...names: string[]): CallNode =>
    call('hasAnyRole', requireStrings('hasAnyRole', names)),
  /** `hasAuthority(name)`. */
  hasAuthority: (name: string): CallNode =>
    call('hasAuthority', [requireString('hasAuthority', name)]),
  /** `hasAnyAuthority(name, …)`: at least one name. */
  hasAnyAuthority: (...names: string[]): CallNode =>
    call('hasAnyAuthority', requireStrings('hasAnyAuthority', names)),
  /** `isAuthenticated()`. */
  isAuthenticated: (): CallNode => call('isAuthenticated', []),
  /** `isAnonymous()`. */
  isAnonymous: (): CallNode => call('isAnonymous', []),
  /** `permitAll()`. */
  permitAll: (): CallNode => call('permitAll', []),
  /** `denyAll()`. */
  denyAll: (): CallNode => call('denyAll', []),
  /** The literal `true`. */
  true: (): LiteralNode<boolean> => literalNode(true),
  /** The literal `false`. */
  false: (): LiteralNode<boolean> => literalNode(false),
  /** `a and b and …`; one condition is returned as it is, none is an error. */
  and: (...conditions: ExpressionNode[]): ExpressionNode => junction('and', conditions),
  /** `a or b or …`; one condition is returned as it is, none is an error. */
  or: (...conditions: ExpressionNode[]): ExpressionNode => junction('or', conditions),
  /** `not condition`. */
  not: (condition: ExpressionNode): NotNode => notNode(requireCondition('not', condition)),
  /** `a == b`; primitives become literals. */
  eq: (a: ValueNode | LiteralValue, b: ValueNode | LiteralValue): CompareNode =>
    compareNode('==', value('eq', a), value('eq', b)),
  /** `a != b`; primitives become literals. */
  ne: (a: ValueNode | LiteralValue, b: ValueNode | LiteralValue): CompareNode =>
    compareNode('!=', value('ne', a), value('ne', b)),
  /** `principal.<path>`: `'username'`, `'authenticationMethod'` or `'attributes', name, …`. */
  principal: (...path: string[]): ReferenceNode => reference('principal', path),
  /** `args.<path>`: at least one segment (identifiers, or digits for array indexes). */
  args: (...path: string[]): ReferenceNode => reference('args', path),
  /** `path.<name>`: a variable captured by the URL rule's path pattern (`/users/{id}` → `'id'`). */
  path: (name: string): ReferenceNode => reference('path', [name]),
  /** A literal: a string, a finite number, a boolean or `null`. */
  literal: <V extends LiteralValue>(value: V): LiteralNode<V> =>
    literal('literal', value) as LiteralNode<V>,
  /** A call of a function by name (custom functions): strings become string literals. */
  call: (name: string, ...args: (string | ReferenceNode)[]): CallNode => {
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new ConfigurationError('call', 'the function name must be an identifier');
    }
    const nodes: ArgumentNode[] = args.map((arg) => {
      if (typeof arg === 'string') return literalNode(arg);
      const type: unknown =
        typeof arg === 'object' && (arg as unknown) !== null ? arg.type : undefined;
      if (type === 'reference') return arg;
      throw new ConfigurationError('call', 'arguments must be strings or references');
    });
    return callNode(name, nodes);
  },
});
