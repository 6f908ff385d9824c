import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityEvents, securityEvents, type AccessDeniedEvent } from '../../src/index.js';
import { createGuards, createTrpcContext } from '../../src/trpc/index.js';
import type { TestServer } from '../support/server.js';
import {
  appRouter,
  clientFor,
  demoContext,
  failure,
  headersOf,
  outcome,
  serveStandalone,
  t,
  type Name,
} from './fixture.js';

type Who = Name | 'anonymous';
type Query = keyof typeof appRouter.guards;

/** Who gets what from each guard: every guard allows and denies with the right code. */
const MATRIX: readonly [Query, Who, string][] = [
  ['authenticated', 'anonymous', 'UNAUTHORIZED'],
  ['authenticated', 'guest', 'OK'],
  ['authenticated', 'user', 'OK'],
  ['secured', 'anonymous', 'UNAUTHORIZED'],
  ['secured', 'user', 'FORBIDDEN'],
  ['secured', 'admin', 'OK'],
  ['rolesAllowed', 'anonymous', 'UNAUTHORIZED'],
  ['rolesAllowed', 'guest', 'FORBIDDEN'],
  ['rolesAllowed', 'user', 'OK'],
  ['expression', 'anonymous', 'UNAUTHORIZED'],
  ['expression', 'guest', 'FORBIDDEN'],
  ['expression', 'user', 'OK'],
  ['authority', 'anonymous', 'UNAUTHORIZED'],
  ['authority', 'user', 'FORBIDDEN'],
  ['authority', 'writer', 'OK'],
  ['permitAll', 'anonymous', 'OK'],
  ['permitAll', 'admin', 'OK'],
  ['denyAll', 'anonymous', 'UNAUTHORIZED'],
  ['denyAll', 'admin', 'FORBIDDEN'],
];

describe('portcullis/trpc guards over the standalone adapter', () => {
  const denied: AccessDeniedEvent[] = [];
  const stop = securityEvents.on('access-denied', (event) => {
    denied.push(event);
  });
  let server: TestServer;
  beforeAll(async () => {
    server = await serveStandalone(appRouter, demoContext());
  });
  afterAll(async () => {
    stop();
    await server.close();
  });

  for (const [query, who, expected] of MATRIX) {
    it(`${query} as ${who} → ${expected}`, async () => {
      const client = clientFor(server.origin, who, false);
      expect(await outcome(client.guards[query].query())).toBe(expected);
    });
  }

  it('answers the resolver with the narrowed user', async () => {
    expect(await clientFor(server.origin, 'admin').guards.secured.query()).toBe('admin');
    expect(await clientFor(server.origin, 'anonymous').guards.permitAll.query()).toBeNull();
    expect(await clientFor(server.origin, 'user').health.query()).toBe('hello user');
  });

  it('answers HTTP 401 and 403, never 500, and no rule text', async () => {
    for (const [who, status] of [
      ['anonymous', 401],
      ['user', 403],
    ] as const) {
      const response = await fetch(`${server.origin}/admin.dashboard`, { headers: headersOf(who) });
      expect(response.status).toBe(status);
      const body = await response.text();
      expect(body).not.toMatch(/ADMIN|hasRole|hasAnyRole|isAuthenticated/u);
    }
  });

  it('keeps the rule out of the message', async () => {
    const error = await failure(clientFor(server.origin, 'user').admin.dashboard.query());
    expect(error.data?.code).toBe('FORBIDDEN');
    expect(error.message).toBe('Access is denied');
    const anonymous = await failure(clientFor(server.origin, 'anonymous').posts.list.query());
    expect(anonymous.message).toBe('Authentication is required');
  });

  it('treats bad credentials as anonymous: UNAUTHORIZED', async () => {
    for (const authorization of ['Basic !!!', 'Basic dXNlcjpub3Bl', 'Bearer x']) {
      const response = await fetch(`${server.origin}/profile`, { headers: { authorization } });
      expect(response.status).toBe(401);
    }
  });

  it('checks ownership on the parsed input when placed after .input()', async () => {
    const writer = clientFor(server.origin, 'writer');
    expect(await writer.posts.update.mutate({ authorId: 'writer', text: 'x' })).toBe(
      'writer updated writer',
    );
    expect(await outcome(writer.posts.update.mutate({ authorId: 'user', text: 'x' }))).toBe(
      'FORBIDDEN',
    );
    const admin = clientFor(server.origin, 'admin');
    expect(await admin.posts.update.mutate({ authorId: 'user', text: 'x' })).toBe(
      'admin updated user',
    );
  });

  it('a guard before .input() never sees the input: args rules deny', async () => {
    const writer = clientFor(server.origin, 'writer');
    expect(await outcome(writer.posts.updateEarly.mutate({ authorId: 'writer', text: 'x' }))).toBe(
      'FORBIDDEN',
    );
  });

  it('cannot be fooled by input the schema rejects or extra keys', async () => {
    const response = await fetch(`${server.origin}/posts.update`, {
      method: 'POST',
      headers: { ...headersOf('writer'), 'content-type': 'application/json' },
      body: JSON.stringify({ authorId: ['writer'], text: 'x' }),
    });
    expect(response.status).toBe(400);
  });

  it('denies (FORBIDDEN, not 500) when an async custom function fails', async () => {
    const writer = clientFor(server.origin, 'writer');
    expect(await writer.posts.remove.mutate({ postId: 7 })).toBe('removed 7');
    expect(await outcome(writer.posts.remove.mutate({ postId: 8 }))).toBe('FORBIDDEN');
    expect(await outcome(writer.posts.remove.mutate({ postId: 13 }))).toBe('FORBIDDEN');
    expect(await clientFor(server.origin, 'admin').posts.remove.mutate({ postId: 13 })).toBe(
      'removed 13',
    );
  });

  it('runs SPEC.md routes with the demo users', async () => {
    const cases: [Promise<unknown>, string][] = [
      [clientFor(server.origin, 'user').posts.list.query(), 'OK'],
      [clientFor(server.origin, 'guest').posts.list.query(), 'FORBIDDEN'],
      [clientFor(server.origin, 'user').posts.create.mutate({ text: 'a' }), 'FORBIDDEN'],
      [clientFor(server.origin, 'writer').posts.create.mutate({ text: 'a' }), 'OK'],
      [clientFor(server.origin, 'writer').admin.createUser.mutate({ name: 'x' }), 'FORBIDDEN'],
      [clientFor(server.origin, 'admin').admin.createUser.mutate({ name: 'x' }), 'OK'],
      [clientFor(server.origin, 'anonymous').profile.query(), 'UNAUTHORIZED'],
      [clientFor(server.origin, 'guest').profile.query(), 'OK'],
    ];
    for (const [call, expected] of cases) expect(await outcome(call)).toBe(expected);
  });

  it('publishes access-denied events with the rule and the procedure path', async () => {
    denied.length = 0;
    await outcome(clientFor(server.origin, 'user', false).admin.dashboard.query());
    await outcome(clientFor(server.origin, 'anonymous', false).posts.list.query());
    expect(denied).toEqual([
      {
        type: 'access-denied',
        username: 'user',
        rule: "hasAnyRole('ADMIN')",
        request: { method: 'TRPC', path: 'admin.dashboard', clientAddress: '127.0.0.1' },
      },
      {
        type: 'access-denied',
        username: null,
        rule: "hasRole('USER') and hasAuthority('posts:read')",
        request: { method: 'TRPC', path: 'posts.list', clientAddress: '127.0.0.1' },
      },
    ]);
  });
});

describe('the debug option', () => {
  const guards = createGuards({ debug: true });
  const router = t.router({
    admin: t.procedure.use(guards.secured('ADMIN')).query(() => 'ok'),
  });
  let server: TestServer;
  beforeAll(async () => {
    server = await serveStandalone(router, demoContext());
  });
  afterAll(() => server.close());

  it('names the rule in the message', async () => {
    const forbidden = await fetch(`${server.origin}/admin`, { headers: headersOf('user') });
    expect(forbidden.status).toBe(403);
    const body = (await forbidden.json()) as { error: { message: string } };
    expect(body.error.message).toBe("Access is denied by hasAnyRole('ADMIN')");
    const anonymous = (await (await fetch(`${server.origin}/admin`)).json()) as {
      error: { message: string };
    };
    expect(anonymous.error.message).toBe("Authentication is required by hasAnyRole('ADMIN')");
  });
});

describe('a failing authenticator', () => {
  const events = new SecurityEvents();
  const failures: unknown[] = [];
  events.on('authentication-failure', (event) => {
    failures.push(event);
  });
  let server: TestServer;
  beforeAll(async () => {
    const context = createTrpcContext({
      events,
      authenticator: {
        authenticationMethod: 'flaky',
        getUser: (request) => {
          if (request.header('authorization') === 'sync') throw new Error('sync failure');
          return Promise.reject(new Error('async failure'));
        },
      },
    });
    server = await serveStandalone(appRouter, context);
  });
  afterAll(() => server.close());

  it('is UNAUTHORIZED, not 500, and an authentication-failure event', async () => {
    for (const authorization of ['sync', 'async']) {
      const response = await fetch(`${server.origin}/profile`, { headers: { authorization } });
      expect(response.status).toBe(401);
      expect(await response.text()).not.toContain('failure');
    }
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({
      type: 'authentication-failure',
      authenticationMethod: 'flaky',
      reason: 'other',
      request: { method: 'GET', path: '/profile', clientAddress: '127.0.0.1' },
    });
    const health = await fetch(`${server.origin}/health`, { headers: { authorization: 'sync' } });
    expect(health.status).toBe(200);
  });
});
