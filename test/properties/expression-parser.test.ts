import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpressionSyntaxError, parseExpression } from '../../src/expression/index.js';

// The expression parser takes rules written by people: whatever it is given, it
// answers a tree or its typed error with a stable code, never anything else.

const WORDS = [
  'hasRole',
  'hasAnyRole',
  'hasAuthority',
  'isAuthenticated',
  'permitAll',
  'denyAll',
  'principal',
  'args',
  'username',
  'and',
  'or',
  'not',
  '!',
  '&&',
  '||',
  '==',
  '!=',
  '(',
  ')',
  ',',
  '.',
  "'",
  '"',
  "'USER'",
  '"a\\u0041"',
  '\\',
  'true',
  'false',
  '1',
  '-1',
  '1e309',
  ' ',
  '\t',
  '\n',
  '\u2028',
  '\u0000',
  '\ud800',
  'in',
  '[',
  ']',
  '{',
  '}',
  '$',
  'constructor',
  '__proto__',
];

const expression = fc.oneof(
  fc.array(fc.constantFrom(...WORDS), { maxLength: 30 }).map((w) => w.join('')),
  fc.array(fc.constantFrom(...WORDS), { maxLength: 30 }).map((w) => w.join(' ')),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.integer({ min: 1, max: 400 }).map((n) => `${'('.repeat(n)}permitAll${')'.repeat(n)}`),
  fc.integer({ min: 1, max: 400 }).map((n) => `${'not '.repeat(n)}permitAll`),
);

describe('parseExpression', () => {
  it('answers a tree or an ExpressionSyntaxError with a code and a column, nothing else', () => {
    fc.assert(
      fc.property(expression, (text) => {
        try {
          parseExpression(text);
        } catch (error) {
          expect(error, JSON.stringify(text)).toBeInstanceOf(ExpressionSyntaxError);
          const syntax = error as ExpressionSyntaxError;
          expect(syntax.code).toMatch(/^ERR_EXPRESSION_[A-Z_]+$/u);
          expect(syntax.column).toBeGreaterThanOrEqual(1);
          expect(syntax.column).toBeLessThanOrEqual(text.length + 1);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
