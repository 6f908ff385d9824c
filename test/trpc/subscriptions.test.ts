import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createTRPCClient,
  createWSClient,
  httpSubscriptionLink,
  wsLink,
  type TRPCClient,
} from '@trpc/client';
import { applyWSSHandler } from '@trpc/server/adapters/ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { createTrpcContext } from '../../src/trpc/index.js';
import type { TestServer } from '../support/server.js';
import { TestEventSource } from './event-source.js';
import {
  appRouter,
  collect,
  createAuthenticator,
  demoContext,
  securedRouter,
  headersOf,
  serveStandalone,
  stopped,
  type AppRouter,
  type Name,
} from './fixture.js';

type Who = Name | 'anonymous';

function sseClient(
  origin: string,
  headers: Record<string, string>,
  connectionParams?: Record<string, string>,
): TRPCClient<AppRouter> {
  return createTRPCClient<AppRouter>({
    links: [
      httpSubscriptionLink({
        url: origin,
        EventSource: TestEventSource,
        eventSourceOptions: { headers },
        ...(connectionParams ? { connectionParams } : {}),
      }),
    ],
  });
}

const ticks = (client: TRPCClient<AppRouter>, count = 3) =>
  collect((handlers) => client.ticks.subscribe({ count }, handlers));

describe('SSE subscriptions (httpSubscriptionLink)', () => {
  let server: TestServer;
  let permissive: TestServer;
  beforeAll(async () => {
    server = await serveStandalone(appRouter, demoContext());
    permissive = await serveStandalone(
      appRouter,
      createTrpcContext({
        authenticator: createAuthenticator(),
        dangerouslyAllowConnectionParamsOverHttp: true,
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    await permissive.close();
  });

  it('refuses a subscription without credentials: UNAUTHORIZED, no event', async () => {
    const { data, error } = await ticks(sseClient(server.origin, {}));
    expect(data).toEqual([]);
    expect(error?.data?.code).toBe('UNAUTHORIZED');
  });

  it('refuses a user without the role: FORBIDDEN', async () => {
    const client = sseClient(server.origin, headersOf('user'));
    const { data, error } = await collect((h) => client.adminTicks.subscribe(undefined, h));
    expect(data).toEqual([]);
    expect(error?.data?.code).toBe('FORBIDDEN');
  });

  it('streams to an authenticated user, with the SecurityContext in the generator', async () => {
    const { data, error } = await ticks(sseClient(server.origin, headersOf('writer')));
    expect(error).toBeUndefined();
    expect(data).toEqual(['writer:writer:0', 'writer:writer:1', 'writer:writer:2']);
  });

  it('ignores connectionParams over HTTP unless dangerously allowed', async () => {
    const params = { authorization: headersOf('user').authorization! };
    const refused = await ticks(sseClient(server.origin, {}, params), 1);
    expect(refused.error?.data?.code).toBe('UNAUTHORIZED');
    const allowed = await ticks(sseClient(permissive.origin, {}, params), 1);
    expect(allowed.data).toEqual(['user:user:0']);
  });
});

describe('WebSocket subscriptions (wsLink + applyWSSHandler)', () => {
  let wss: WebSocketServer;
  let url: string;
  const clients: ReturnType<typeof createWSClient>[] = [];

  beforeAll(async () => {
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    applyWSSHandler({
      wss,
      router: securedRouter,
      createContext: createTrpcContext({
        authenticator: createAuthenticator(),
        router: securedRouter,
      }),
    });
    url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    for (const socket of wss.clients) socket.terminate();
    await new Promise<void>((resolve, reject) => {
      wss.close((error) => {
        if (error) reject(error);
        else resolve();
      });
    });
  });

  /** A client whose credential travels in `connectionParams` (or in the upgrade headers). */
  function wsClient(who: Who, via: 'params' | 'header' = 'params'): TRPCClient<AppRouter> {
    const headers = headersOf(who);
    const Socket =
      via === 'header'
        ? class extends WebSocket {
            constructor(address: string, protocols?: string | string[]) {
              super(address, protocols, { headers });
            }
          }
        : WebSocket;
    const client = createWSClient({
      url,
      WebSocket: Socket as unknown as typeof globalThis.WebSocket,
      ...(via === 'params' ? { connectionParams: headers } : {}),
    });
    clients.push(client);
    return createTRPCClient<AppRouter>({ links: [wsLink({ client })] });
  }

  it('refuses a subscription without credentials: UNAUTHORIZED', async () => {
    const { data, error } = await ticks(wsClient('anonymous'));
    expect(data).toEqual([]);
    expect(error?.data?.code).toBe('UNAUTHORIZED');
  });

  it('refuses bad credentials in connectionParams', async () => {
    const client = createWSClient({
      url,
      WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
      connectionParams: { authorization: 'Basic dXNlcjpub3Bl' },
    });
    clients.push(client);
    const trpc = createTRPCClient<AppRouter>({ links: [wsLink({ client })] });
    expect((await ticks(trpc, 1)).error?.data?.code).toBe('UNAUTHORIZED');
  });

  it('authenticates from connectionParams, with the SecurityContext in the generator', async () => {
    const { data, error } = await ticks(wsClient('writer'));
    expect(error).toBeUndefined();
    expect(data).toEqual(['writer:writer:0', 'writer:writer:1', 'writer:writer:2']);
  });

  it('authenticates from the upgrade request headers too', async () => {
    const { data } = await ticks(wsClient('admin', 'header'), 1);
    expect(data).toEqual(['admin:admin:0']);
  });

  it('guards roles per subscription: FORBIDDEN, then allowed', async () => {
    const user = wsClient('user');
    const denied = await collect((h) => user.adminTicks.subscribe(undefined, h));
    expect(denied.error?.data?.code).toBe('FORBIDDEN');
    const admin = wsClient('admin');
    expect((await collect((h) => admin.adminTicks.subscribe(undefined, h))).data).toEqual([
      'admin only',
    ]);
  });

  it('guards queries over the socket as well', async () => {
    const user = wsClient('user');
    expect(await user.profile.query()).toBe('user');
    await expect(user.admin.dashboard.query()).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
    });
  });

  it('stops the generator with the SecurityContext when the client unsubscribes', async () => {
    stopped.length = 0;
    const client = wsClient('writer');
    await new Promise<void>((resolve) => {
      const subscription = client.endless.subscribe(undefined, {
        onData: () => {
          subscription.unsubscribe();
          resolve();
        },
      });
    });
    for (let i = 0; i < 200 && stopped.length === 0; i++) await sleep(10);
    expect(stopped).toEqual(['writer:writer']);
  });

  it('keeps concurrent streams of different users apart', async () => {
    const names = ['user', 'writer', 'admin', 'guest'] as const;
    const results = await Promise.all(names.map((name) => ticks(wsClient(name), 4)));
    results.forEach(({ data }, i) => {
      const name = names[i]!;
      expect(data).toEqual([0, 1, 2, 3].map((n) => `${name}:${name}:${n}`));
    });
  });
});
