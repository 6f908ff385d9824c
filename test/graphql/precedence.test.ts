import { describe, expect, it } from 'vitest';
import { ADMIN, ALICE, GUEST, denials, run, secureSchema } from './schema.js';

describe('type-level directives and field overrides', () => {
  const schema = secureSchema(
    `type Query { stats: AdminStats, board: Board, feed: [FeedItem!]! }
     type AdminStats @secured(roles: "ADMIN") {
       users: Int
       motd: String @permitAll
       audit: String @preAuthorize(authority: "audit:read")
     }
     type Board @authenticated {
       title: String
       secret: String @secured(roles: "ADMIN")
     }
     type Note { text: String }
     "Note is open, so feed is open: each AdminStats in it is guarded field by field."
     union FeedItem = AdminStats | Note`,
    {
      Query: {
        stats: () => ({ users: 3, motd: 'hi', audit: 'log' }),
        board: () => ({ title: 't', secret: 's' }),
        feed: () => [{ __typename: 'AdminStats', users: 3, motd: 'hi', audit: 'log' }],
      },
      FeedItem: { __resolveType: (o: { __typename: string }) => o.__typename },
    },
  );

  it('applies a type directive to every field of the type', async () => {
    const result = await run(schema, '{ feed { ... on AdminStats { users } } }', ALICE);
    expect(result.data).toEqual({ feed: [{ users: null }] });
    expect(denials(result)).toEqual({ 'feed.0.users': 'FORBIDDEN' });
    expect((await run(schema, '{ stats { users } }', ADMIN)).data).toEqual({
      stats: { users: 3 },
    });
  });

  it('guards every field that returns the type, before its resolver', async () => {
    const result = await run(schema, '{ stats { users } }', ALICE);
    expect(result.data).toEqual({ stats: null });
    expect(denials(result)).toEqual({ stats: 'FORBIDDEN' });
    expect(denials(await run(schema, '{ stats { motd } }', null))).toEqual({
      stats: 'UNAUTHENTICATED',
    });
  });

  it('lets a field directive open a field of a protected type (the type stays closed)', async () => {
    const result = await run(schema, '{ feed { ... on AdminStats { motd } } }', null);
    expect(result).toEqual({ data: { feed: [{ motd: 'hi' }] } });
  });

  it('lets a field directive replace, not add to, the type rule', async () => {
    // `audit` needs only its authority: the type's ADMIN role no longer applies.
    const auditor = (await import('./schema.js')).userWith('carol', [], ['audit:read']);
    expect((await run(schema, '{ feed { ... on AdminStats { audit } } }', auditor)).data).toEqual({
      feed: [{ audit: 'log' }],
    });
    expect(denials(await run(schema, '{ stats { audit } }', ADMIN))).toEqual({
      'stats.audit': 'FORBIDDEN',
    });
  });

  it('lets a field be stricter than its type', async () => {
    const result = await run(schema, '{ board { title secret } }', GUEST);
    expect(result.data).toEqual({ board: { title: 't', secret: null } });
    expect(denials(result)).toEqual({ 'board.secret': 'FORBIDDEN' });
    expect(denials(await run(schema, '{ board { title } }', null))).toEqual({
      board: 'UNAUTHENTICATED',
    });
  });
});

describe('interfaces', () => {
  const schema = secureSchema(
    `type Query { nodes: [Node!]!, docs: [Document!]! }
     interface Node @authenticated { id: ID! }
     interface Document { id: ID!, body: String @secured(roles: "ADMIN"), title: String }
     type Post implements Node & Document {
       id: ID!
       body: String
       title: String
       extra: String
     }
     type Memo implements Document {
       id: ID!
       body: String @permitAll
       title: String
     }
     type Badge implements Node @permitAll { id: ID! }`,
    {
      Query: {
        nodes: () => [{ __typename: 'Post', id: '1', body: 'b', title: 't', extra: 'x' }],
        docs: () => [
          { __typename: 'Post', id: '1', body: 'b', title: 't' },
          { __typename: 'Memo', id: '2', body: 'm', title: 'u' },
        ],
      },
      Node: { __resolveType: (o: { __typename: string }) => o.__typename },
      Document: { __resolveType: (o: { __typename: string }) => o.__typename },
    },
  );

  it("applies an interface's type directive to the implementing types' fields", async () => {
    // `extra` is not declared by Node: the interface's type rule still covers it
    // (reached here through Document, which has no type rule).
    const result = await run(schema, '{ docs { ... on Post { extra } } }', null);
    expect(result.data).toEqual({ docs: [{ extra: null }, {}] });
    expect(denials(result)).toEqual({ 'docs.0.extra': 'UNAUTHENTICATED' });
    // The field returning Node is guarded by Node's rule: a denied non-null list nulls `data`.
    expect(denials(await run(schema, '{ nodes { id } }', null))).toEqual({
      nodes: 'UNAUTHENTICATED',
    });
    expect((await run(schema, '{ nodes { id } }', GUEST)).data).toEqual({ nodes: [{ id: '1' }] });
  });

  it("applies an interface's field directive to that field of every implementing type", async () => {
    const result = await run(schema, '{ docs { title body } }', ALICE);
    // Post.body inherits the interface field's rule; Memo.body overrides it.
    expect(result.data).toEqual({
      docs: [
        { title: 't', body: null },
        { title: 'u', body: 'm' },
      ],
    });
    expect(denials(result)).toEqual({ 'docs.0.body': 'FORBIDDEN' });
  });

  it('requires every interface rule when a type implements several (all must pass)', async () => {
    // Post.body: Node says authenticated, Document says ADMIN → both.
    expect((await run(schema, '{ docs { ... on Post { body } } }', ADMIN)).data).toEqual({
      docs: [{ body: 'b' }, {}],
    });
    expect(denials(await run(schema, '{ docs { ... on Post { body } } }', null))).toEqual({
      'docs.0.body': 'UNAUTHENTICATED',
    });
  });

  it("lets the object type's own directive win over its interfaces'", async () => {
    const s = secureSchema(
      `type Query { badge: Badge, node: Node }
       interface Node @denyAll { id: ID! }
       type Badge implements Node @permitAll { id: ID! }`,
      {
        Query: { badge: () => ({ id: 'b' }), node: () => ({ id: 'b' }) },
        Node: { __resolveType: () => 'Badge' },
      },
    );
    expect(await run(s, '{ badge { id } }', null)).toEqual({ data: { badge: { id: 'b' } } });
    // A field returning the interface takes the interface's own rule.
    expect(denials(await run(s, '{ node { id } }', GUEST))).toEqual({ node: 'FORBIDDEN' });
  });
});

describe('type extensions', () => {
  it('reads directives written in `extend type`, on fields and on the type', async () => {
    const schema = secureSchema(
      `type Query { a: String }
       extend type Query { b: String @secured(roles: "ADMIN") }
       type Stats { n: Int }
       extend type Stats @secured(roles: "ADMIN")
       extend type Query { stats: Stats }`,
      { Query: { a: () => 'a', b: () => 'b', stats: () => ({ n: 1 }) } },
    );
    const result = await run(schema, '{ a b stats { n } }', ALICE);
    expect(result.data).toEqual({ a: 'a', b: null, stats: null });
    expect(denials(result)).toEqual({ b: 'FORBIDDEN', stats: 'FORBIDDEN' });
    expect((await run(schema, '{ a b stats { n } }', ADMIN)).data).toEqual({
      a: 'a',
      b: 'b',
      stats: { n: 1 },
    });
  });
});
