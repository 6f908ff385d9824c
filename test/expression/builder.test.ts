import { describe, expect, it } from 'vitest';
import {
  compileExpression,
  expr,
  parseExpression,
  printExpression,
  type ExpressionNode,
} from '../../src/expression/index.js';
import { syntaxError, thrown, user } from './helpers.js';

describe('expr builders', () => {
  it('build the trees the parser builds', () => {
    const cases: [ExpressionNode, string][] = [
      [expr.hasRole('A'), "hasRole('A')"],
      [expr.hasAnyRole('A', 'B'), "hasAnyRole('A', 'B')"],
      [expr.hasAuthority('a:b'), "hasAuthority('a:b')"],
      [expr.hasAnyAuthority('a', 'b'), "hasAnyAuthority('a', 'b')"],
      [expr.isAuthenticated(), 'isAuthenticated()'],
      [expr.isAnonymous(), 'isAnonymous()'],
      [expr.permitAll(), 'permitAll()'],
      [expr.denyAll(), 'denyAll()'],
      [expr.true(), 'true'],
      [expr.false(), 'false'],
      [expr.not(expr.and(expr.true(), expr.false())), 'not (true and false)'],
      [expr.or(expr.and(expr.true(), expr.false()), expr.true()), 'true and false or true'],
      [expr.and(expr.or(expr.true(), expr.false()), expr.true()), '(true or false) and true'],
      [expr.and(expr.and(expr.true(), expr.false()), expr.true()), '(true and false) and true'],
      [
        expr.eq(expr.args('post', 'authorId'), expr.principal('username')),
        'args.post.authorId == principal.username',
      ],
      [expr.ne(expr.args('n'), 1.5), 'args.n != 1.5'],
      [
        expr.eq(null, expr.principal('attributes', 'tenant')),
        'null == principal.attributes.tenant',
      ],
      [expr.eq(expr.args('items', '0'), expr.literal(false)), 'args.items.0 == false'],
      [expr.call('isOwner', expr.args('id'), 'post'), "isOwner(args.id, 'post')"],
      [expr.not(expr.eq(expr.args('a'), 'x')), "not args.a == 'x'"],
    ];
    for (const [node, text] of cases) {
      expect(printExpression(node)).toBe(text);
      expect(
        parseExpression(text, {
          functions: { isOwner: { params: ['reference', 'string'], call: () => true } },
        }),
      ).toEqual(node);
    }
  });

  it('return a single condition of and/or as it is, and refuse none', () => {
    const role = expr.hasRole('A');
    expect(expr.and(role)).toBe(role);
    expect(expr.or(role)).toBe(role);
    expect(thrown(() => expr.and()).code).toBe('ERR_INVALID_OPTION');
    expect(thrown(() => expr.or(...[])).option).toBe('or');
    expect(thrown(() => expr.hasAnyRole()).option).toBe('hasAnyRole');
  });

  it.each<[string, () => unknown, string]>([
    ['a non-string role', () => expr.hasRole(1 as unknown as string), 'hasRole'],
    [
      'a non-string authority',
      () => expr.hasAnyAuthority('a', null as unknown as string),
      'hasAnyAuthority',
    ],
    [
      'a value as a condition',
      () => expr.and(expr.args('x') as unknown as ExpressionNode, expr.true()),
      'and',
    ],
    [
      'a string literal as a condition',
      () => expr.not(expr.literal('x') as unknown as ExpressionNode),
      'not',
    ],
    ['a non-node', () => expr.or({} as ExpressionNode, expr.true()), 'or'],
    ['an unknown principal field', () => expr.principal('password'), 'principal'],
    ['principal.attributes alone', () => expr.principal('attributes'), 'principal'],
    ['a bare args', () => expr.args(), 'args'],
    ['a segment with syntax in it', () => expr.args("x == 'y' or permitAll"), 'args'],
    ['an empty segment', () => expr.args(''), 'args'],
    ['NaN', () => expr.literal(Number.NaN), 'literal'],
    ['Infinity', () => expr.eq(expr.args('a'), Number.POSITIVE_INFINITY), 'eq'],
    ['an object literal', () => expr.literal({} as unknown as string), 'literal'],
    ['a call as a compared value', () => expr.ne(expr.hasRole('x') as never, 1), 'ne'],
    ['a function name with syntax', () => expr.call('permitAll() or f'), 'call'],
    ['a number argument', () => expr.call('f', 1 as unknown as string), 'call'],
  ])('refuse %s', (_name, build, option) => {
    const error = thrown(build);
    expect([error.code, error.option]).toEqual(['ERR_INVALID_OPTION', option]);
  });

  it('make frozen nodes', () => {
    const node = expr.and(expr.hasAnyRole('A', 'B'), expr.eq(expr.args('x'), 1));
    expect(Object.isFrozen(node)).toBe(true);
    const call = (node as { operands: readonly ExpressionNode[] }).operands[0] as unknown as {
      args: unknown[];
    };
    expect(Object.isFrozen(call.args)).toBe(true);
    expect(() => {
      call.args.push({ type: 'literal', value: 'C' });
    }).toThrow(TypeError);
  });

  it('compile a tree built from data', () => {
    const config = { admins: ['ADMIN', 'ROOT'], writers: ['posts:write'] };
    const rule = compileExpression(
      expr.or(
        expr.hasAnyRole(...config.admins),
        expr.and(
          expr.hasAnyAuthority(...config.writers),
          expr.eq(expr.args('authorId'), expr.principal('username')),
        ),
      ),
    );
    expect(rule.source).toBe(
      "hasAnyRole('ADMIN', 'ROOT') or hasAnyAuthority('posts:write') and args.authorId == principal.username",
    );
    expect(rule.evaluate(user(['ROOT']), {})).toBe(true);
    expect(rule.evaluate(user([], ['posts:write'], { username: 'bob' }), { authorId: 'bob' })).toBe(
      true,
    );
    expect(rule.evaluate(user([], ['posts:write'], { username: 'bob' }), { authorId: 'eve' })).toBe(
      false,
    );
  });
});

describe('compiling and printing hand-made trees', () => {
  it('validates a tree from JSON through the parser, with columns in its printed form', () => {
    const tree = JSON.parse(
      '{"type":"and","operands":[{"type":"literal","value":true},{"type":"literal","value":"x"}]}',
    ) as ExpressionNode;
    const error = syntaxError(() => compileExpression(tree));
    expect([error.code, error.column, error.expression]).toEqual([
      'ERR_EXPRESSION_TYPE',
      10,
      "true and 'x'",
    ]);
    const unknown = syntaxError(() =>
      compileExpression({ type: 'call', name: 'hasRol', args: [] }),
    );
    expect(unknown.code).toBe('ERR_EXPRESSION_UNKNOWN_FUNCTION');
    expect(syntaxError(() => compileExpression(expr.call('hasRole'))).code).toBe(
      'ERR_EXPRESSION_ARGUMENT_COUNT',
    );
    const field = syntaxError(() =>
      compileExpression({
        type: 'compare',
        operator: '==',
        left: { type: 'reference', root: 'principal', path: ['password'] },
        right: { type: 'literal', value: 'x' },
      }),
    );
    expect([field.code, field.column]).toEqual(['ERR_EXPRESSION_UNKNOWN_REFERENCE', 11]);
  });

  it.each<[string, unknown]>([
    ['an unknown node type', { type: 'eval', code: 'x' }],
    ['a non-object', 42],
    ['null', null],
    ['a junction of one', { type: 'or', operands: [{ type: 'literal', value: true }] }],
    ['operands that are not an array', { type: 'and', operands: 'true' }],
    [
      'a reference segment with syntax',
      { type: 'reference', root: 'args', path: ["a == 'b' or permitAll"] },
    ],
    ['a reference segment with a dot', { type: 'reference', root: 'args', path: ['a.b'] }],
    ['an unknown root', { type: 'reference', root: 'process', path: ['env'] }],
    ['a call name with syntax', { type: 'call', name: 'permitAll() or hasRole', args: [] }],
    ['arguments that are not an array', { type: 'call', name: 'hasRole', args: 'x' }],
    [
      'an unknown operator',
      {
        type: 'compare',
        operator: '===',
        left: { type: 'literal', value: 1 },
        right: { type: 'literal', value: 1 },
      },
    ],
    ['a non-finite number', { type: 'literal', value: Number.POSITIVE_INFINITY }],
    ['an undefined literal', { type: 'literal', value: undefined }],
  ])('refuses %s with a ConfigurationError, never with injected text', (_name, tree) => {
    const error = thrown(() => printExpression(tree as ExpressionNode));
    expect([error.code, error.option]).toEqual(['ERR_INVALID_OPTION', 'expression']);
    expect(thrown(() => compileExpression(tree as ExpressionNode)).code).toBe('ERR_INVALID_OPTION');
  });

  it('refuses a cyclic tree', () => {
    const operands: unknown[] = [{ type: 'literal', value: true }];
    const cyclic = { type: 'and', operands };
    operands.push(cyclic);
    expect(thrown(() => printExpression(cyclic as ExpressionNode)).code).toBe('ERR_INVALID_OPTION');
  });

  it('gives TOO_DEEP for a tree nested deeper than maxDepth', () => {
    let node: ExpressionNode = expr.true();
    for (let i = 0; i < 100; i++) node = expr.not(node);
    expect(syntaxError(() => compileExpression(node)).code).toBe('ERR_EXPRESSION_TOO_DEEP');
    for (let i = 0; i < 100_000; i++) node = expr.not(node);
    expect(thrown(() => compileExpression(node)).code).toBe('ERR_INVALID_OPTION');
  });

  it('escapes every special character in strings', () => {
    const text = printExpression(
      expr.hasRole('a\'b\\c"d\ne\tf\u0000g\u007fh\u2028i\u202ej\ufeffk\ud800l😀'),
    );
    expect(text).toBe(
      "hasRole('a\\'b\\\\c\"d\\ne\\tf\\u0000g\\u007fh\\u2028i\\u202ej\\ufeffk\\ud800l😀')",
    );
  });

  it('compiles to an immutable result whose source is the printed tree', () => {
    const tree = expr.or(expr.hasRole('A'), expr.eq(expr.args('x'), 'y'));
    const rule = compileExpression(tree);
    expect(rule.source).toBe(printExpression(tree));
    expect(rule.ast).toEqual(tree);
    expect(Object.isFrozen(rule)).toBe(true);
    expect(Object.isFrozen(rule.ast)).toBe(true);
    expect(() => {
      (rule as { async: boolean }).async = true;
    }).toThrow(TypeError);
  });
});
