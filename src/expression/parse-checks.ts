import type { AnyExpressionNode, ArgumentNode, ExpressionNode, ValueNode } from './ast.js';
import type { ParameterKind } from './functions.js';
import type { Lexer, Token } from './lexer.js';

/**
 * The node as a condition: a call, `true`/`false`, a comparison or a junction;
 * a reference or another literal is an `ERR_EXPRESSION_TYPE` at `start`.
 *
 * @internal
 */
export function asCondition(lexer: Lexer, node: AnyExpressionNode, start: Token): ExpressionNode {
  if (node.type === 'reference' || (node.type === 'literal' && typeof node.value !== 'boolean')) {
    throw lexer.error(
      'ERR_EXPRESSION_TYPE',
      'A condition is needed here (a function call, true/false or a comparison), not a value',
      start.start,
    );
  }
  return node as ExpressionNode;
}

/** The node as an operand of `==` / `!=`: a literal or a reference. @internal */
export function asValue(lexer: Lexer, node: AnyExpressionNode, start: Token): ValueNode {
  if (node.type !== 'literal' && node.type !== 'reference') {
    throw lexer.error(
      'ERR_EXPRESSION_TYPE',
      'Only references and literals can be compared',
      start.start,
    );
  }
  return node;
}

/** The node as an argument of `name` for a parameter of `kind`. @internal */
export function asArgument(
  lexer: Lexer,
  node: AnyExpressionNode,
  name: string,
  kind: ParameterKind,
  start: Token,
): ArgumentNode {
  const isString = node.type === 'literal' && typeof node.value === 'string';
  const isReference = node.type === 'reference';
  const ok =
    kind === 'string' ? isString : kind === 'reference' ? isReference : isString || isReference;
  if (!ok) {
    const wanted = kind === 'value' ? 'a string or a reference' : `a ${kind}`;
    throw lexer.error(
      'ERR_EXPRESSION_ARGUMENT_TYPE',
      `${name}() takes ${wanted} here`,
      start.start,
    );
  }
  return node as ArgumentNode;
}

/** Whether the token is the keyword, in any letter case. @internal */
export function isKeyword(token: Token, keyword: string): boolean {
  return token.kind === 'identifier' && token.text.toLowerCase() === keyword;
}

/** A token for a message (never the content of a string literal). @internal */
export function show(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'end of the expression';
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'identifier':
      return `"${token.text}"`;
    default:
      return `"${token.kind}"`;
  }
}

/** "1 argument", "at least 1 argument", … @internal */
export function arity(min: number, max: number): string {
  const count = (n: number) => `${n} argument${n === 1 ? '' : 's'}`;
  if (min === max) return count(min);
  return max === Number.POSITIVE_INFINITY ? `at least ${count(min)}` : `${min} to ${count(max)}`;
}
