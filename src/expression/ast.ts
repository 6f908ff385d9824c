/**
 * The syntax tree of a security expression: what {@link parseExpression} returns,
 * what the {@link expr} builder makes and what {@link printExpression} prints.
 * Every node is a frozen plain object, so trees can be shared, compared with a deep
 * equality and stored as JSON.
 *
 * @module portcullis
 */

/** The value of a literal: a string, a finite number, a boolean or `null`. */
export type LiteralValue = string | number | boolean | null;

/** A literal: `'text'`, `42`, `true`, `false`, `null`. */
export interface LiteralNode<V extends LiteralValue = LiteralValue> {
  readonly type: 'literal';
  readonly value: V;
}

/**
 * Where a reference starts: the user (`principal`), the evaluation's arguments
 * (`args`: tRPC input, GraphQL field arguments) or the variables a URL path pattern
 * captured (`path`: `/users/{id}` → `path.id`).
 */
export type ReferenceRoot = 'principal' | 'args' | 'path';

/**
 * A read-only path into the user or the arguments, e.g. `principal.username`
 * (`{ root: 'principal', path: ['username'] }`), `args.post.authorId` or `path.id`.
 */
export interface ReferenceNode {
  readonly type: 'reference';
  readonly root: ReferenceRoot;
  /** At least one segment: identifiers (`[A-Za-z_$][A-Za-z0-9_$]*`) or array indexes (digits). */
  readonly path: readonly string[];
}

/** What a function receives: a string literal or a reference. */
export type ArgumentNode = LiteralNode<string> | ReferenceNode;

/** A function call, built-in (`hasRole('ADMIN')`) or custom (`isOwner(args.postId)`). */
export interface CallNode {
  readonly type: 'call';
  /** The function's name, case-sensitive. */
  readonly name: string;
  readonly args: readonly ArgumentNode[];
}

/** An operand of `==` / `!=`: a literal or a reference. */
export type ValueNode = LiteralNode | ReferenceNode;

/** `left == right` or `left != right`. */
export interface CompareNode {
  readonly type: 'compare';
  readonly operator: '==' | '!=';
  readonly left: ValueNode;
  readonly right: ValueNode;
}

/** `not operand` (also written `!operand`). */
export interface NotNode {
  readonly type: 'not';
  readonly operand: ExpressionNode;
}

/** `a and b and …` (also `&&`): at least two operands, evaluated left to right. */
export interface AndNode {
  readonly type: 'and';
  readonly operands: readonly ExpressionNode[];
}

/** `a or b or …` (also `||`): at least two operands, evaluated left to right. */
export interface OrNode {
  readonly type: 'or';
  readonly operands: readonly ExpressionNode[];
}

/** A condition: a node that evaluates to a boolean; what a whole expression is. */
export type ExpressionNode =
  AndNode | OrNode | NotNode | CompareNode | CallNode | LiteralNode<boolean>;

/** Any node of the tree. */
export type AnyExpressionNode = ExpressionNode | ValueNode;

/** @internal */
export function literalNode<V extends LiteralValue>(value: V): LiteralNode<V> {
  // -0 and 0 are the same number to `==`; one spelling keeps print ∘ parse exact.
  const normalized = (typeof value === 'number' && value === 0 ? 0 : value) as V;
  return Object.freeze({ type: 'literal', value: normalized });
}

/** @internal */
export function referenceNode(root: ReferenceRoot, path: readonly string[]): ReferenceNode {
  return Object.freeze({ type: 'reference', root, path: Object.freeze([...path]) });
}

/** @internal */
export function callNode(name: string, args: readonly ArgumentNode[]): CallNode {
  return Object.freeze({ type: 'call', name, args: Object.freeze([...args]) });
}

/** @internal */
export function compareNode(operator: '==' | '!=', left: ValueNode, right: ValueNode): CompareNode {
  return Object.freeze({ type: 'compare', operator, left, right });
}

/** @internal */
export function notNode(operand: ExpressionNode): NotNode {
  return Object.freeze({ type: 'not', operand });
}

/** @internal */
export function junctionNode(type: 'and', operands: readonly ExpressionNode[]): AndNode;
export function junctionNode(type: 'or', operands: readonly ExpressionNode[]): OrNode;
export function junctionNode(
  type: 'and' | 'or',
  operands: readonly ExpressionNode[],
): AndNode | OrNode;
export function junctionNode(
  type: 'and' | 'or',
  operands: readonly ExpressionNode[],
): AndNode | OrNode {
  return Object.freeze({ type, operands: Object.freeze([...operands]) });
}
