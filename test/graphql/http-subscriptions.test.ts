/**
 * Subscriptions over GraphQL Yoga's server-sent events and over graphql-ws on `ws`:
 * a denied subscription gets its error and its source stream is never created.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execute, subscribe } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import {
  createGraphQLContext,
  useOperationCheck,
  withOperationCheck,
} from '../../src/graphql/index.js';
import { basic, listen, type TestServer } from '../support/server.js';
import { calls, createAuthenticator, createSchema, headersOf, type Who } from './support.js';

const TICKS = 'subscription { ticks(count: 3) }';
const schema = createSchema();
const security = createGraphQLContext({ authenticator: createAuthenticator() });

beforeEach(() => {
  calls.clear();
});

/** The `next` payloads of an SSE response, and whether it sent `complete`. */
async function readEvents(
  response: Response,
): Promise<{ status: number; next: unknown[]; complete: boolean }> {
  const text = await response.text();
  const next: unknown[] = [];
  let complete = false;
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n');
    const event = lines
      .find((l) => l.startsWith('event:'))
      ?.slice(6)
      .trim();
    const data = lines
      .find((l) => l.startsWith('data:'))
      ?.slice(5)
      .trim();
    if (event === 'next' && data) next.push(JSON.parse(data));
    if (event === 'complete') complete = true;
  }
  return { status: response.status, next, complete };
}

describe('GraphQL Yoga over server-sent events', () => {
  let yoga: TestServer;
  let checked: TestServer;
  beforeAll(async () => {
    const context = (initial: object) => security(initial);
    const plain = createYoga({ schema, context, logging: false });
    const check = createYoga({ schema, context, logging: false, plugins: [useOperationCheck()] });
    yoga = await listen(createServer(plain.requestListener));
    checked = await listen(createServer(check.requestListener));
  });
  afterAll(async () => {
    await yoga.close();
    await checked.close();
  });

  const subscribeOver = (origin: string, who: Who, method: 'GET' | 'POST' = 'POST') =>
    fetch(
      method === 'GET'
        ? `${origin}/graphql?query=${encodeURIComponent(TICKS)}`
        : `${origin}/graphql`,
      {
        method,
        headers: {
          accept: 'text/event-stream',
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          ...headersOf(who),
        },
        ...(method === 'POST' ? { body: JSON.stringify({ query: TICKS }) } : {}),
      },
    ).then(readEvents);

  for (const [who, code, status] of [
    ['anonymous', 'UNAUTHENTICATED', 401],
    ['guest', 'FORBIDDEN', 403],
  ] as const) {
    it(`refuses ${who} with ${code} (HTTP ${status}) and never starts the source stream`, async () => {
      for (const origin of [yoga.origin, checked.origin]) {
        const { status: seen, next, complete } = await subscribeOver(origin, who);
        // Yoga turns extensions.http.status into the status of the event stream.
        expect(seen).toBe(status);
        expect(next).toEqual([
          {
            errors: [expect.objectContaining({ path: ['ticks'], extensions: { code } }) as unknown],
          },
        ]);
        expect(complete).toBe(true);
      }
      expect(calls.get('ticks')).toBeUndefined();
    });
  }

  it('streams to an authorized user, over POST and GET', async () => {
    const events = (who: string) => [0, 1, 2].map((i) => ({ data: { ticks: `${who}:${i}` } }));
    expect(await subscribeOver(yoga.origin, 'user')).toEqual({
      status: 200,
      next: events('user'),
      complete: true,
    });
    expect(await subscribeOver(yoga.origin, 'writer', 'GET')).toEqual({
      status: 200,
      next: events('writer'),
      complete: true,
    });
    expect(await subscribeOver(checked.origin, 'admin')).toEqual({
      status: 200,
      next: events('admin'),
      complete: true,
    });
    expect(calls.get('ticks')).toBe(3);
  });
});

describe('graphql-ws over ws', () => {
  let url: string;
  let checkedUrl: string;
  const clients: Client[] = [];
  const servers: WebSocketServer[] = [];

  const start = async (check: boolean): Promise<string> => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    useServer(
      {
        schema,
        context: (ctx) => security(ctx),
        ...(check
          ? { execute: withOperationCheck(execute), subscribe: withOperationCheck(subscribe) }
          : {}),
      },
      server,
    );
    servers.push(server);
    return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    url = await start(false);
    checkedUrl = await start(true);
  });
  afterAll(async () => {
    for (const client of clients) await client.dispose();
    for (const server of servers) {
      for (const socket of server.clients) socket.terminate();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      });
    }
  });

  /** Every result of one subscription, until it completes (5 s at most). */
  async function results(
    address: string,
    connectionParams: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<FormattedExecutionResult<Record<string, unknown>, unknown>[]> {
    const Socket = class extends WebSocket {
      constructor(target: string, protocols?: string | string[]) {
        super(target, protocols, { headers });
      }
    };
    const client = createClient({
      url: address,
      webSocketImpl: Socket,
      connectionParams,
      retryAttempts: 0,
    });
    clients.push(client);
    const out: FormattedExecutionResult<Record<string, unknown>, unknown>[] = [];
    const iterator = client.iterate({ query: TICKS });
    const timer = setTimeout(() => void iterator.return?.(), 5000);
    try {
      for await (const result of iterator) out.push(result);
    } finally {
      clearTimeout(timer);
    }
    return out;
  }

  const paramsOf = (who: Who): Record<string, string> => headersOf(who);

  for (const [who, code] of [
    ['anonymous', 'UNAUTHENTICATED'],
    ['guest', 'FORBIDDEN'],
  ] as const) {
    it(`refuses ${who} with ${code} and never starts the source stream`, async () => {
      for (const address of [url, checkedUrl]) {
        const [first, ...rest] = await results(address, paramsOf(who));
        expect(rest).toEqual([]);
        expect(first?.data).toBeUndefined();
        expect(first?.errors?.map((e) => [e.path, e.extensions?.['code']])).toEqual([
          [['ticks'], code],
        ]);
      }
      expect(calls.get('ticks')).toBeUndefined();
    });
  }

  it('treats a wrong password in connectionParams as anonymous', async () => {
    const [first] = await results(url, { authorization: basic('user', 'wrong') });
    expect(first?.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(calls.get('ticks')).toBeUndefined();
  });

  it('reads only the configured parameter name: `Authorization` (capitalized) stays anonymous', async () => {
    const [first] = await results(url, { Authorization: headersOf('admin').authorization! });
    expect(first?.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
  });

  it('streams to a user authenticated by connectionParams.authorization', async () => {
    expect(await results(url, paramsOf('user'))).toEqual(
      [0, 1, 2].map((i) => ({ data: { ticks: `user:${i}` } })),
    );
    expect(await results(checkedUrl, paramsOf('admin'))).toEqual(
      [0, 1, 2].map((i) => ({ data: { ticks: `admin:${i}` } })),
    );
    expect(calls.get('ticks')).toBe(2);
  });

  it('authenticates from the headers of the upgrade request too', async () => {
    const delivered = await results(url, {}, headersOf('writer'));
    expect(delivered.map((r) => r.data)).toEqual([0, 1, 2].map((i) => ({ ticks: `writer:${i}` })));
  });
});
