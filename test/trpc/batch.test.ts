import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.js';
import {
  appRouter,
  clientFor,
  demoContext,
  headersOf,
  outcome,
  serveStandalone,
  type AppRouter,
} from './fixture.js';

describe('batched calls (httpBatchLink)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await serveStandalone(appRouter, demoContext());
  });
  afterAll(() => server.close());

  it('checks each call of a batch on its own', async () => {
    const client = clientFor(server.origin, 'user');
    const results = await Promise.all([
      outcome(client.health.query()),
      outcome(client.admin.dashboard.query()),
      outcome(client.profile.query()),
      outcome(client.posts.create.mutate({ text: 'x' })),
      outcome(client.guards.denyAll.query()),
    ]);
    expect(results).toEqual(['OK', 'FORBIDDEN', 'OK', 'FORBIDDEN', 'FORBIDDEN']);
  });

  it('answers a raw batch with per-call results (207 Multi-Status)', async () => {
    const input = encodeURIComponent(JSON.stringify({ 0: null, 1: null, 2: null }));
    const response = await fetch(
      `${server.origin}/health,admin.dashboard,profile?batch=1&input=${input}`,
      { headers: headersOf('user') },
    );
    expect(response.status).toBe(207);
    const body = (await response.json()) as (
      { result: { data: unknown } } | { error: { data: { code: string } } }
    )[];
    expect(body).toHaveLength(3);
    expect(body[0]).toEqual({ result: { data: 'hello user' } });
    expect(body[1]).toMatchObject({ error: { data: { code: 'FORBIDDEN', httpStatus: 403 } } });
    expect(body[2]).toEqual({ result: { data: 'user' } });
  });

  it('anonymous batch: public answered, protected UNAUTHORIZED', async () => {
    const client = clientFor(server.origin, 'anonymous');
    const results = await Promise.all([
      outcome(client.health.query()),
      outcome(client.admin.dashboard.query()),
    ]);
    expect(results).toEqual(['OK', 'UNAUTHORIZED']);
  });
});

describe('the Fetch adapter (fetchRequestHandler)', () => {
  const createContext = demoContext();
  const handle = (request: Request) =>
    fetchRequestHandler({ endpoint: '/trpc', req: request, router: appRouter, createContext });

  it('authenticates a Fetch Request and guards each call', async () => {
    const call = (path: string, who: Parameters<typeof headersOf>[0]) =>
      handle(new Request(`http://127.0.0.1/trpc/${path}`, { headers: headersOf(who) }));
    expect((await call('admin.dashboard', 'anonymous')).status).toBe(401);
    expect((await call('admin.dashboard', 'user')).status).toBe(403);
    const ok = await call('admin.dashboard', 'admin');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ result: { data: 'dashboard' } });
  });

  it('works with a batching client through a custom fetch', async () => {
    const client = createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({
          url: 'http://127.0.0.1/trpc',
          headers: headersOf('writer'),
          fetch: (url, init) => handle(new Request(url as string, init as RequestInit)),
        }),
      ],
    });
    const results = await Promise.all([
      outcome(client.posts.create.mutate({ text: 'hi' })),
      outcome(client.admin.createUser.mutate({ name: 'x' })),
      outcome(client.ctx.query(1)),
    ]);
    expect(results).toEqual(['OK', 'FORBIDDEN', 'OK']);
  });
});
