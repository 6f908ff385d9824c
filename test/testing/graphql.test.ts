import { makeExecutableSchema } from '@graphql-tools/schema';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, SecurityContext } from '../../src/index.js';
import { securityDirectives } from '../../src/graphql/index.js';
import { executeAs, mockUser } from '../../src/testing/index.js';

const { typeDefs, transformer } = securityDirectives();
const schema = transformer(
  makeExecutableSchema({
    typeDefs: [
      typeDefs,
      /* GraphQL */ `
        type Query {
          health: String @permitAll
          me: String
          post(authorId: String!): String @preAuthorize(expr: "args.authorId == principal.username")
          adminDashboard: AdminStats
          tenant: String @secured(roles: "USER")
        }
        type AdminStats @secured(roles: ["ADMIN"]) {
          users: Int!
        }
      `,
    ],
    resolvers: {
      Query: {
        health: () => 'ok',
        me: () => SecurityContext.requireUser().username,
        post: (_: unknown, { authorId }: { authorId: string }) => `post of ${authorId}`,
        adminDashboard: () => ({ users: 3 }),
        tenant: (_: unknown, __: unknown, ctx: { tenant: string }) => ctx.tenant,
      },
    },
  }),
);

const admin = mockUser('ann', { roles: ['ADMIN', 'USER'] });
const user = mockUser('bob');
const codes = (result: Awaited<ReturnType<typeof executeAs>>) =>
  (result.errors ?? []).map((error) => error.extensions['code']);

describe('executeAs', () => {
  it('enforces the directives as a server does: admin, user, anonymous', async () => {
    const source = '{ health adminDashboard { users } }';
    expect(await executeAs({ schema, source, user: admin })).toEqual({
      data: { health: 'ok', adminDashboard: { users: 3 } },
    });
    const asUser = await executeAs({ schema, source, user });
    expect(asUser.data).toEqual({ health: 'ok', adminDashboard: null });
    expect(codes(asUser)).toEqual(['FORBIDDEN']);
    const anonymous = await executeAs({ schema, source, user: null });
    expect(anonymous.data).toEqual({ health: 'ok', adminDashboard: null });
    expect(codes(anonymous)).toEqual(['UNAUTHENTICATED']);
  });

  it('applies the default policy and fills the SecurityContext in resolvers', async () => {
    expect((await executeAs({ schema, source: '{ me }', user })).data).toEqual({ me: 'bob' });
    expect(codes(await executeAs({ schema, source: '{ me }', user: null }))).toEqual([
      'UNAUTHENTICATED',
    ]);
  });

  it('passes variables, a parsed document and an operation name', async () => {
    const document = parse('query Mine($a: String!) { post(authorId: $a) } query Other { health }');
    const mine = await executeAs({
      schema,
      document,
      operationName: 'Mine',
      variableValues: { a: 'bob' },
      user,
    });
    expect(mine).toEqual({ data: { post: 'post of bob' } });
    const theirs = await executeAs({
      schema,
      document,
      operationName: 'Mine',
      variableValues: { a: 'ann' },
      user,
    });
    expect(codes(theirs)).toEqual(['FORBIDDEN']);
  });

  it('merges the context value, or takes a function of the security context', async () => {
    const merged = await executeAs({
      schema,
      source: '{ tenant }',
      user,
      contextValue: { tenant: 't1' },
    });
    expect(merged).toEqual({ data: { tenant: 't1' } });
    const built = await executeAs({
      schema,
      source: '{ tenant }',
      user,
      contextValue: (security) => ({ ...security, tenant: `t-${security.user?.username}` }),
    });
    expect(built).toEqual({ data: { tenant: 't-bob' } });
  });

  it('answers syntax and validation errors as a server does, without executing', async () => {
    const syntax = await executeAs({ schema, source: '{ health', user });
    expect(syntax.data).toBeUndefined();
    expect(syntax.errors?.[0]?.message).toMatch(/Syntax Error/u);
    const invalid = await executeAs({ schema, source: '{ nope }', user });
    expect(invalid.errors?.[0]?.message).toMatch(/Cannot query field "nope"/u);
  });

  it('refuses a user that is not an AuthenticatedUser, both or neither operation, a user in the context', async () => {
    await expect(executeAs({ schema, source: '{ me }', user: {} as never })).rejects.toThrow(
      TypeError,
    );
    await expect(executeAs({ schema, user })).rejects.toThrow(ConfigurationError);
    await expect(
      executeAs({ schema, source: '{ me }', document: parse('{ me }'), user }),
    ).rejects.toThrow(/exactly one/u);
    await expect(
      executeAs({ schema, source: '{ me }', user, contextValue: { user: admin } }),
    ).rejects.toThrow(/must not hold user/u);
    await expect(executeAs({ schema, query: '{ me }', user } as never)).rejects.toThrow(
      /did you mean "source"/u,
    );
  });
});
