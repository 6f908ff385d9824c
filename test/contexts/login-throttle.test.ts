/**
 * HTTP Basic guessed through the tRPC and GraphQL security contexts: the login
 * throttle refuses the sixth guess before any hashing, as TOO_MANY_REQUESTS (HTTP
 * 429 with Retry-After), never as an anonymous call, a 401 or a 500. Without the
 * throttle every guess would be hashed and answered 401.
 */
import { createServer } from 'node:http';
import { initTRPC } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { buildSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import { afterEach, describe, expect, it } from 'vitest';
import { LoginThrottle, MemoryAuthenticator, User } from '../../src/index.js';
import {
  createGraphQLContext as graphqlContext,
  graphqlHttpContext,
} from '../../src/graphql/index.js';
import {
  authenticated,
  createTrpcContext as trpcContext,
  securityResponseMeta,
  type UserContext,
} from '../../src/trpc/index.js';
import { TestEncoder } from '../authentication/helpers.js';
import { basic, listen, type TestServer } from '../support/server.js';

function setup(): { auth: MemoryAuthenticator; encoder: TestEncoder } {
  const encoder = new TestEncoder();
  const auth = new MemoryAuthenticator({
    passwordEncoder: encoder,
    users: [new User('alice', encoder.hash('wonderland'), ['USER'])],
    cache: false,
    throttle: new LoginThrottle({ username: { max: 5 } }),
  });
  return { auth, encoder };
}

describe('tRPC: HTTP Basic guesses through createTrpcContext', () => {
  it('the sixth guess is TOO_MANY_REQUESTS (429, Retry-After) before any hashing', async () => {
    const { auth, encoder } = setup();
    const t = initTRPC.context<UserContext>().create();
    const router = t.router({
      me: t.procedure.use(authenticated()).query(({ ctx }) => ctx.user.username),
    });
    const createContext = trpcContext({ authenticator: auth });
    const call = (password: string) =>
      fetchRequestHandler({
        endpoint: '/trpc',
        req: new Request('http://127.0.0.1/trpc/me', {
          headers: { authorization: basic('alice', password) },
        }),
        router,
        createContext,
        responseMeta: securityResponseMeta(),
      });
    for (let i = 0; i < 5; i++) expect((await call(`guess-${i}`)).status).toBe(401);
    expect(encoder.matchesCalls).toBe(5);
    for (const password of ['guess-6', 'wonderland']) {
      const refused = await call(password);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
      const body = (await refused.json()) as { error: { data: { code: string } } };
      expect(body.error.data.code).toBe('TOO_MANY_REQUESTS');
    }
    expect(encoder.matchesCalls).toBe(5);
  });
});

describe('GraphQL: HTTP Basic guesses through createGraphQLContext', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('the sixth guess is a TOO_MANY_REQUESTS error (429, Retry-After) before any hashing', async () => {
    const { auth, encoder } = setup();
    const security = graphqlContext({ authenticator: auth });
    const handler = createHandler({
      schema: buildSchema('type Query { hello: String }'),
      rootValue: { hello: () => 'world' },
      context: graphqlHttpContext((req) => security(req)),
    });
    server = await listen(createServer((req, res) => void handler(req, res)));
    const post = (password: string) =>
      fetch(`${server?.origin ?? ''}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: basic('alice', password),
        },
        body: JSON.stringify({ query: '{ hello }' }),
      });
    // A failed Basic credential leaves the request anonymous: the public field answers.
    for (let i = 0; i < 5; i++) expect((await post(`guess-${i}`)).status).toBe(200);
    expect(encoder.matchesCalls).toBe(5);
    const refused = await post('wonderland');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    const body = (await refused.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).toBe('TOO_MANY_REQUESTS');
    expect(encoder.matchesCalls).toBe(5);
  });
});
