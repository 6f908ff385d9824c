import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Access, AuthorizationManager, SecurityTransform } from '../../src/index.js';
import {
  security as fastifySecurity,
  securityRoutes as fastifyRoutes,
} from '../../src/fastify/index.js';
import {
  honoSecurity,
  honoSecurityRoutes,
  securityRoutes as fetchRoutes,
  withSecurity as withFetchSecurity,
  type PortcullisVariables,
} from '../../src/fetch/index.js';
import type { TokenEndpoints } from '../../src/jwt/index.js';
import { securityRoutes as nodeRoutes, withSecurity } from '../../src/node/index.js';
import { listen } from '../support/server.js';
import { endpointsOf, makeFixture, tokensOf, type Fixture } from './support.js';

/** Deny by default; the token endpoints are reachable anonymously through their rule. */
function transformFor(fixture: Fixture, endpoints: TokenEndpoints): SecurityTransform {
  return new SecurityTransform({ events: fixture.events })
    .configAuthenticator(() => fixture.tokens.authenticator)
    .configAuthorizer(() =>
      AuthorizationManager.requestMatcher()
        .bearer()
        .requestMatchers([...endpoints.paths], Access.permitAll(), { methods: ['POST'] })
        .anyRequest(new Access().authenticated()),
    );
}

type Start = (
  fixture: Fixture,
  endpoints: TokenEndpoints,
) => Promise<{ origin: string; close: () => Promise<void> }>;

const adapters: [string, Start][] = [
  [
    'node withSecurity',
    async (fixture, endpoints) => {
      const routes = nodeRoutes(endpoints);
      return listen(
        withSecurity(transformFor(fixture, endpoints), (req, res) => {
          routes(req, res, () => res.end(`hello ${req.user?.username ?? 'anonymous'}`));
        }),
      );
    },
  ],
  [
    'Fetch withFetchSecurity()',
    async (fixture, endpoints) => {
      const routes = fetchRoutes(endpoints);
      const handler = withFetchSecurity(
        transformFor(fixture, endpoints),
        async (request, { user }) =>
          (await routes(request)) ?? new Response(`hello ${user?.username ?? 'anonymous'}`),
      );
      // A runtime's server (Bun, Deno) hands the handler a Request; node plays it here.
      return listen((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(req.headers)) {
            if (typeof value === 'string') headers.set(name, value);
          }
          const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
          const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
            method: req.method ?? 'GET',
            headers,
            ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
          });
          void handler(request).then(async (response) => {
            res.writeHead(response.status, Object.fromEntries(response.headers));
            res.end(Buffer.from(await response.arrayBuffer()));
          });
        });
      });
    },
  ],
  [
    'Fastify plugins',
    async (fixture, endpoints) => {
      const app = Fastify();
      await app.register(fastifySecurity, { transform: transformFor(fixture, endpoints) });
      await app.register(fastifyRoutes, { routes: [endpoints] });
      app.get('/profile', (request) => `hello ${request.user?.username ?? 'anonymous'}`);
      app.post('/echo', (request) => request.body);
      const origin = await app.listen({ port: 0, host: '127.0.0.1' });
      return { origin, close: () => app.close() };
    },
  ],
];

describe.each(adapters)('token endpoints behind deny-by-default rules (%s)', (_name, start) => {
  let server: { origin: string; close: () => Promise<void> };
  beforeAll(async () => {
    const fixture = makeFixture();
    server = await start(fixture, endpointsOf(fixture));
  });
  afterAll(() => server.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('logs in anonymously, and the access token opens the rest', async () => {
    expect((await fetch(`${server.origin}/profile`)).status).toBe(401);
    const login = await post('/auth/login', { username: 'alice', password: 'alice-pw' });
    expect(login.status).toBe(200);
    const { access_token, refresh_token } = tokensOf({
      status: login.status,
      headers: {},
      body: await login.text(),
    });
    const profile = await fetch(`${server.origin}/profile`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(profile.status).toBe(200);
    expect(await profile.text()).toBe('hello alice');
    // A client still sending a stale or bad bearer token can refresh (anonymous there).
    const refreshed = await post(
      '/auth/refresh',
      { refresh_token },
      { authorization: 'Bearer not-a-token' },
    );
    expect(refreshed.status).toBe(200);
  });

  it('leaves other methods on the token paths to the rules (deny by default)', async () => {
    expect((await fetch(`${server.origin}/auth/login`)).status).toBe(401);
  });
});

describe('Fastify: the endpoints plugin keeps its body handling to itself', () => {
  it("leaves the application's JSON parser in place for its own routes", async () => {
    const fixture = makeFixture();
    const [, start] = adapters[2]!;
    const server = await start(fixture, endpointsOf(fixture));
    try {
      const login = await fetch(`${server.origin}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'alice', password: 'alice-pw' }),
      });
      const { access_token } = tokensOf({ status: 200, headers: {}, body: await login.text() });
      const echo = await fetch(`${server.origin}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
        body: '{"a":1}',
      });
      expect(echo.status).toBe(200);
      expect(await echo.json()).toEqual({ a: 1 });
    } finally {
      await server.close();
    }
  });
});

describe('Hono: the endpoints as a middleware after honoSecurity', () => {
  it('logs in anonymously through the deny-by-default rules, and the token opens the rest', async () => {
    const fixture = makeFixture();
    const endpoints = endpointsOf(fixture);
    const app = new Hono<{ Variables: PortcullisVariables }>();
    app.use(honoSecurity(transformFor(fixture, endpoints)));
    app.use(honoSecurityRoutes(endpoints));
    app.get('/profile', (c) => c.text(`hello ${c.get('user')?.username ?? 'anonymous'}`));
    const login = await app.request('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'alice-pw' }),
    });
    expect(login.status).toBe(200);
    const { access_token } = tokensOf({ status: 200, headers: {}, body: await login.text() });
    const profile = await app.request('/profile', {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(await profile.text()).toBe('hello alice');
    expect((await app.request('/profile')).status).toBe(401);
  });
});
