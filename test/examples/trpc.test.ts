import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.js';
import type { AppRouter } from '../../examples/trpc-router.js';
import { basic, listen, type TestServer } from '../support/server.js';

type Who = 'anonymous' | 'user' | 'writer' | 'admin' | 'guest';
const WHO: Who[] = ['anonymous', 'user', 'writer', 'admin', 'guest'];
const OK = 'ok';

const headersFor = (who: Who): Record<string, string> =>
  who === 'anonymous' ? {} : { authorization: basic(who, `${who}-password`) };

/** The outcome of a call: 'ok' or the TRPCError code. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return OK;
  } catch (error) {
    if (error instanceof TRPCClientError)
      return String((error.data as { code?: string } | undefined)?.code);
    throw error;
  }
}

describe('the example tRPC router under /trpc', () => {
  let server: TestServer;
  const client = (who: Who, batch = false) =>
    createTRPCClient<AppRouter>({
      links: [
        (batch ? httpBatchLink : httpLink)({
          url: `${server.origin}/trpc`,
          headers: () => headersFor(who),
        }),
      ],
    });

  beforeAll(async () => {
    const { listener } = await createApp();
    server = await listen(createServer(listener));
  });
  afterAll(() => server.close());

  const U = 'UNAUTHORIZED';
  const F = 'FORBIDDEN';
  const MATRIX: [
    string,
    (c: ReturnType<typeof client>) => Promise<unknown>,
    Record<Who, string>,
  ][] = [
    [
      'health',
      (c) => c.health.query(),
      { anonymous: OK, user: OK, writer: OK, admin: OK, guest: OK },
    ],
    [
      'profile',
      (c) => c.profile.query(),
      { anonymous: U, user: OK, writer: OK, admin: OK, guest: F },
    ],
    [
      'posts.list',
      (c) => c.posts.list.query(),
      { anonymous: U, user: OK, writer: OK, admin: OK, guest: F },
    ],
    [
      'posts.create',
      (c) => c.posts.create.mutate({ title: 't' }),
      { anonymous: U, user: F, writer: OK, admin: OK, guest: F },
    ],
    [
      'posts.rename of a writer post',
      (c) => c.posts.rename.mutate({ authorId: 'writer', title: 't' }),
      { anonymous: U, user: F, writer: OK, admin: OK, guest: F },
    ],
    [
      'admin.dashboard',
      (c) => c.admin.dashboard.query(),
      { anonymous: U, user: F, writer: F, admin: OK, guest: F },
    ],
    [
      'admin.createUser',
      (c) => c.admin.createUser.mutate({ username: 'new' }),
      { anonymous: U, user: F, writer: F, admin: OK, guest: F },
    ],
  ];

  for (const [name, call, expected] of MATRIX) {
    it(`${name}: each demo user gets the right answer`, async () => {
      const seen: Record<string, string> = {};
      for (const who of WHO) seen[who] = await outcome(call(client(who)));
      expect(seen).toEqual(expected);
    });
  }

  it('returns the profile of the caller', async () => {
    expect(await client('writer').profile.query()).toEqual({
      username: 'writer',
      roles: ['USER'],
      authorities: ['posts:read', 'posts:write'],
    });
  });

  it('denies only the admin procedure in a batch mixing public and admin calls', async () => {
    const batch = client('user', true);
    const results = await Promise.all([
      outcome(batch.health.query()),
      outcome(batch.profile.query()),
      outcome(batch.admin.dashboard.query()),
    ]);
    expect(results).toEqual([OK, OK, F]);
  });

  it('never answers a denial with the rule text or a 500', async () => {
    const response = await fetch(`${server.origin}/trpc/admin.dashboard`, {
      headers: headersFor('user'),
    });
    expect(response.status).toBe(403);
    const text = await response.text();
    expect(text).not.toContain('hasRole');
    expect(text).not.toContain('ADMIN');
  });
});
