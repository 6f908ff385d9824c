/**
 * A request authenticated once is never authenticated again downstream: behind
 * `withSecurity` (node), `secure` (Fetch) or the Fastify plugin, the tRPC and GraphQL
 * context factories reuse the pipeline's outcome instead of calling the authenticator
 * a second time (they called it twice). And no bypass: a request that did not go
 * through the pipeline is still authenticated, whatever property a client-controlled
 * path set on it (`req.user`). Real tRPC, graphql-http and Fastify servers on 127.0.0.1.
 */
import type { IncomingMessage } from 'node:http';
import { initTRPC } from '@trpc/server';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import Fastify from 'fastify';
import { buildSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  SecurityTransform,
  User,
  type Authenticator,
} from '../../src/index.js';
import { security as fastifySecurity } from '../../src/fastify/index.js';
import { withSecurity as withFetchSecurity } from '../../src/fetch/index.js';
import { createGraphQLContext as graphqlContext } from '../../src/graphql/index.js';
import { withSecurity } from '../../src/node/index.js';
import {
  createProcedures,
  createTrpcContext as trpcContext,
  type UserContext,
} from '../../src/trpc/index.js';
import { listen, type TestServer } from '../support/server.js';

/** An API-key authenticator that counts its calls. */
function countingAuthenticator(): Authenticator & { calls: number } {
  const authenticator = {
    calls: 0,
    authenticationMethod: 'api-key',
    getUser(request: { header(name: string): string | undefined }) {
      authenticator.calls += 1;
      return request.header('x-api-key') === 'alice-key' ? new User('alice', 'unused') : null;
    },
  };
  return authenticator;
}

const key = { 'x-api-key': 'alice-key' };
let authenticator = countingAuthenticator();
beforeEach(() => {
  authenticator = countingAuthenticator();
});

/** A pipeline that lets every request through, with `use` as its authenticator. */
function pipeline(use: () => Authenticator = () => authenticator): SecurityTransform {
  return new SecurityTransform()
    .configAuthenticator(use)
    .configAuthorizer(() => AuthorizationManager.requestMatcher().anyRequest(Access.permitAll()));
}

const t = initTRPC.context<UserContext>().create();
const { publicProcedure } = createProcedures(t);
const router = t.router({ me: publicProcedure.query(({ ctx }) => ctx.user?.username ?? null) });

/** The authenticator the factories see, read at call time (a new one per test). */
const current: Authenticator = {
  getUser: (request) => authenticator.getUser(request),
};
const trpcSecurity = trpcContext({ authenticator: current, router });
const graphqlSecurity = graphqlContext({ authenticator: current });

async function me(origin: string, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(`${origin}/me`, { headers });
  const body = (await response.json()) as { result: { data: unknown } };
  return body.result.data;
}

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('tRPC behind the node pipeline', () => {
  it('calls the authenticator once per request, and the procedure sees the user', async () => {
    // Same object in the pipeline and the context: the recorded outcome is reused.
    const shared = countingAuthenticator();
    const handler = createHTTPHandler({
      router,
      createContext: trpcContext({ authenticator: shared, router }),
    });
    const server = await listen(
      withSecurity(
        pipeline(() => shared),
        (req, res) => {
          handler(req, res);
        },
      ),
    );
    servers.push(server);
    expect(await me(server.origin, key)).toBe('alice');
    expect(shared.calls).toBe(1);
    expect(await me(server.origin)).toBeNull();
    expect(shared.calls).toBe(2);
  });

  it('authenticates again with its own authenticator when the pipeline used another', async () => {
    const other = countingAuthenticator();
    const handler = createHTTPHandler({ router, createContext: trpcSecurity });
    const server = await listen(
      withSecurity(
        pipeline(() => other),
        (req, res) => {
          handler(req, res);
        },
      ),
    );
    servers.push(server);
    expect(await me(server.origin, key)).toBe('alice');
    expect([other.calls, authenticator.calls]).toEqual([1, 1]);
  });

  it('authenticates again when connectionParams add a credential the pipeline never saw', async () => {
    const shared = countingAuthenticator();
    const handler = createHTTPHandler({
      router,
      createContext: trpcContext({
        authenticator: shared,
        router,
        connectionParams: ['x-api-key'],
        dangerouslyAllowConnectionParamsOverHttp: true,
      }),
    });
    const server = await listen(
      withSecurity(
        pipeline(() => shared),
        (req, res) => {
          handler(req, res);
        },
      ),
    );
    servers.push(server);
    const params = encodeURIComponent(JSON.stringify(key));
    const response = await fetch(`${server.origin}/me?connectionParams=${params}`);
    expect(((await response.json()) as { result: { data: unknown } }).result.data).toBe('alice');
    expect(shared.calls).toBe(2); // the pipeline saw an anonymous request
  });

  it('trusts no property on a request the pipeline never saw (req.user = admin)', async () => {
    const shared = countingAuthenticator();
    const handler = createHTTPHandler({
      router,
      createContext: trpcContext({ authenticator: shared, router }),
    });
    const server = await listen((req: IncomingMessage & { user?: unknown }, res) => {
      // A client-controlled path forging what an adapter would set.
      if (req.headers['x-forge'] !== undefined)
        req.user = new User('admin', 'x').withRoles(['ADMIN']);
      handler(req, res);
    });
    servers.push(server);
    expect(await me(server.origin, { 'x-forge': '1' })).toBeNull();
    expect(await me(server.origin, { ...key, 'x-forge': '1' })).toBe('alice');
    expect(shared.calls).toBe(2);
  });
});

describe('tRPC behind the Fetch pipeline', () => {
  const shared = countingAuthenticator();
  const handle = (request: Request) =>
    fetchRequestHandler({
      endpoint: '',
      req: request,
      router,
      createContext: trpcContext({ authenticator: shared, router }),
    });

  async function data(response: Response): Promise<unknown> {
    return ((await response.json()) as { result: { data: unknown } }).result.data;
  }

  it('calls the authenticator once per request behind secure', async () => {
    const secured = withFetchSecurity(
      pipeline(() => shared),
      (request) => handle(request),
    );
    const before = shared.calls;
    const response = await secured(new Request('http://127.0.0.1/me', { headers: key }));
    expect(await data(response)).toBe('alice');
    expect(shared.calls - before).toBe(1);
  });

  it('authenticates a Request that did not go through secure', async () => {
    const before = shared.calls;
    const request = Object.assign(new Request('http://127.0.0.1/me'), {
      user: new User('admin', 'x'),
    });
    expect(await data(await handle(request))).toBeNull();
    expect(shared.calls - before).toBe(1);
  });
});

describe('tRPC behind the Fastify plugin', () => {
  it('calls the authenticator once per request', async () => {
    const shared = countingAuthenticator();
    const app = Fastify();
    await app.register(fastifySecurity, { transform: pipeline(() => shared) });
    await app.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: { router, createContext: trpcContext({ authenticator: shared, router }) },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    servers.push({ origin: `http://127.0.0.1:${port}`, close: () => app.close() });
    expect(await me(`http://127.0.0.1:${port}/trpc`, key)).toBe('alice');
    expect(shared.calls).toBe(1);
  });
});

describe('GraphQL over graphql-http', () => {
  const schema = buildSchema('type Query { me: String }');
  const rootValue = {
    me: (_: unknown, context: { user: { username: string } | null }) =>
      context.user?.username ?? null,
  };

  async function query(origin: string, headers: Record<string, string> = {}): Promise<unknown> {
    const response = await fetch(`${origin}/graphql?query=${encodeURIComponent('{ me }')}`, {
      headers: { accept: 'application/graphql-response+json', ...headers },
    });
    return ((await response.json()) as { data: { me: unknown } }).data.me;
  }

  it('calls the authenticator once per request behind withSecurity', async () => {
    const shared = countingAuthenticator();
    const security = graphqlContext({ authenticator: shared });
    const handler = createHandler({ schema, rootValue, context: (req) => security(req) });
    const server = await listen(
      withSecurity(
        pipeline(() => shared),
        (req, res) => handler(req, res),
      ),
    );
    servers.push(server);
    expect(await query(server.origin, key)).toBe('alice');
    expect(shared.calls).toBe(1);
  });

  it('authenticates a request the pipeline never saw, forged req.user or not', async () => {
    const handler = createHandler({ schema, rootValue, context: (req) => graphqlSecurity(req) });
    const server = await listen((req: IncomingMessage & { user?: unknown }, res) => {
      req.user = new User('admin', 'x').withRoles(['ADMIN']);
      void handler(req, res);
    });
    servers.push(server);
    expect(await query(server.origin)).toBeNull();
    expect(await query(server.origin, key)).toBe('alice');
    expect(authenticator.calls).toBe(2);
  });
});
