/**
 * fast-check arbitraries for expression trees, users and arguments, and a
 * straightforward reference interpreter the compiled checks are compared with.
 */
import fc from 'fast-check';
import type { AuthenticatedUser } from '../../src/core/index.js';
import type {
  ArgumentNode,
  CallNode,
  ExpressionNode,
  LiteralNode,
  ReferenceNode,
  ValueNode,
} from '../../src/expression/index.js';
import { user } from './helpers.js';

/** Names a user can hold (non-empty, no control characters). */
export const NAMES = [
  'USER',
  'ADMIN',
  'a:b',
  'a:b:c',
  '__proto__',
  'constructor',
  "o'brien",
  'x\\y',
  'é',
  '😀',
];
/** Names an expression may check: every held name and some odd ones. */
// No '': an empty role or authority name is refused when the expression is parsed.
const CHECKED = [...NAMES, 'line\nbreak', 'bidi\u202e', "') or permitAll() or ('", 'toString'];
const KEYS = ['a', 'b', '0', '1', 'post', 'id', '__proto__', 'constructor', 'and', 'or', 'not'];
const STRINGS = ['alice', 'bob', '', 'x', '1', "it's", 'ADMIN'];

/** Custom functions the arbitraries call: pure, throwing and asynchronous. */
export const FUNCTIONS = {
  isText: {
    params: ['value'],
    call: (_u: AuthenticatedUser | null, v: unknown) => typeof v === 'string',
  },
  named: {
    params: ['string'],
    call: (u: AuthenticatedUser | null, name: string) => u?.username === name,
  },
  boom: {
    params: [],
    call: (): boolean => {
      throw new Error('boom');
    },
  },
  later: {
    params: ['reference'],
    async: true,
    call: (_u: AuthenticatedUser | null, v: unknown) => Promise.resolve(v === 'alice'),
  },
} as const;

const name = fc.constantFrom(...CHECKED);
const literal = (value: LiteralNode['value']): LiteralNode => ({ type: 'literal', value });
const call = (callName: string, args: ArgumentNode[] = []): CallNode => ({
  type: 'call',
  name: callName,
  args,
});

const argsReference: fc.Arbitrary<ReferenceNode> = fc
  .array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 3 })
  .map((path) => ({ type: 'reference', root: 'args', path }));

const principalReference: fc.Arbitrary<ReferenceNode> = fc
  .oneof(
    fc.constantFrom<string[]>(['username'], ['authenticationMethod']),
    fc
      .array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 2 })
      .map((p) => ['attributes', ...p]),
  )
  .map((path) => ({ type: 'reference', root: 'principal', path }));

const number = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n)),
);

const valueNode: fc.Arbitrary<ValueNode> = fc.oneof(
  argsReference,
  principalReference,
  fc.constantFrom(...STRINGS).map(literal),
  number.map(literal),
  fc.boolean().map(literal),
  fc.constant(literal(null)),
);

const builtin: fc.Arbitrary<ExpressionNode> = fc.oneof(
  name.map((n) => call('hasRole', [literal(n) as ArgumentNode])),
  name.map((n) => call('hasAuthority', [literal(n) as ArgumentNode])),
  fc.array(name, { minLength: 1, maxLength: 3 }).map((ns) =>
    call(
      'hasAnyRole',
      ns.map((n) => literal(n) as ArgumentNode),
    ),
  ),
  fc.array(name, { minLength: 1, maxLength: 3 }).map((ns) =>
    call(
      'hasAnyAuthority',
      ns.map((n) => literal(n) as ArgumentNode),
    ),
  ),
  fc.constantFrom('isAuthenticated', 'isAnonymous', 'permitAll', 'denyAll').map((n) => call(n)),
  fc.boolean().map((b) => literal(b) as LiteralNode<boolean>),
);

const compare: fc.Arbitrary<ExpressionNode> = fc
  .tuple(fc.constantFrom<'==' | '!='>('==', '!='), valueNode, valueNode)
  .map(([operator, left, right]) => ({ type: 'compare', operator, left, right }));

const custom = (withAsync: boolean): fc.Arbitrary<ExpressionNode> =>
  fc.oneof(
    fc
      .oneof(argsReference, principalReference, fc.constantFrom(...STRINGS).map(literal))
      .map((v) => call('isText', [v as ArgumentNode])),
    fc.constantFrom(...STRINGS).map((s) => call('named', [literal(s) as ArgumentNode])),
    fc.constant(call('boom')),
    ...(withAsync
      ? [fc.oneof(argsReference, principalReference).map((r) => call('later', [r]))]
      : []),
  );

/** Random condition trees; `functions` adds calls of {@link FUNCTIONS}. */
export function expressionTree(
  options: { functions?: boolean; async?: boolean } = {},
): fc.Arbitrary<ExpressionNode> {
  const leaves: fc.Arbitrary<ExpressionNode>[] = [builtin, builtin, compare];
  if (options.functions === true) leaves.push(custom(options.async === true));
  const { tree } = fc.letrec<{ tree: ExpressionNode }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      ...leaves,
      tie('tree').map((operand): ExpressionNode => ({ type: 'not', operand })),
      fc
        .tuple(
          fc.constantFrom<'and' | 'or'>('and', 'or'),
          fc.array(tie('tree'), { minLength: 2, maxLength: 4 }),
        )
        .map(([type, operands]): ExpressionNode => ({ type, operands })),
    ),
  }));
  return tree;
}

/** A JSON-like argument value over the same keys the references use. */
const argValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...STRINGS),
    fc.integer({ min: -3, max: 3 }),
    fc.boolean(),
    fc.constant(null),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
    fc.array(tie('value'), { maxLength: 3 }),
  ),
})).value;

/** Arguments: usually an object (sometimes parsed from JSON, with own `__proto__`). */
export const argsValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.dictionary(fc.constantFrom(...KEYS), argValue, { maxKeys: 5 }),
  fc
    .dictionary(fc.constantFrom(...KEYS), argValue, { maxKeys: 5 })
    .map((o) => JSON.parse(JSON.stringify(o)) as unknown),
  argValue,
);

/** The anonymous user or a user holding some of {@link NAMES}. */
export const someUser: fc.Arbitrary<AuthenticatedUser | null> = fc.option(
  fc
    .record({
      roles: fc.subarray(NAMES),
      authorities: fc.subarray(NAMES),
      username: fc.constantFrom('alice', 'bob'),
      attributes: fc.dictionary(fc.constantFrom(...KEYS), argValue, { maxKeys: 3 }),
    })
    .map((u) => user(u.roles, u.authorities, { username: u.username, attributes: u.attributes })),
  { freq: 4 },
);
