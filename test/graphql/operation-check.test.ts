import { buildSchema, execute, parse, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { checkOperation, useOperationCheck, withOperationCheck } from '../../src/graphql/index.js';
import { ADMIN, ALICE, GUEST, secureSchema } from './schema.js';

const calls: string[] = [];
const track =
  <T>(name: string, value: T) =>
  () => {
    calls.push(name);
    return value;
  };

const schema = secureSchema(
  `type Query {
     health: String
     profile: String @secured(roles: "USER")
     post(authorId: String!): Post @preAuthorize(expr: "args.authorId == principal.username or hasRole('ADMIN')")
     feed: [Item!]!
     node: Node
   }
   type Post { title: String, stats: Stats }
   type Stats @secured(roles: "ADMIN") { views: Int }
   union Item = Post | Ad
   type Ad { text: String, price: Int @secured(roles: "ADMIN") }
   interface Node { id: ID }
   type Open implements Node { id: ID }
   type Closed implements Node { id: ID @denyAll }
   type Mutation { publish: String @preAuthorize(authority: "posts:write") }`,
  {
    Query: {
      health: track('health', 'ok'),
      profile: track('profile', 'me'),
      post: track('post', { title: 't', stats: { views: 1 } }),
      feed: track('feed', []),
      node: track('node', { __typename: 'Open', id: '1' }),
    },
    Mutation: { publish: track('publish', 'done') },
    Item: { __resolveType: (o: { __typename: string }) => o.__typename },
    Node: { __resolveType: (o: { __typename: string }) => o.__typename },
  },
);

async function check(source: string, user: unknown, variables?: Record<string, unknown>) {
  const errors = await checkOperation({
    schema,
    document: parse(source),
    variableValues: variables ?? null,
    contextValue: { user },
  });
  return errors.map((e) => `${(e.path ?? []).join('.')}:${String(e.extensions['code'])}`);
}

describe('checkOperation', () => {
  it('passes an operation whose every field is allowed', async () => {
    expect(await check('{ health profile post(authorId: "alice") { title } }', ALICE)).toEqual([]);
  });

  it('lists every denied field with its response path, alias and code', async () => {
    expect(await check('{ health p: profile post(authorId: "bob") { title } }', null)).toEqual([
      'p:UNAUTHENTICATED',
      'post:UNAUTHENTICATED',
    ]);
    // Post.stats returns Stats (@secured ADMIN): the field itself is denied, and its fields.
    expect(await check('{ post(authorId: "alice") { stats { views } } }', ALICE)).toEqual([
      'post.stats:FORBIDDEN',
      'post.stats.views:FORBIDDEN',
    ]);
  });

  it('evaluates argument rules with variables', async () => {
    const query = 'query($a: String!) { post(authorId: $a) { title } }';
    expect(await check(query, ALICE, { a: 'alice' })).toEqual([]);
    expect(await check(query, ALICE, { a: 'bob' })).toEqual(['post:FORBIDDEN']);
  });

  it('follows named and inline fragments, and @skip / @include', async () => {
    const query = `query($show: Boolean!) {
      ...Top
      ... on Query { post(authorId: "alice") { ...Deep } }
      profile @include(if: $show)
    }
    fragment Top on Query { health }
    fragment Deep on Post { stats @skip(if: $show) { views } }`;
    expect(await check(query, ALICE, { show: false })).toEqual([
      'post.stats:FORBIDDEN',
      'post.stats.views:FORBIDDEN',
    ]);
    expect(await check(query, GUEST, { show: true })).toEqual([
      'post:FORBIDDEN',
      'profile:FORBIDDEN',
    ]);
  });

  it('checks a field selected on an abstract type for every type it may resolve to', async () => {
    expect(await check('{ feed { ... on Ad { text price } } }', ALICE)).toEqual([
      'feed.price:FORBIDDEN',
    ]);
    expect(await check('{ node { id } }', ADMIN)).toEqual(['node.id:FORBIDDEN']);
    expect(await check('{ node { ... on Open { id } } }', null)).toEqual([]);
  });

  it('never restricts introspection', async () => {
    expect(await check('{ __typename __schema { queryType { name } } }', null)).toEqual([]);
  });

  it('checks mutations', async () => {
    expect(await check('mutation { publish }', ALICE)).toEqual(['publish:FORBIDDEN']);
    expect(await check('mutation { publish }', ADMIN)).toEqual(['publish:FORBIDDEN']);
  });

  it('leaves invalid operations to execution', async () => {
    expect(await check('query($a: String!) { post(authorId: $a) { title } }', null, {})).toEqual(
      [],
    );
    const errors = await checkOperation({
      schema,
      document: parse('{ profile }'),
      operationName: 'Missing',
      contextValue: { user: null },
    });
    expect(errors).toEqual([]);
  });

  it('stays linear on nested fragment spreads (no exponential walk)', async () => {
    // Each fragment spreads the next twice: 2^30 paths if walked naively.
    const depth = 30;
    const fragments = Array.from(
      { length: depth },
      (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`,
    );
    fragments.push(`fragment F${depth} on Query { profile }`);
    // One check, not 2^30: a naive walk would never finish (the test would time out).
    expect(await check(`{ ...F0 } ${fragments.join(' ')}`, null)).toEqual([
      'profile:UNAUTHENTICATED',
    ]);
  });

  it('refuses a schema that did not go through the transformer', () => {
    const plain = buildSchema('type Query { a: Int }');
    expect(() => checkOperation({ schema: plain, document: parse('{ a }') })).toThrow(
      ConfigurationError,
    );
  });
});

describe('withOperationCheck and useOperationCheck', () => {
  const args = (source: string, user: unknown): ExecutionArgs => ({
    schema,
    document: parse(source),
    contextValue: { user },
  });

  it('refuses the whole operation before any resolver runs', async () => {
    const guarded = withOperationCheck(execute);
    calls.length = 0;
    const refused = await guarded(args('{ health profile }', null));
    expect(refused.data).toBeUndefined();
    expect(refused.errors?.map((e) => e.extensions['code'])).toEqual(['UNAUTHENTICATED']);
    expect(calls).toEqual([]);
    const allowed = await guarded(args('{ health profile }', ALICE));
    expect(allowed).toEqual({ data: { health: 'ok', profile: 'me' } });
    expect(calls).toEqual(['health', 'profile']);
  });

  it('stops execution from an Envelop onExecute hook', async () => {
    const plugin = useOperationCheck();
    let result: ExecutionResult | undefined;
    await plugin.onExecute({
      args: args('mutation { publish }', ALICE),
      setResultAndStopExecution: (r) => {
        result = r;
      },
    });
    expect(result?.errors?.[0]?.extensions['code']).toBe('FORBIDDEN');
    result = undefined;
    await plugin.onSubscribe({
      args: args('{ health }', null),
      setResultAndStopExecution: (r) => {
        result = r;
      },
    });
    expect(result).toBeUndefined();
  });

  it('refuses a function that is not an execute function', () => {
    expect(() => withOperationCheck('execute' as never)).toThrow(ConfigurationError);
  });
});
