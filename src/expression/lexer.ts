import { ExpressionSyntaxError, type ExpressionErrorCode } from './errors.js';

/** A token's kind: its text for punctuation and operators. @internal */
export type TokenKind =
  | 'identifier'
  | 'string'
  | 'number'
  | '('
  | ')'
  | ','
  | '.'
  | '=='
  | '!='
  | '!'
  | '&&'
  | '||'
  | 'end';

/** One token; `start` is its 0-based index in the expression. @internal */
export interface Token {
  readonly kind: TokenKind;
  readonly start: number;
  /** The identifier, the decoded string or the number's text. */
  readonly text: string;
}

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*/uy;
const SEGMENT = /[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+/uy;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/uy;
const HEX4 = /^[0-9A-Fa-f]{4}$/u;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  n: '\n',
  t: '\t',
};

/**
 * Reads tokens on demand, one of lookahead, so errors come in source order.
 * White space between tokens is space, tab, CR and LF.
 *
 * @internal
 */
export class Lexer {
  readonly #text: string;
  #index = 0;
  #peeked: Token | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  /** The next token, without consuming it. */
  peek(): Token {
    return (this.#peeked ??= this.#read());
  }

  /** Consumes and returns the next token. */
  next(): Token {
    const token = this.peek();
    this.#peeked = undefined;
    return token;
  }

  /** Reads a reference segment (an identifier or digits) right after a consumed `.`. */
  segment(): Token {
    this.#skipSpace();
    const start = this.#index;
    const text = this.#match(SEGMENT);
    if (text === undefined) {
      throw this.error(
        'ERR_EXPRESSION_UNEXPECTED_TOKEN',
        'Expected a name or an index after "."',
        start,
      );
    }
    return { kind: 'identifier', start, text };
  }

  /** An {@link ExpressionSyntaxError} at `index` of this expression. */
  error(code: ExpressionErrorCode, problem: string, index: number): ExpressionSyntaxError {
    return new ExpressionSyntaxError(code, problem, this.#text, index);
  }

  #read(): Token {
    this.#skipSpace();
    const text = this.#text;
    const start = this.#index;
    if (start >= text.length) return { kind: 'end', start, text: '' };
    const char = text.charAt(start);
    const pair = text.slice(start, start + 2);
    if (pair === '==' || pair === '!=' || pair === '&&' || pair === '||') {
      this.#index += 2;
      return { kind: pair, start, text: pair };
    }
    if (char === '(' || char === ')' || char === ',' || char === '.' || char === '!') {
      this.#index++;
      return { kind: char, start, text: char };
    }
    if (char === "'" || char === '"') return this.#string(char, start);
    if (char === '-' || (char >= '0' && char <= '9')) return this.#number(start);
    const identifier = this.#match(IDENTIFIER);
    if (identifier !== undefined) return { kind: 'identifier', start, text: identifier };
    throw this.error(
      'ERR_EXPRESSION_UNEXPECTED_TOKEN',
      `Unexpected ${describe(text, start)}`,
      start,
    );
  }

  #skipSpace(): void {
    const text = this.#text;
    let index = this.#index;
    for (;;) {
      const char = text.charCodeAt(index);
      if (char !== 0x20 && char !== 0x09 && char !== 0x0a && char !== 0x0d) break;
      index++;
    }
    this.#index = index;
  }

  #match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.#index;
    const match = pattern.exec(this.#text);
    if (match === null) return undefined;
    this.#index = pattern.lastIndex;
    return match[0];
  }

  #number(start: number): Token {
    const number = this.#match(NUMBER);
    const following = this.#text.charAt(this.#index);
    if (number === undefined || /[A-Za-z0-9_$.]/u.test(following)) {
      throw this.error('ERR_EXPRESSION_UNEXPECTED_TOKEN', 'Malformed number', start);
    }
    if (!Number.isFinite(Number(number))) {
      throw this.error('ERR_EXPRESSION_UNEXPECTED_TOKEN', 'Number out of range', start);
    }
    return { kind: 'number', start, text: number };
  }

  #string(quote: string, start: number): Token {
    const text = this.#text;
    let value = '';
    let index = start + 1;
    let chunk = index;
    while (index < text.length) {
      const char = text.charAt(index);
      if (char === quote) {
        this.#index = index + 1;
        return { kind: 'string', start, text: value + text.slice(chunk, index) };
      }
      if (char !== '\\') {
        index++;
        continue;
      }
      value += text.slice(chunk, index);
      const escape = text.charAt(index + 1);
      const simple = Object.hasOwn(SIMPLE_ESCAPES, escape) ? SIMPLE_ESCAPES[escape] : undefined;
      if (simple !== undefined) {
        value += simple;
        index += 2;
      } else if (escape === 'u' && HEX4.test(text.slice(index + 2, index + 6))) {
        value += String.fromCharCode(Number.parseInt(text.slice(index + 2, index + 6), 16));
        index += 6;
      } else if (index + 1 >= text.length) {
        break;
      } else {
        throw this.error(
          'ERR_EXPRESSION_INVALID_ESCAPE',
          'Invalid escape (use \\\\, \\\', \\", \\n, \\t or \\uXXXX)',
          index,
        );
      }
      chunk = index;
    }
    throw this.error('ERR_EXPRESSION_UNTERMINATED_STRING', 'Unterminated string', start);
  }
}

/** A short, safe description of the character at `index` for a message. */
function describe(text: string, index: number): string {
  const code = text.codePointAt(index) ?? 0;
  const char = String.fromCodePoint(code);
  return /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(char)
    ? `character "${char}"`
    : `character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
