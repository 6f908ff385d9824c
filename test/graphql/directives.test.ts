import { describe, expect, it } from 'vitest';
import { ADMIN, ALICE, GUEST, WRITER, denials, run, secureSchema } from './schema.js';

const SDL = /* GraphQL */ `
  type Query {
    securedList: String @secured(roles: ["ADMIN", "WRITER_ROLE"])
    securedOne: String @secured(roles: "USER")
    rolesAllowed: String @rolesAllowed(roles: "ADMIN")
    preExpr: String @preAuthorize(expr: "hasRole('USER') and hasAuthority('posts:read')")
    preAuthority: String @preAuthorize(authority: "posts:write")
    preBoth: String @preAuthorize(expr: "hasRole('ADMIN')", authority: "users:write")
    open: String @permitAll
    closed: String @denyAll
    member: String @authenticated
    plain: String
  }
`;

const FIELDS = [
  'securedList',
  'securedOne',
  'rolesAllowed',
  'preExpr',
  'preAuthority',
  'preBoth',
  'open',
  'closed',
  'member',
  'plain',
] as const;

const resolvers = {
  Query: Object.fromEntries(FIELDS.map((f) => [f, () => f])),
};

const schema = secureSchema(SDL, resolvers);

/** Which fields each caller may read; every other field must be denied. */
const ALLOWED = {
  anonymous: ['open', 'plain'],
  guest: ['open', 'member', 'plain'],
  alice: ['securedOne', 'preExpr', 'open', 'member', 'plain'],
  writer: ['securedOne', 'preExpr', 'preAuthority', 'open', 'member', 'plain'],
  admin: [
    'securedList',
    'securedOne',
    'rolesAllowed',
    'preExpr',
    'preBoth',
    'open',
    'member',
    'plain',
  ],
} as const;

const CALLERS = { anonymous: null, guest: GUEST, alice: ALICE, writer: WRITER, admin: ADMIN };

describe('each directive for each caller', () => {
  for (const [name, user] of Object.entries(CALLERS)) {
    const allowed: readonly string[] = ALLOWED[name as keyof typeof ALLOWED];
    for (const field of FIELDS) {
      const expected = allowed.includes(field)
        ? 'allowed'
        : user === null
          ? 'UNAUTHENTICATED'
          : 'FORBIDDEN';
      it(`${name} → ${field}: ${expected}`, async () => {
        const result = await run(schema, `{ ${field} }`, user);
        if (expected === 'allowed') {
          expect(result.errors).toBeUndefined();
          expect(result.data).toEqual({ [field]: field });
        } else {
          expect(result.data).toEqual({ [field]: null });
          expect(denials(result)).toEqual({ [field]: expected });
          const [error] = result.errors ?? [];
          expect(error?.extensions['http']).toEqual({ status: user === null ? 401 : 403 });
          expect(error?.message).toBe(
            user === null ? 'Authentication is required' : 'Access is denied',
          );
        }
      });
    }
  }
});

describe('partial results', () => {
  it('resolves the allowed fields of an operation next to the denied ones', async () => {
    const result = await run(schema, '{ open closed securedOne plain __typename }', ALICE);
    expect(result.data).toEqual({
      open: 'open',
      closed: null,
      securedOne: 'securedOne',
      plain: 'plain',
      __typename: 'Query',
    });
    expect(denials(result)).toEqual({ closed: 'FORBIDDEN' });
  });

  it('propagates a denied non-null field to its parent, as GraphQL nulls do', async () => {
    const s = secureSchema(
      `type Query { post: Post, other: String }
       type Post { title: String, secret: String! @secured(roles: "ADMIN") }`,
      { Query: { post: () => ({ title: 't', secret: 's' }), other: () => 'o' } },
    );
    const result = await run(s, '{ post { title secret } other }', ALICE);
    expect(result.data).toEqual({ post: null, other: 'o' });
    expect(denials(result)).toEqual({ 'post.secret': 'FORBIDDEN' });
  });

  it('reports the path of a denied field inside a list, with indexes and aliases', async () => {
    const s = secureSchema(
      `type Query { posts: [Post!]! }
       type Post { title: String, views: Int @secured(roles: "ADMIN") }`,
      {
        Query: {
          posts: () => [
            { title: 'a', views: 1 },
            { title: 'b', views: 2 },
          ],
        },
      },
    );
    const result = await run(s, '{ posts { title count: views } }', ALICE);
    expect(result.data).toEqual({
      posts: [
        { title: 'a', count: null },
        { title: 'b', count: null },
      ],
    });
    expect(denials(result)).toEqual({ 'posts.0.count': 'FORBIDDEN', 'posts.1.count': 'FORBIDDEN' });
  });
});

describe('mutations', () => {
  it('never runs the resolver of a denied mutation', async () => {
    let calls = 0;
    const s = secureSchema(
      `type Query { ok: Boolean }
       type Mutation { createUser(name: String!): String @preAuthorize(expr: "hasRole('ADMIN') and hasAuthority('users:write')") }`,
      {
        Mutation: {
          createUser: (_: unknown, { name }: { name: string }) => {
            calls += 1;
            return name;
          },
        },
      },
    );
    for (const user of [null, GUEST, ALICE, WRITER]) {
      const result = await run(s, 'mutation { createUser(name: "eve") }', user);
      expect(result.data).toEqual({ createUser: null });
    }
    expect(calls).toBe(0);
    const allowed = await run(s, 'mutation { createUser(name: "eve") }', ADMIN);
    expect(allowed.data).toEqual({ createUser: 'eve' });
    expect(calls).toBe(1);
  });
});
