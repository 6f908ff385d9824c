import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecurityEvents } from '../../src/core/index.js';
import {
  compileExpression,
  parseExpression,
  printExpression,
  type AnyExpressionNode,
  type ExpressionNode,
} from '../../src/expression/index.js';
import { FUNCTIONS, argsValue, expressionTree, someUser } from './arbitraries.js';
import { callsAsync, reference } from './reference-interpreter.js';

const options = { functions: FUNCTIONS, events: new SecurityEvents() };

/**
 * Prints a tree in a random but equivalent spelling: keyword case, symbol forms,
 * white space, redundant parentheses, double quotes and escapes.
 */
function noisy(node: AnyExpressionNode, pick: () => number): string {
  const space = () => [' ', '  ', '\t', '\n', ' \r\n '][pick() % 5] ?? ' ';
  const gap = () => (pick() % 3 === 0 ? '' : space());
  const word = (w: string) => w.replaceAll(/[a-z]/gu, (c) => (pick() % 2 ? c.toUpperCase() : c));
  const paren = (text: string) => (pick() % 4 === 0 ? `(${gap()}${text}${gap()})` : text);
  const string = (value: string) => {
    const quote = pick() % 2 ? '"' : "'";
    let body = '';
    for (const c of value) {
      const code = c.codePointAt(0) ?? 0;
      if (c === quote || c === '\\') body += `\\${c}`;
      else if (c === '\n') body += pick() % 2 ? '\\n' : '\\u000a';
      else if (
        code < 0x20 ||
        (code >= 0x7f && code <= 0x9f) ||
        code === 0x2028 ||
        code === 0x2029
      ) {
        body += `\\u${code.toString(16).padStart(4, '0')}`;
      } else if (code < 0x10000 && pick() % 5 === 0) {
        body += `\\u${code.toString(16).padStart(4, '0')}`;
      } else body += c;
    }
    return `${quote}${body}${quote}`;
  };
  const print = (n: AnyExpressionNode): string => {
    switch (n.type) {
      case 'literal':
        if (typeof n.value === 'string') return string(n.value);
        if (typeof n.value === 'number') return String(n.value);
        return word(String(n.value));
      case 'reference':
        return [n.root, ...n.path].join(`${gap()}.${gap()}`);
      case 'call':
        if (n.name === 'permitAll' && pick() % 2 === 0) return 'permitAll';
        return `${n.name}${gap()}(${gap()}${n.args.map(print).join(`${gap()},${gap()}`)}${gap()})`;
      case 'compare':
        return `${paren(print(n.left))}${gap()}${n.operator}${gap()}${paren(print(n.right))}`;
      case 'not': {
        const inner = print(n.operand);
        const wrapped =
          n.operand.type === 'and' || n.operand.type === 'or' ? `(${inner})` : paren(inner);
        return pick() % 2 ? `!${gap()}${wrapped}` : `${word('not')}${space()}${wrapped}`;
      }
      case 'and':
      case 'or': {
        const symbol = n.type === 'and' ? '&&' : '||';
        return n.operands
          .map((child) => {
            const text = print(child);
            return child.type === n.type || child.type === 'or' ? `(${text})` : paren(text);
          })
          .reduce((all, text) => {
            const operator = pick() % 2 ? symbol : word(n.type);
            return `${all}${operator === symbol ? gap() : space()}${operator}${operator === symbol ? gap() : space()}${text}`;
          });
      }
    }
  };
  return `${gap()}${print(node)}${gap()}`;
}

describe('properties', () => {
  it('parse ∘ print is the identity on trees', () => {
    fc.assert(
      fc.property(expressionTree({ functions: true, async: true }), (tree) => {
        const text = printExpression(tree);
        expect(parseExpression(text, options)).toEqual(tree);
        // Printing is canonical: printing the parsed tree gives the same text.
        expect(printExpression(parseExpression(text, options))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('every spelling of a tree parses to the same tree', () => {
    fc.assert(
      fc.property(
        expressionTree({ functions: true, async: true }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
        (tree, choices) => {
          let index = 0;
          const pick = () => choices[index++ % choices.length] ?? 0;
          const text = noisy(tree, pick);
          expect(parseExpression(text, { ...options, maxLength: 100_000 })).toEqual(tree);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the compiled check agrees with the reference interpreter', () => {
    fc.assert(
      fc.property(
        expressionTree({ functions: true }),
        fc.array(fc.tuple(someUser, argsValue), { minLength: 1, maxLength: 4 }),
        (tree, cases) => {
          const fromTree = compileExpression(tree, options);
          const fromText = compileExpression(printExpression(tree), options);
          expect(fromTree.async).toBe(false);
          for (const [who, args] of cases) {
            const expected = reference(tree, who, args);
            expect(fromTree.evaluate(who, args)).toBe(expected);
            expect(fromText.evaluate(who, args)).toBe(expected);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('the compiled check agrees with the reference interpreter, functions asynchronous', async () => {
    await fc.assert(
      fc.asyncProperty(
        expressionTree({ functions: true, async: true }),
        someUser,
        argsValue,
        async (tree: ExpressionNode, who, args) => {
          const compiled = compileExpression(tree, options);
          expect(compiled.async).toBe(callsAsync(tree));
          const result = compiled.evaluate(who, args);
          expect(typeof result === 'boolean').toBe(!compiled.async);
          expect(await result).toBe(reference(tree, who, args));
        },
      ),
      { numRuns: 300 },
    );
  });
});
