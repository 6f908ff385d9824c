/**
 * A request refused for now while its context is made — HTTP Basic guesses past the
 * login throttle — answers 429 with `Retry-After` and `TOO_MANY_REQUESTS` on
 * graphql-http (through `graphqlHttpContext`), GraphQL Yoga and Apollo Server. Before,
 * graphql-http and Apollo answered 500 (Apollo took the error's status only from a
 * `Map` of headers), and Yoga masked the error as `INTERNAL_SERVER_ERROR`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../support/server.js';
import { closeAll, createSchema, startServers, type GraphQLServer } from './support.js';

let servers: readonly GraphQLServer[] = [];

beforeAll(async () => {
  servers = await startServers(createSchema());
});

afterAll(async () => {
  await closeAll(servers);
});

async function guess(server: GraphQLServer, password: string) {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: basic('writer', password),
    },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  const body = (await response.json()) as {
    data?: unknown;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
}

describe('GraphQL servers: a login throttled while the context is made', () => {
  it('is answered 429 with Retry-After and TOO_MANY_REQUESTS by every server', async () => {
    const [first] = servers;
    if (first === undefined) throw new Error('no server');
    // The servers share one authenticator: five wrong passwords for writer, anonymous each.
    for (let i = 0; i < 5; i++) expect((await guess(first, `guess-${i}`)).status).toBe(200);
    for (const server of servers) {
      const answer = await guess(server, 'writer-pw');
      expect({ server: server.name, status: answer.status }).toEqual({
        server: server.name,
        status: 429,
      });
      expect(answer.retryAfter).toBe('60');
      expect(answer.body.data ?? null).toBeNull();
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('TOO_MANY_REQUESTS');
      expect(answer.body.errors?.[0]?.message).toBe('Too many requests, try again later');
    }
  });
});
