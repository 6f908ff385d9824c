import { describe, expect, it } from 'vitest';
import { compileExpression, parseExpression } from '../../src/expression/index.js';
import { syntaxError, user } from './helpers.js';

/** Evaluates a function-free expression for a user without roles. */
function value(text: string, args?: unknown): boolean {
  return compileExpression(text).evaluate(user(), args);
}

describe('precedence and associativity', () => {
  it('binds and tighter than or', () => {
    expect(value('true or true and false')).toBe(true);
    expect(value('false and true or true')).toBe(true);
    expect(value('(true or true) and false')).toBe(false);
    expect(parseExpression('true or true and false')).toEqual({
      type: 'or',
      operands: [
        { type: 'literal', value: true },
        {
          type: 'and',
          operands: [
            { type: 'literal', value: true },
            { type: 'literal', value: false },
          ],
        },
      ],
    });
  });

  it('binds not tighter than and and or', () => {
    expect(value('not false and false')).toBe(false);
    expect(value('not true or true')).toBe(true);
    expect(value('not (true or true)')).toBe(false);
    expect(value('!false && false')).toBe(false);
  });

  it('binds comparisons tighter than not: !a == b is not (a == b)', () => {
    expect(parseExpression("!args.a == 'x'")).toEqual({
      type: 'not',
      operand: {
        type: 'compare',
        operator: '==',
        left: { type: 'reference', root: 'args', path: ['a'] },
        right: { type: 'literal', value: 'x' },
      },
    });
    expect(value("not args.a == 'x'", { a: 'x' })).toBe(false);
  });

  it('collects a chain of one operator into one left-to-right junction', () => {
    expect(parseExpression('true and false and true')).toEqual({
      type: 'and',
      operands: [true, false, true].map((v) => ({ type: 'literal', value: v })),
    });
    expect(parseExpression('(true and false) and true')).toEqual({
      type: 'and',
      operands: [
        {
          type: 'and',
          operands: [
            { type: 'literal', value: true },
            { type: 'literal', value: false },
          ],
        },
        { type: 'literal', value: true },
      ],
    });
  });

  it('nests not', () => {
    expect(value('not not true')).toBe(true);
    expect(value('!!!true')).toBe(false);
    expect(value('! ! true')).toBe(true);
    expect(value('not(true)')).toBe(false);
  });
});

describe('keywords and symbols', () => {
  it.each([
    ['TRUE AND FALSE', false],
    ['True Or False', true],
    ['NOT false', true],
    ['nOt FaLsE aNd TrUe', true],
    ['true && false', false],
    ['true || false', true],
    ['true&&!false', true],
    ['false||!false', true],
    ['args.a == NULL', true],
  ])('%s', (text, expected) => {
    expect(value(text, { a: null })).toBe(expected);
  });

  it('mixes keyword and symbol spellings in one chain', () => {
    expect(parseExpression('true and false && true')).toEqual(
      parseExpression('true AND false AND true'),
    );
    expect(parseExpression('true || false or true')).toEqual(
      parseExpression('true or false or true'),
    );
  });

  it('needs a keyword to be a whole word', () => {
    expect(syntaxError(() => parseExpression('nottrue')).code).toBe(
      'ERR_EXPRESSION_UNKNOWN_REFERENCE',
    );
    expect(syntaxError(() => parseExpression('true andfalse')).code).toBe(
      'ERR_EXPRESSION_TRAILING_INPUT',
    );
  });

  it('keeps function names case-sensitive', () => {
    const error = syntaxError(() => parseExpression("HasRole('x')"));
    expect(error.code).toBe('ERR_EXPRESSION_UNKNOWN_FUNCTION');
    expect(error.message).toContain('"hasRole"');
  });

  it('accepts space, tab, CR and LF anywhere between tokens, and none where not needed', () => {
    const spaced = " \t\n\r hasRole ( 'a' ) \n and \t hasAnyRole(\r'b' ,\n'c' )\t";
    expect(parseExpression(spaced)).toEqual(
      parseExpression("hasRole('a') and hasAnyRole('b','c')"),
    );
    expect(parseExpression('args . post . id == 1')).toEqual(parseExpression('args.post.id == 1'));
  });

  it('refuses other white space (no look-alike characters)', () => {
    expect(syntaxError(() => parseExpression('true\u00a0and true')).code).toBe(
      'ERR_EXPRESSION_UNEXPECTED_TOKEN',
    );
    expect(syntaxError(() => parseExpression('true\u2028and true')).code).toBe(
      'ERR_EXPRESSION_UNEXPECTED_TOKEN',
    );
  });
});

describe('string literals', () => {
  it.each([
    ["'plain'", 'plain'],
    ['"double"', 'double'],
    ["'it\\'s'", "it's"],
    ['"say \\"hi\\""', 'say "hi"'],
    ["'back\\\\slash'", 'back\\slash'],
    ["'a\\nb\\tc'", 'a\nb\tc'],
    ["'\\u0041\\u00e9\\uD83D\\uDE00'", 'Aé😀'],
    ['"it\'s"', "it's"],
    ['\'say "hi"\'', 'say "hi"'],
    ["'and or not ( ) == hasRole'", 'and or not ( ) == hasRole'],
  ])('%s', (literal, expected) => {
    expect(parseExpression(`hasRole(${literal})`)).toEqual({
      type: 'call',
      name: 'hasRole',
      args: [{ type: 'literal', value: expected }],
    });
  });
});

describe('number literals', () => {
  it.each([
    ['1', 1],
    ['-1.5e3', -1500],
    ['0.25', 0.25],
    ['1E+2', 100],
    ['-0', 0],
  ])('%s', (literal, expected) => {
    const node = parseExpression(`args.n == ${literal}`);
    expect(node).toEqual({
      type: 'compare',
      operator: '==',
      left: { type: 'reference', root: 'args', path: ['n'] },
      right: { type: 'literal', value: expected },
    });
    expect(Object.is((node as { right: { value: number } }).right.value, -0)).toBe(false);
  });

  it.each(['01', '1.', '.5', '1e', '1x', '- 1', '1e400', '+1', '1.2.3'])(
    'refuses %s',
    (literal) => {
      expect(syntaxError(() => parseExpression(`args.n == ${literal}`)).code).toBe(
        'ERR_EXPRESSION_UNEXPECTED_TOKEN',
      );
    },
  );
});

describe('permitAll and the canonical form', () => {
  it('accepts permitAll without parentheses, as Spring does', () => {
    expect(parseExpression('permitAll')).toEqual(parseExpression('permitAll()'));
    expect(value('permitAll')).toBe(true);
    expect(compileExpression('permitAll').evaluate(null)).toBe(true);
    expect(value('not permitAll or false')).toBe(false);
  });

  it('prints every spelling in one canonical form', () => {
    expect(
      compileExpression('hasRole("a") && !permitAll || TRUE AND (hasRole(\'b\') OR false)').source,
    ).toBe("hasRole('a') and not permitAll() or true and (hasRole('b') or false)");
    expect(String(compileExpression('!(true||false)'))).toBe('not (true or false)');
  });

  it('gives an evaluate that works unbound, and parses trees too', () => {
    const { evaluate } = compileExpression("hasRole('a') or isAnonymous()");
    expect(evaluate(null)).toBe(true);
    expect(evaluate(user(['a']))).toBe(true);
    expect(evaluate(user(['b']))).toBe(false);
    const tree = parseExpression("hasRole('a')");
    expect(parseExpression(tree)).toEqual(tree);
  });

  it('consumes the whole input: an expression is never silently shortened', () => {
    for (const text of [
      "hasRole('a') hasRole('b')",
      "hasRole('a')) or permitAll",
      "hasRole('a'), permitAll",
      'true;permitAll',
    ]) {
      expect(() => parseExpression(text)).toThrow();
    }
  });
});
