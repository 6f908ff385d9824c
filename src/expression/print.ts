import { ConfigurationError } from '../core/errors.js';
import type { AnyExpressionNode } from './ast.js';
import { INVISIBLE } from './characters.js';
import { checkReference } from './references.js';

/**
 * Deeper trees are refused before printing (and cycles with them). A parsed tree
 * is at most about twice as deep as the parser's `maxDepth` (at most 256).
 */
const MAX_PRINT_DEPTH = 1024;
const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/u;
const SPECIAL = new RegExp(`[\\\\']|${INVISIBLE.source}`, 'gu');

/**
 * The canonical text of an expression tree: lower-case keywords, single-quoted
 * strings with every quote, backslash and invisible character escaped, and only the
 * parentheses the precedence needs, so `parseExpression(printExpression(ast))`
 * equals `ast`. Data in the tree (a role name, a literal) can never turn into
 * syntax.
 *
 * @throws ConfigurationError (option `expression`) when the tree is malformed: an
 * unknown node type, a name that is not an identifier, a number that is not finite,
 * a junction with fewer than two operands, a cycle or a tree nested absurdly deep.
 * Type errors (a value used as a condition) print, and fail when parsed.
 *
 * @example
 * ```ts
 * printExpression(expr.or(expr.hasRole("O'Brien"), expr.not(expr.isAnonymous())));
 * // "hasRole('O\\'Brien') or not isAnonymous()"
 * ```
 */
export function printExpression(node: AnyExpressionNode): string {
  return print(node, 0);
}

/** The fields of a node as found, before validation (trees may come from JSON). */
interface UncheckedNode {
  readonly type?: unknown;
  readonly value?: unknown;
  readonly root?: unknown;
  readonly path?: unknown;
  readonly name?: unknown;
  readonly args?: unknown;
  readonly operator?: unknown;
  readonly left?: unknown;
  readonly right?: unknown;
  readonly operand?: unknown;
  readonly operands?: unknown;
}

function print(input: unknown, depth: number): string {
  if (depth > MAX_PRINT_DEPTH) malformed('nests too deeply (or contains a cycle)');
  if (typeof input !== 'object' || input === null) malformed('a node must be an object');
  const node: UncheckedNode = input;
  switch (node.type) {
    case 'literal':
      return printLiteral(node.value);
    case 'reference': {
      const { root, path } = node;
      if ((root !== 'args' && root !== 'principal' && root !== 'path') || !isStringArray(path)) {
        malformed('a reference needs root "args", "principal" or "path" and a path of strings');
      }
      const problem = checkReference(root, path);
      // Unknown fields print (and fail in the parser with a column); bad segments cannot.
      if (problem?.problem.startsWith('A reference segment')) malformed(problem.problem);
      return [root, ...path].join('.');
    }
    case 'call': {
      const { name, args } = node;
      if (typeof name !== 'string' || !NAME.test(name))
        malformed('a call needs an identifier name');
      if (!Array.isArray(args)) malformed('a call needs an array of arguments');
      return `${name}(${args.map((arg: unknown) => operand(arg, depth)).join(', ')})`;
    }
    case 'compare': {
      const { operator, left, right } = node;
      if (operator !== '==' && operator !== '!=') malformed('a comparison needs "==" or "!="');
      return `${operand(left, depth)} ${operator} ${operand(right, depth)}`;
    }
    case 'not': {
      const text = print(node.operand, depth + 1);
      return isJunction(node.operand) ? `not (${text})` : `not ${text}`;
    }
    case 'and':
    case 'or': {
      const { type, operands } = node;
      if (!Array.isArray(operands) || operands.length < 2) {
        malformed(`"${type}" needs an array of at least two operands`);
      }
      return operands
        .map((child: unknown) => {
          // `a or b and c` needs no parentheses; a nested junction of the same type does.
          const text = print(child, depth + 1);
          const nested = (child as UncheckedNode).type;
          return nested === type || nested === 'or' ? `(${text})` : text;
        })
        .join(` ${type} `);
    }
    default:
      return malformed('unknown node type');
  }
}

/** An operand of a comparison or a call: values as they are, anything else in parentheses. */
function operand(node: unknown, depth: number): string {
  const text = print(node, depth + 1);
  const type = (node as UncheckedNode).type;
  return type === 'literal' || type === 'reference' || type === 'call' ? text : `(${text})`;
}

function isJunction(node: unknown): boolean {
  const type = (node as UncheckedNode).type;
  return type === 'and' || type === 'or';
}

function isStringArray(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function printLiteral(value: unknown): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) malformed('a number literal must be finite');
    return String(value);
  }
  if (typeof value === 'string') return quote(value);
  return malformed('a literal must be a string, a finite number, a boolean or null');
}

/**
 * A single-quoted string literal. Escapes `\` and `'`, writes `\n` and `\t`, and
 * `\uXXXX` for other control characters, line separators, bidirectional controls,
 * the BOM and lone surrogates.
 *
 * @internal
 */
export function quote(value: string): string {
  const escaped = value.replaceAll(SPECIAL, (char) => {
    if (char === '\\' || char === "'") return `\\${char}`;
    if (char === '\n') return '\\n';
    if (char === '\t') return '\\t';
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return `'${escaped}'`;
}

function malformed(problem: string): never {
  throw new ConfigurationError('expression', `malformed expression tree: ${problem}`);
}
