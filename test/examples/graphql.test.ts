import { createServer } from 'node:http';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.js';
import { basic, listen, type TestServer } from '../support/server.js';

type Who = 'anonymous' | 'user' | 'writer' | 'admin' | 'guest';
const WHO: Who[] = ['anonymous', 'user', 'writer', 'admin', 'guest'];
const OK = 'ok';
const U = 'UNAUTHENTICATED';
const F = 'FORBIDDEN';

const headersFor = (who: Who): Record<string, string> =>
  who === 'anonymous' ? {} : { authorization: basic(who, `${who}-password`) };

interface Answer {
  readonly status: number;
  readonly data?: Record<string, unknown> | null;
  readonly errors?: readonly {
    message: string;
    path?: readonly (string | number)[];
    extensions?: Record<string, unknown>;
  }[];
}

describe('the example GraphQL API under /graphql', () => {
  let server: TestServer;
  beforeAll(async () => {
    const { listener } = await createApp();
    server = await listen(createServer(listener));
  });
  afterAll(() => server.close());

  async function graphql(
    query: string,
    init: { who?: Who; headers?: Record<string, string>; variables?: object } = {},
  ): Promise<Answer> {
    const response = await fetch(`${server.origin}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...headersFor(init.who ?? 'anonymous'),
        ...init.headers,
      },
      body: JSON.stringify({ query, variables: init.variables }),
    });
    return { status: response.status, ...((await response.json()) as Omit<Answer, 'status'>) };
  }

  /** 'ok', or the code of the first error. */
  const outcome = (answer: Answer): unknown => answer.errors?.[0]?.extensions?.['code'] ?? OK;

  const MATRIX: [string, string, Record<Who, string>][] = [
    ['health', '{ health }', { anonymous: OK, user: OK, writer: OK, admin: OK, guest: OK }],
    [
      'profile',
      '{ profile { username } }',
      { anonymous: U, user: OK, writer: OK, admin: OK, guest: F },
    ],
    ['posts', '{ posts { id } }', { anonymous: U, user: OK, writer: OK, admin: OK, guest: F }],
    [
      'adminDashboard',
      '{ adminDashboard { users posts } }',
      { anonymous: U, user: F, writer: F, admin: OK, guest: F },
    ],
    [
      'createPost',
      'mutation { createPost(title: "t") { id } }',
      { anonymous: U, user: F, writer: OK, admin: OK, guest: F },
    ],
    [
      'createUser',
      'mutation { createUser(username: "new") }',
      { anonymous: U, user: F, writer: F, admin: OK, guest: F },
    ],
    [
      "renamePost of writer's post",
      'mutation { renamePost(authorId: "writer", title: "t") { title } }',
      { anonymous: U, user: F, writer: OK, admin: OK, guest: F },
    ],
  ];

  for (const [name, query, expected] of MATRIX) {
    it(`${name}: each demo user gets the right answer`, async () => {
      const seen: Record<string, unknown> = {};
      for (const who of WHO) {
        const answer = await graphql(query, { who });
        // graphql-http answers every execution result with 200, denials included.
        expect(answer.status).toBe(200);
        seen[who] = outcome(answer);
      }
      expect(seen).toEqual(expected);
    });
  }

  it('returns the profile of the caller', async () => {
    const answer = await graphql('{ profile { username roles authorities } }', { who: 'writer' });
    expect(answer.data).toEqual({
      profile: { username: 'writer', roles: ['USER'], authorities: ['posts:read', 'posts:write'] },
    });
  });

  it('guards AdminStats by its type: the field returning it is refused before it resolves', async () => {
    const answer = await graphql('{ health adminDashboard { users posts } }', { who: 'user' });
    expect(answer.data).toEqual({ health: 'OK', adminDashboard: null });
    expect(answer.errors?.map((e) => [e.path, e.extensions?.['code']])).toEqual([
      [['adminDashboard'], F],
    ]);
    const admin = await graphql('{ adminDashboard { users posts } }', { who: 'admin' });
    expect(admin.data).toEqual({ adminDashboard: { users: 4, posts: 1 } });
  });

  it('lets authors rename their own posts only, with the id from variables', async () => {
    const rename = 'mutation ($a: String!) { renamePost(authorId: $a, title: "t") { authorId } }';
    const own = await graphql(rename, { who: 'user', variables: { a: 'user' } });
    expect(own.data).toEqual({ renamePost: { authorId: 'user' } });
    const other = await graphql(rename, { who: 'user', variables: { a: 'writer' } });
    expect(other.data).toEqual({ renamePost: null });
    expect(outcome(other)).toBe(F);
  });

  it('serves introspection and __typename to anonymous callers (deny-by-default schema)', async () => {
    const introspection = await graphql(getIntrospectionQuery());
    expect(introspection.errors).toBeUndefined();
    expect(introspection.data).toHaveProperty('__schema');
    expect((await graphql('{ __typename }')).data).toEqual({ __typename: 'Query' });
  });

  it('treats a wrong password as anonymous (/graphql has no URL rule): no 500', async () => {
    for (const authorization of [basic('admin', 'user-password'), 'Basic %%%', 'Bearer x']) {
      const answer = await graphql('{ health profile { username } }', {
        headers: { authorization },
      });
      expect(answer.status).toBe(200);
      expect(answer.data).toEqual({ health: 'OK', profile: null });
      expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual([U]);
    }
  });

  it('refuses a mutation over GET (no cross-site request can change state)', async () => {
    const query = encodeURIComponent('mutation { createUser(username: "x") }');
    const response = await fetch(`${server.origin}/graphql?query=${query}`, {
      headers: { ...headersFor('admin'), accept: 'application/graphql-response+json' },
    });
    expect(response.status).toBe(405);
  });

  it('never answers a denial with the rule text', async () => {
    const answer = await graphql('{ posts { id } adminDashboard { users } }', { who: 'guest' });
    const text = JSON.stringify(answer);
    expect(text).not.toContain('hasRole');
    expect(text).not.toContain('ADMIN');
    expect(text).not.toContain('posts:read');
  });
});
