import { describe, expect, it } from 'vitest';
import { PortcullisError } from '../../src/core/index.js';
import {
  ExpressionSyntaxError,
  compileExpression,
  parseExpression,
  type ExpressionErrorCode,
} from '../../src/expression/index.js';
import { syntaxError, thrown } from './helpers.js';

const cases: [ExpressionErrorCode, string, number][] = [
  ['ERR_EXPRESSION_EMPTY', '', 1],
  ['ERR_EXPRESSION_EMPTY', ' \t\n ', 1],
  ['ERR_EXPRESSION_UNTERMINATED_STRING', "hasRole('abc", 9],
  ['ERR_EXPRESSION_UNTERMINATED_STRING', 'hasRole("abc\'', 9],
  ['ERR_EXPRESSION_UNTERMINATED_STRING', "hasRole('abc\\", 9],
  ['ERR_EXPRESSION_UNTERMINATED_STRING', "hasRole('abc\\'", 9],
  ['ERR_EXPRESSION_INVALID_ESCAPE', "hasRole('a\\x')", 11],
  ['ERR_EXPRESSION_INVALID_ESCAPE', "hasRole('a\\u12')", 11],
  ['ERR_EXPRESSION_INVALID_ESCAPE', "hasRole('a\\u{41}')", 11],
  ['ERR_EXPRESSION_INVALID_ESCAPE', "hasRole('\\r')", 10],
  ['ERR_EXPRESSION_UNBALANCED_PARENTHESES', '(true', 1],
  ['ERR_EXPRESSION_UNBALANCED_PARENTHESES', '((true)', 1],
  ['ERR_EXPRESSION_UNBALANCED_PARENTHESES', 'true)', 5],
  ['ERR_EXPRESSION_UNBALANCED_PARENTHESES', "hasRole('a'", 8],
  ['ERR_EXPRESSION_UNBALANCED_PARENTHESES', "true and (hasRole('a') or false", 10],
  ['ERR_EXPRESSION_TRAILING_INPUT', 'true false', 6],
  ['ERR_EXPRESSION_TRAILING_INPUT', "hasRole('a') hasRole('b')", 14],
  ['ERR_EXPRESSION_TRAILING_INPUT', "permitAll 'x'", 11],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', 'true and', 9],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', 'true & false', 6],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', 'true | false', 6],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', 'args.a = 1', 8],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', "hasRole('a',)", 13],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', 'isAuthenticated(,)', 17],
  ['ERR_EXPRESSION_ARGUMENT_COUNT', 'isAuthenticated(args.x)', 17],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', "hasRole('a' 'b')", 13],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', '()', 2],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', 'true and or false', 10],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', '#', 1],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', 'args. == 1', 7],
  ['ERR_EXPRESSION_UNEXPECTED_TOKEN', 'args.a-b == 1', 7],
  ['ERR_EXPRESSION_UNKNOWN_FUNCTION', "hasRol('a')", 1],
  ['ERR_EXPRESSION_UNKNOWN_FUNCTION', "true and hasAuthorty('a')", 10],
  ['ERR_EXPRESSION_UNKNOWN_FUNCTION', 'eval()', 1],
  ['ERR_EXPRESSION_UNKNOWN_FUNCTION', "constructor('x')", 1],
  ['ERR_EXPRESSION_ARGUMENT_COUNT', 'hasRole()', 9],
  ['ERR_EXPRESSION_ARGUMENT_COUNT', "hasRole('a', 'b')", 14],
  ['ERR_EXPRESSION_ARGUMENT_COUNT', 'hasAnyRole()', 12],
  ['ERR_EXPRESSION_ARGUMENT_COUNT', "isAuthenticated('x')", 17],
  ['ERR_EXPRESSION_ARGUMENT_COUNT', "permitAll('x')", 11],
  ['ERR_EXPRESSION_ARGUMENT_TYPE', 'hasRole(args.role)', 9],
  ['ERR_EXPRESSION_ARGUMENT_TYPE', 'hasRole(1)', 9],
  ['ERR_EXPRESSION_ARGUMENT_TYPE', 'hasRole(true)', 9],
  ['ERR_EXPRESSION_ARGUMENT_TYPE', 'hasRole(null)', 9],
  ['ERR_EXPRESSION_ARGUMENT_TYPE', "hasAnyRole('a', isAuthenticated())", 17],
  ['ERR_EXPRESSION_TYPE', 'args.flag', 1],
  ['ERR_EXPRESSION_TYPE', '(args.flag)', 1],
  ['ERR_EXPRESSION_TYPE', 'args.flag and true', 1],
  ['ERR_EXPRESSION_TYPE', "true and 'x'", 10],
  ['ERR_EXPRESSION_TYPE', 'false or 1', 10],
  ['ERR_EXPRESSION_TYPE', 'not args.x', 5],
  ['ERR_EXPRESSION_TYPE', '!null', 2],
  ['ERR_EXPRESSION_TYPE', "'x'", 1],
  ['ERR_EXPRESSION_TYPE', 'principal.username', 1],
  ['ERR_EXPRESSION_TYPE', "hasRole('a') == true", 1],
  ['ERR_EXPRESSION_TYPE', "true == hasRole('a')", 9],
  ['ERR_EXPRESSION_TYPE', 'args.a == args.b == args.c', 18],
  ['ERR_EXPRESSION_TYPE', '(args.a == 1) == true', 1],
  ['ERR_EXPRESSION_TYPE', 'args.a == (true and true)', 11],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', "principal.password == 'x'", 11],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', "principal.roles == 'x'", 11],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', "principal.getPassword == 'x'", 11],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', 'principal == null', 1],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', 'args == null', 1],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', 'principal.attributes == null', 1],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', 'principal.username.length == 5', 20],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', "Principal.username == 'a'", 1],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', "user.username == 'a'", 1],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', 'isAuthenticated', 1],
  ['ERR_EXPRESSION_UNKNOWN_REFERENCE', 'true and denyAll', 10],
];

describe('every error code, with its column', () => {
  it.each(cases)('%s: %j at column %i', (code, text, column) => {
    const error = syntaxError(() => parseExpression(text));
    expect(error.code).toBe(code);
    expect(error.column).toBe(column);
    expect(error.expression).toBe(text);
    expect(error).toBeInstanceOf(PortcullisError);
    expect(error.name).toBe('ExpressionSyntaxError');
    // compileExpression reports exactly the same.
    const compiled = syntaxError(() => compileExpression(text));
    expect([compiled.code, compiled.column]).toEqual([code, column]);
  });

  it('suggests the function that was meant', () => {
    expect(syntaxError(() => parseExpression("hasAuthorty('a')")).message).toContain(
      '"hasAuthority"',
    );
    expect(syntaxError(() => parseExpression("hasanyrole('a')")).message).toContain('"hasAnyRole"');
    expect(syntaxError(() => parseExpression("principal.usename == 'a'")).message).toContain(
      '"username"',
    );
  });
});

describe('excerpts', () => {
  it('shows the expression and a caret under the column', () => {
    const error = syntaxError(() => parseExpression("hasRole('USER') and hasAuthorty('x')"));
    expect(error.excerpt).toBe("hasRole('USER') and hasAuthorty('x')\n                    ^");
    expect(error.message).toContain(error.excerpt);
    expect(error.message).toContain('column 21');
  });

  it('puts the caret after the last character for the end of the expression', () => {
    expect(syntaxError(() => parseExpression('true or')).excerpt).toBe('true or\n       ^');
  });

  it('shows a window around the column of a long expression', () => {
    const text = `${'true and '.repeat(300)}hasRol('x') and ${'true and '.repeat(300)}true`;
    const error = syntaxError(() => parseExpression(text));
    expect(error.column).toBe(2701);
    const [line = '', caret = ''] = error.excerpt.split('\n');
    expect(line.length).toBeLessThanOrEqual(82);
    expect(line.startsWith('…')).toBe(true);
    expect(line.endsWith('…')).toBe(true);
    expect(caret.trimStart()).toBe('^');
    expect(line.slice(caret.length - 1).startsWith("hasRol('x')")).toBe(true);
  });

  it('windows the start and the end of long expressions without ellipsis on the open side', () => {
    const head = syntaxError(() =>
      parseExpression(`hasRol('x') and ${'true and '.repeat(50)}true`),
    );
    expect(head.excerpt.split('\n')[0]?.startsWith("hasRol('x')")).toBe(true);
    expect(head.excerpt.split('\n')[1]).toBe('^');
    const tail = syntaxError(() => parseExpression(`${'true and '.repeat(50)}true and`));
    const [line = '', caret = ''] = tail.excerpt.split('\n');
    expect(line.endsWith('true and')).toBe(true);
    expect(caret.length).toBe(line.length + 1);
  });

  it('shows control and bidirectional characters as spaces, keeping the caret aligned', () => {
    const error = syntaxError(() => parseExpression("hasRole('a\u202e\n')\tand\r\nfoo()"));
    const [line = '', caret = ''] = error.excerpt.split('\n');
    expect(line).toBe("hasRole('a  ') and  foo()");
    expect(caret).toBe('                    ^');
    expect(error.column).toBe(21);
  });
});

describe('limits', () => {
  it('refuses an expression longer than maxLength before parsing it', () => {
    const long = `true${' or true'.repeat(1250)}`;
    expect(long.length).toBeGreaterThan(10_000);
    const error = syntaxError(() => parseExpression(long));
    expect(error.code).toBe('ERR_EXPRESSION_TOO_LONG');
    expect(error.column).toBe(10_001);
    expect(() => parseExpression(long, { maxLength: 20_000 })).not.toThrow();
    const short = syntaxError(() => parseExpression('true or false', { maxLength: 5 }));
    expect([short.code, short.column]).toEqual(['ERR_EXPRESSION_TOO_LONG', 6]);
    // The length check comes first: even a broken expression reports its length.
    expect(syntaxError(() => parseExpression(`((((${'x'.repeat(10_000)}`)).code).toBe(
      'ERR_EXPRESSION_TOO_LONG',
    );
  });

  it('accepts nesting up to maxDepth and refuses one level more, at that level', () => {
    const nested = (depth: number) => `${'('.repeat(depth)}true${')'.repeat(depth)}`;
    expect(compileExpression(nested(64)).evaluate(null)).toBe(true);
    const error = syntaxError(() => parseExpression(nested(65)));
    expect([error.code, error.column]).toEqual(['ERR_EXPRESSION_TOO_DEEP', 65]);
    const nots = syntaxError(() => parseExpression(`${'not '.repeat(65)}true`));
    expect([nots.code, nots.column]).toEqual(['ERR_EXPRESSION_TOO_DEEP', 257]);
    expect(compileExpression(`${'not '.repeat(64)}true`).evaluate(null)).toBe(true);
    const shallow = syntaxError(() => parseExpression('((true))', { maxDepth: 1 }));
    expect([shallow.code, shallow.column]).toEqual(['ERR_EXPRESSION_TOO_DEEP', 2]);
  });

  it.each([
    ['((((', '('.repeat(100_000)],
    ['not not not', `${'not '.repeat(100_000)}true`],
    ['!!!!', `${'!'.repeat(100_000)}true`],
    ['nested calls', 'hasRole('.repeat(100_000)],
    ['balanced', `${'('.repeat(100_000)}true${')'.repeat(100_000)}`],
  ])('gives ERR_EXPRESSION_TOO_DEEP, never a RangeError, for 100,000-deep %s', (_name, text) => {
    const error = syntaxError(() => parseExpression(text, { maxLength: 1_000_000 }));
    expect(error.code).toBe('ERR_EXPRESSION_TOO_DEEP');
    expect(error.column).toBeLessThanOrEqual(65 * 8);
  });

  it('gives TOO_DEEP at the highest allowed maxDepth too', () => {
    const error = syntaxError(() =>
      parseExpression('('.repeat(100_000), { maxLength: 1_000_000, maxDepth: 256 }),
    );
    expect([error.code, error.column]).toEqual(['ERR_EXPRESSION_TOO_DEEP', 257]);
    const deep = `${"(hasRole('x') or not ".repeat(128)}true${')'.repeat(128)}`;
    const check = compileExpression(deep, { maxDepth: 256, maxLength: 1_000_000 });
    expect(check.evaluate(null)).toBe(true);
  });

  it('evaluates long flat chains (they do not nest)', () => {
    const text = `${"hasRole('x') or ".repeat(5000)}isAuthenticated()`;
    const check = compileExpression(text, { maxLength: 1_000_000 });
    expect(check.evaluate(null)).toBe(false);
    const mixed = `${"args.a == 'x' or ".repeat(5000)}true`;
    expect(compileExpression(mixed, { maxLength: 1_000_000 }).evaluate(null, {})).toBe(true);
  });

  it.each([
    ['maxLength', 0],
    ['maxLength', 1.5],
    ['maxLength', 10_000_001],
    ['maxDepth', 0],
    ['maxDepth', 257],
    ['maxDepth', '64'],
  ])('refuses %s: %j', (option, value) => {
    const error = thrown(() => compileExpression('true', { [option]: value }));
    expect(error.code).toBe('ERR_INVALID_OPTION');
    expect(error.option).toBe(option);
  });

  it('refuses unknown options (a typo must not drop a limit)', () => {
    const error = thrown(() =>
      compileExpression('true', { maxdepth: 3 } as unknown as { maxDepth: number }),
    );
    expect([error.code, error.option]).toEqual(['ERR_INVALID_OPTION', 'maxdepth']);
  });

  it('refuses a non-string, non-tree expression', () => {
    for (const bad of [undefined, null, 42]) {
      const error = thrown(() => compileExpression(bad as unknown as string));
      expect([error.code, error.option]).toEqual(['ERR_INVALID_OPTION', 'expression']);
    }
  });

  it('is an ExpressionSyntaxError with the fields documented', () => {
    const error = syntaxError(() => parseExpression('hasRole('));
    expect(error).toBeInstanceOf(ExpressionSyntaxError);
    expect(Object.keys(error)).toEqual(
      expect.arrayContaining(['code', 'column', 'excerpt', 'expression']),
    );
  });
});
