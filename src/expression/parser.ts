import { didYouMean } from '../lib/suggest.js';
import {
  callNode,
  compareNode,
  junctionNode,
  literalNode,
  notNode,
  type AnyExpressionNode,
  type ArgumentNode,
  type CallNode,
  type ExpressionNode,
} from './ast.js';
import { Lexer, type Token } from './lexer.js';
import type { ResolvedOptions } from './options.js';
import { arity, asArgument, asCondition, asValue, isKeyword, show } from './parse-checks.js';
import { referenceNode as reference } from './references.js';

/** The built-in functions whose arguments name roles or authorities. */
const RIGHTS = new Set(['hasRole', 'hasAnyRole', 'hasAuthority', 'hasAnyAuthority']);

/**
 * Parses and validates an expression (grammar, functions, arities, argument kinds,
 * condition types, references, limits). Recursion is bounded: every level that can
 * nest (parenthesis, `not`/`!`, call arguments) counts against `maxDepth` before
 * recursing.
 *
 * @internal
 */
export function parse(text: string, options: ResolvedOptions): ExpressionNode {
  const lexer = new Lexer(text);
  if (text.length > options.maxLength) {
    throw lexer.error(
      'ERR_EXPRESSION_TOO_LONG',
      `The expression is longer than ${options.maxLength} characters`,
      options.maxLength,
    );
  }
  return new Parser(lexer, options).parse();
}

class Parser {
  readonly #lexer: Lexer;
  readonly #options: ResolvedOptions;
  #depth = 0;

  constructor(lexer: Lexer, options: ResolvedOptions) {
    this.#lexer = lexer;
    this.#options = options;
  }

  parse(): ExpressionNode {
    const first = this.#lexer.peek();
    if (first.kind === 'end') {
      throw this.#lexer.error('ERR_EXPRESSION_EMPTY', 'The expression is empty', 0);
    }
    const node = this.#or();
    const rest = this.#lexer.peek();
    if (rest.kind === ')') {
      throw this.#lexer.error('ERR_EXPRESSION_UNBALANCED_PARENTHESES', 'Unmatched ")"', rest.start);
    }
    if (rest.kind !== 'end') {
      throw this.#lexer.error(
        'ERR_EXPRESSION_TRAILING_INPUT',
        `Unexpected ${show(rest)} after a complete expression`,
        rest.start,
      );
    }
    return asCondition(this.#lexer, node, first);
  }

  #or(): AnyExpressionNode {
    const start = this.#lexer.peek();
    const first = this.#and();
    if (!this.#isOperator('or', '||')) return first;
    const operands = [asCondition(this.#lexer, first, start)];
    while (this.#isOperator('or', '||')) {
      this.#lexer.next();
      const next = this.#lexer.peek();
      operands.push(asCondition(this.#lexer, this.#and(), next));
    }
    return junctionNode('or', operands);
  }

  #and(): AnyExpressionNode {
    const start = this.#lexer.peek();
    const first = this.#not();
    if (!this.#isOperator('and', '&&')) return first;
    const operands = [asCondition(this.#lexer, first, start)];
    while (this.#isOperator('and', '&&')) {
      this.#lexer.next();
      const next = this.#lexer.peek();
      operands.push(asCondition(this.#lexer, this.#not(), next));
    }
    return junctionNode('and', operands);
  }

  #isOperator(keyword: string, symbol: string): boolean {
    const token = this.#lexer.peek();
    return token.kind === symbol || isKeyword(token, keyword);
  }

  #not(): AnyExpressionNode {
    const token = this.#lexer.peek();
    if (token.kind !== '!' && !isKeyword(token, 'not')) return this.#compare();
    this.#lexer.next();
    this.#enter(token);
    const start = this.#lexer.peek();
    const operand = asCondition(this.#lexer, this.#not(), start);
    this.#depth--;
    return notNode(operand);
  }

  #compare(): AnyExpressionNode {
    const start = this.#lexer.peek();
    const left = this.#operand();
    const operator = this.#lexer.peek();
    if (operator.kind !== '==' && operator.kind !== '!=') return left;
    this.#lexer.next();
    const rightStart = this.#lexer.peek();
    const right = this.#operand();
    const chained = this.#lexer.peek();
    if (chained.kind === '==' || chained.kind === '!=') {
      throw this.#lexer.error(
        'ERR_EXPRESSION_TYPE',
        'Comparisons cannot be chained; use parentheses and "and"',
        chained.start,
      );
    }
    return compareNode(
      operator.kind,
      asValue(this.#lexer, left, start),
      asValue(this.#lexer, right, rightStart),
    );
  }

  #operand(): AnyExpressionNode {
    const lexer = this.#lexer;
    const token = lexer.next();
    switch (token.kind) {
      case '(': {
        this.#enter(token);
        const node = this.#or();
        this.#close(token, 'Expected ")"');
        this.#depth--;
        return node;
      }
      case 'string':
        return literalNode(token.text);
      case 'number':
        return literalNode(Number(token.text));
      case 'identifier':
        return this.#identifier(token);
      case 'end':
        throw lexer.error(
          'ERR_EXPRESSION_UNEXPECTED_TOKEN',
          'Unexpected end of the expression',
          token.start,
        );
      default:
        throw lexer.error(
          'ERR_EXPRESSION_UNEXPECTED_TOKEN',
          `Unexpected ${show(token)}`,
          token.start,
        );
    }
  }

  #identifier(token: Token): AnyExpressionNode {
    const name = token.text;
    switch (name.toLowerCase()) {
      case 'true':
        return literalNode(true);
      case 'false':
        return literalNode(false);
      case 'null':
        return literalNode(null);
      case 'and':
      case 'or':
      case 'not':
        throw this.#lexer.error(
          'ERR_EXPRESSION_UNEXPECTED_TOKEN',
          `Unexpected "${name}"`,
          token.start,
        );
    }
    if (this.#lexer.peek().kind === '(') return this.#call(token);
    if (name === 'principal' || name === 'args' || name === 'path') {
      return reference(this.#lexer, token);
    }
    if (name === 'permitAll') return callNode(name, []);
    const signatures = this.#options.signatures;
    const hint = signatures.has(name)
      ? ` (a function: write ${name}(…))`
      : didYouMean(name, ['principal', 'args', 'path', 'permitAll']);
    throw this.#lexer.error(
      'ERR_EXPRESSION_UNKNOWN_REFERENCE',
      `Unknown name "${name}"${hint}`,
      token.start,
    );
  }

  #call(name: Token): CallNode {
    const lexer = this.#lexer;
    const signature = this.#options.signatures.get(name.text);
    if (signature === undefined) {
      throw lexer.error(
        'ERR_EXPRESSION_UNKNOWN_FUNCTION',
        `Unknown function "${name.text}"${didYouMean(name.text, this.#options.signatures.keys())}`,
        name.start,
      );
    }
    const open = lexer.next();
    this.#enter(open);
    const args: ArgumentNode[] = [];
    let close = lexer.peek().kind === ')' ? lexer.next().start : -1;
    while (close < 0) {
      const start = lexer.peek();
      const node = this.#operand();
      if (args.length >= signature.max) {
        throw lexer.error(
          'ERR_EXPRESSION_ARGUMENT_COUNT',
          `${name.text}() takes ${arity(signature.min, signature.max)}`,
          start.start,
        );
      }
      const argument = asArgument(lexer, node, name.text, signature.kind(args.length), start);
      if (RIGHTS.has(name.text) && argument.type === 'literal' && argument.value === '') {
        // `hasRole('')` can never hold (no user has an empty role): a typo, refused.
        throw lexer.error(
          'ERR_EXPRESSION_ARGUMENT_TYPE',
          `${name.text}() takes non-empty names`,
          start.start,
        );
      }
      args.push(argument);
      if (lexer.peek().kind === ',') lexer.next();
      else close = this.#close(open, 'Expected "," or ")"');
    }
    if (args.length < signature.min) {
      throw lexer.error(
        'ERR_EXPRESSION_ARGUMENT_COUNT',
        `${name.text}() takes ${arity(signature.min, signature.max)}`,
        close,
      );
    }
    this.#depth--;
    return callNode(name.text, args);
  }

  /** Consumes the `)` matching `open`; returns its index. */
  #close(open: Token, expected: string): number {
    const token = this.#lexer.next();
    if (token.kind === ')') return token.start;
    if (token.kind === 'end') {
      throw this.#lexer.error('ERR_EXPRESSION_UNBALANCED_PARENTHESES', 'Unclosed "("', open.start);
    }
    throw this.#lexer.error(
      'ERR_EXPRESSION_UNEXPECTED_TOKEN',
      `${expected}, found ${show(token)}`,
      token.start,
    );
  }

  #enter(token: Token): void {
    if (++this.#depth > this.#options.maxDepth) {
      throw this.#lexer.error(
        'ERR_EXPRESSION_TOO_DEEP',
        `The expression nests deeper than ${this.#options.maxDepth} levels`,
        token.start,
      );
    }
  }
}
