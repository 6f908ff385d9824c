import { PortcullisError } from '../core/errors.js';
import { INVISIBLE } from './characters.js';

/** The stable codes of {@link ExpressionSyntaxError}. */
export type ExpressionErrorCode =
  /** The expression is empty or only white space. */
  | 'ERR_EXPRESSION_EMPTY'
  /** The expression is longer than `maxLength`. */
  | 'ERR_EXPRESSION_TOO_LONG'
  /** Parentheses, `not`/`!` and call arguments nest deeper than `maxDepth`. */
  | 'ERR_EXPRESSION_TOO_DEEP'
  /** A string literal has no closing quote. */
  | 'ERR_EXPRESSION_UNTERMINATED_STRING'
  /** A backslash escape other than `\\ \' \" \n \t \uXXXX`. */
  | 'ERR_EXPRESSION_INVALID_ESCAPE'
  /** A `(` without its `)`, or a `)` without its `(`. */
  | 'ERR_EXPRESSION_UNBALANCED_PARENTHESES'
  /** Input after a complete expression. */
  | 'ERR_EXPRESSION_TRAILING_INPUT'
  /** A token where it cannot stand (or a character no token starts with). */
  | 'ERR_EXPRESSION_UNEXPECTED_TOKEN'
  /** A call of a function that is neither built in nor registered. */
  | 'ERR_EXPRESSION_UNKNOWN_FUNCTION'
  /** Too few or too many arguments. */
  | 'ERR_EXPRESSION_ARGUMENT_COUNT'
  /** An argument of the wrong kind (built-ins take string literals only). */
  | 'ERR_EXPRESSION_ARGUMENT_TYPE'
  /** A value where a condition is needed (`args.flag and …`), or a condition where a value is. */
  | 'ERR_EXPRESSION_TYPE'
  /** A reference that does not exist (`principal.password`, bare `args`). */
  | 'ERR_EXPRESSION_UNKNOWN_REFERENCE';

/** How many characters of the expression an excerpt shows at most. */
const EXCERPT_WIDTH = 80;

/**
 * A security expression that cannot be compiled. Thrown when the rule is defined
 * (never when a request is checked), with a stable `code`, the 1-based `column`
 * of the problem (in UTF-16 code units) and an `excerpt`: the expression (a window
 * of it around the column when it is long) and a caret line under the column.
 *
 * @example
 * ```ts
 * try {
 *   compileExpression("hasRole('USER') and hasAuthorty('posts:read')");
 * } catch (error) {
 *   if (error instanceof ExpressionSyntaxError) {
 *     error.code;    // 'ERR_EXPRESSION_UNKNOWN_FUNCTION'
 *     error.column;  // 21
 *     error.excerpt; // "hasRole('USER') and hasAuthorty('posts:read')\n                    ^"
 *   }
 * }
 * ```
 */
export class ExpressionSyntaxError extends PortcullisError {
  override readonly code: ExpressionErrorCode;
  /** The 1-based column of the problem; `expression.length + 1` for its end. */
  readonly column: number;
  /** The expression (or a window of it) and a caret line under the column. */
  readonly excerpt: string;
  /** The whole expression. */
  readonly expression: string;

  constructor(code: ExpressionErrorCode, problem: string, expression: string, index: number) {
    const column = Math.max(1, Math.min(index + 1, expression.length + 1));
    const excerpt = makeExcerpt(expression, column);
    super(`${problem} at column ${column}\n${excerpt}`);
    this.code = code;
    this.column = column;
    this.excerpt = excerpt;
    this.expression = expression;
  }
}

/** The expression line (windowed when long) and a caret under `column`. */
function makeExcerpt(expression: string, column: number): string {
  let start = 0;
  let end = expression.length;
  if (expression.length > EXCERPT_WIDTH) {
    start = Math.max(
      0,
      Math.min(column - 1 - EXCERPT_WIDTH / 2, expression.length - EXCERPT_WIDTH),
    );
    end = start + EXCERPT_WIDTH;
  }
  const before = start > 0 ? '…' : '';
  const after = end < expression.length ? '…' : '';
  const line = before + visible(expression.slice(start, end)) + after;
  return `${line}\n${' '.repeat(before.length + column - 1 - start)}^`;
}

/**
 * Invisible characters shown as a space,
 * one for one, so the caret stays aligned and a log line cannot be reordered.
 */
function visible(text: string): string {
  return text.replaceAll(INVISIBLE, ' ');
}
