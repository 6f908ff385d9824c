import { makeExecutableSchema } from '@graphql-tools/schema';
import { getIntrospectionQuery, graphql } from 'graphql';
import { describe, expect, it } from 'vitest';
import { securityDirectives } from '../../src/graphql/index.js';
import { ALICE, GUEST, denials, run, secureSchema } from './schema.js';

const SDL = `type Query {
  health: String @permitAll
  profile: String
  post: Post
}
type Post { title: String, author: String @secured(roles: "USER") }
type _Service { sdl: String }
scalar _Any
union _Entity = Post
extend type Query {
  _service: _Service!
  _entities(representations: [_Any!]!): [_Entity]!
}`;

const resolvers = {
  Query: {
    health: () => 'ok',
    profile: () => 'me',
    post: () => ({ title: 't', author: 'a' }),
    _service: () => ({ sdl: 'type Query { health: String }' }),
    _entities: () => [{ title: 't', author: 'a' }],
  },
  _Entity: { __resolveType: () => 'Post' },
};

for (const policy of ['authenticated', 'denyAll'] as const) {
  describe(`defaultPolicy: '${policy}'`, () => {
    const schema = secureSchema(SDL, resolvers, { defaultPolicy: policy });

    it('denies fields without a directive, on every type', async () => {
      const anonymous = await run(schema, '{ profile post { title } }', null);
      expect(denials(anonymous)).toEqual({ profile: 'UNAUTHENTICATED', post: 'UNAUTHENTICATED' });
      const guest = await run(schema, '{ profile }', GUEST);
      if (policy === 'authenticated') expect(guest.data).toEqual({ profile: 'me' });
      else expect(denials(guest)).toEqual({ profile: 'FORBIDDEN' });
    });

    it('keeps explicitly opened fields and directives as written', async () => {
      expect(await run(schema, '{ health }', null)).toEqual({ data: { health: 'ok' } });
      const alice = await run(schema, '{ health profile }', ALICE);
      expect(alice.data?.['health']).toBe('ok');
    });

    it('leaves introspection reachable anonymously', async () => {
      const result = await graphql({
        schema,
        source: getIntrospectionQuery(),
        contextValue: { user: null },
      });
      expect(result.errors).toBeUndefined();
      const types = (result.data?.['__schema'] as { types: { name: string }[] }).types;
      expect(types.map((t) => t.name)).toContain('Post');
      expect(await run(schema, '{ __typename __type(name: "Post") { name } }', null)).toEqual({
        data: { __typename: 'Query', __type: { name: 'Post' } },
      });
    });

    it("leaves Federation's _service and _entities reachable, not the entities' fields", async () => {
      const service = await run(schema, '{ _service { sdl } }', null);
      expect(service).toEqual({ data: { _service: { sdl: 'type Query { health: String }' } } });
      const entities = await run(
        schema,
        '{ _entities(representations: [{}]) { ... on Post { title author } } }',
        null,
      );
      expect(entities.data).toEqual({ _entities: [{ title: null, author: null }] });
      expect(denials(entities)).toEqual({
        '_entities.0.title': 'UNAUTHENTICATED',
        '_entities.0.author': 'UNAUTHENTICATED',
      });
    });
  });
}

describe('the default policy', () => {
  it('is authenticated: a field without a directive refuses an anonymous caller', async () => {
    const { typeDefs, transformer } = securityDirectives();
    const schema = transformer(makeExecutableSchema({ typeDefs: [typeDefs, SDL], resolvers }));
    const result = await run(schema, '{ health profile post { title } }', null);
    expect(result.data).toEqual({ health: 'ok', profile: null, post: null });
    expect(denials(result)).toEqual({ profile: 'UNAUTHENTICATED', post: 'UNAUTHENTICATED' });
    expect((await run(schema, '{ profile }', GUEST)).data).toEqual({ profile: 'me' });
  });

  it("leaves fields without a directive open only with an explicit 'permitAll'", async () => {
    const schema = secureSchema(SDL, resolvers, { defaultPolicy: 'permitAll' });
    expect(await run(schema, '{ profile post { title } }', null)).toEqual({
      data: { profile: 'me', post: { title: 't' } },
    });
  });
});
