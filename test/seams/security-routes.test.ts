/**
 * The one route contract, mounted by every adapter: `securityRoutes(...)` of
 * `portcullis/node` (plain `http` and Express), `portcullis/fetch` (and Hono's
 * `honoSecurityRoutes`) and `portcullis/fastify`. Each writes several `Set-Cookie`
 * lines apart, passes every request the routes do not own to the application, lets
 * the application's own `GET /login` page render beside `formLogin`'s `POST /login`,
 * and answers a failing route with 500 without its details.
 */
import { request as httpRequest } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, type SecurityRequest, type SecurityRoutes } from '../../src/index.js';
import { securityRoutes as fastifyRoutes } from '../../src/fastify/index.js';
import {
  honoSecurityRoutes,
  securityRoutes as fetchRoutes,
  type HonoLikeContext,
} from '../../src/fetch/index.js';
import { securityRoutes as nodeRoutes } from '../../src/node/index.js';
import { formLogin } from '../../src/session/index.js';
import { honoClientAddress } from '../../src/fetch/routes.js';
import { makeSessions, userStore } from '../session/support.js';
import { listen } from '../support/server.js';

/** Three cookies, one of them with the comma of an `Expires` date. */
const COOKIES = [
  'a=1; Path=/; HttpOnly',
  'b=2; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT',
  'c=3; Path=/; Secure; SameSite=Lax',
];

/** What the routes saw of the last request. */
const seen: { request?: SecurityRequest } = {};

/** `GET /cookies` sets {@link COOKIES}; `GET /broken` fails; `GET /seen` echoes the view. */
const testRoutes: SecurityRoutes = {
  paths: ['/cookies', '/broken', '/seen'],
  methods: ['GET'],
  handle: (request) => {
    seen.request = request;
    if (request.method !== 'GET') return Promise.resolve(undefined);
    switch (request.path) {
      case '/cookies':
        return Promise.resolve({
          status: 200,
          headers: { 'content-type': 'text/plain; charset=utf-8' },
          cookies: COOKIES,
          body: 'cookies',
        });
      case '/broken':
        return Promise.reject(new Error('database password is hunter2'));
      case '/seen':
        return Promise.resolve({
          status: 200,
          headers: { 'content-type': 'text/plain; charset=utf-8' },
          body: `${request.clientAddress ?? 'unknown'} ${String(request.secure)}`,
        });
      default:
        return Promise.resolve(undefined);
    }
  },
};

const { sessions, events } = makeSessions();
const login = formLogin({ sessions, credentials: userStore(events) });
const ROUTES = [testRoutes, login];

/** An answer as a client saw it, every `Set-Cookie` line apart. */
interface Reply {
  readonly status: number;
  readonly setCookies: readonly string[];
  readonly body: string;
}

interface Mounted {
  send(method: string, path: string): Promise<Reply>;
  close(): Promise<void>;
}

/** Over HTTP with node's client, which keeps each `Set-Cookie` line apart. */
function overHttp(origin: string): Mounted['send'] {
  return (method, path) =>
    new Promise((resolve, reject) => {
      const req = httpRequest(`${origin}${path}`, { method }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            setCookies: res.headers['set-cookie'] ?? [],
            body,
          });
        });
      });
      req.on('error', reject);
      req.end();
    });
}

async function replyOf(response: Response): Promise<Reply> {
  return {
    status: response.status,
    setCookies: response.headers.getSetCookie(),
    body: await response.text(),
  };
}

/** The application behind the routes: its login page, and its own 404 for the rest. */
const PAGE = 'login page';
const NOT_FOUND = 'app 404';

const ADAPTERS: [string, () => Promise<Mounted>][] = [
  [
    'node http',
    async () => {
      const routes = nodeRoutes(...ROUTES);
      const server = await listen((req, res) => {
        routes(req, res, () => {
          if (req.method === 'GET' && req.url === '/login') res.end(PAGE);
          else res.writeHead(404).end(NOT_FOUND);
        });
      });
      return { send: overHttp(server.origin), close: () => server.close() };
    },
  ],
  [
    'Express',
    async () => {
      const app = express();
      app.use(nodeRoutes(...ROUTES));
      app.get('/login', (_req, res) => {
        res.send(PAGE);
      });
      app.use((_req, res) => {
        res.status(404).send(NOT_FOUND);
      });
      const server = await listen(app);
      return { send: overHttp(server.origin), close: () => server.close() };
    },
  ],
  [
    'Fetch',
    () => {
      const routes = fetchRoutes(...ROUTES);
      return Promise.resolve({
        send: async (method, path) => {
          const response =
            (await routes(new Request(`http://127.0.0.1${path}`, { method }))) ??
            (method === 'GET' && path === '/login'
              ? new Response(PAGE)
              : new Response(NOT_FOUND, { status: 404 }));
          return replyOf(response);
        },
        close: () => Promise.resolve(),
      });
    },
  ],
  [
    'Hono',
    () => {
      const app = new Hono();
      app.use(honoSecurityRoutes(...ROUTES));
      app.get('/login', (c) => c.text(PAGE));
      app.notFound((c) => c.text(NOT_FOUND, 404));
      return Promise.resolve({
        send: async (method, path) => replyOf(await app.request(path, { method })),
        close: () => Promise.resolve(),
      });
    },
  ],
  [
    'Fastify',
    async () => {
      const app = Fastify();
      app.setNotFoundHandler((_request, reply) => reply.code(404).send(NOT_FOUND));
      await app.register(fastifyRoutes, { routes: ROUTES });
      app.get('/login', () => PAGE);
      const origin = await app.listen({ port: 0, host: '127.0.0.1' });
      return { send: overHttp(origin), close: () => app.close() };
    },
  ],
];

describe.each(ADAPTERS)('securityRoutes on %s', (_name, mount) => {
  let mounted: Mounted;
  beforeAll(async () => {
    mounted = await mount();
  });
  afterAll(() => mounted.close());

  it('writes each cookie as its own Set-Cookie line, in order', async () => {
    const reply = await mounted.send('GET', '/cookies');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('cookies');
    expect(reply.setCookies).toEqual(COOKIES);
  });

  it('passes a request no route owns to the application', async () => {
    for (const [method, path] of [
      ['GET', '/elsewhere'],
      ['GET', '/cookies/x'],
      ['DELETE', '/logout'],
    ] as const) {
      const reply = await mounted.send(method, path);
      expect([method, path, reply.status, reply.body]).toEqual([method, path, 404, NOT_FOUND]);
      expect(reply.setCookies).toEqual([]);
    }
  });

  it("renders the application's GET /login beside formLogin's POST /login", async () => {
    const page = await mounted.send('GET', '/login');
    expect([page.status, page.body]).toEqual([200, PAGE]);
    // The form route itself: no form body, 415.
    const post = await mounted.send('POST', '/login');
    expect(post.status).toBe(415);
    expect(post.setCookies).toEqual([]);
  });

  it('answers a route that fails with 500, without its details', async () => {
    const reply = await mounted.send('GET', '/broken');
    expect(reply.status).toBe(500);
    expect(reply.body).toBe('Internal Server Error');
    expect(reply.body).not.toContain('hunter2');
  });
});

describe('the routes read the request as the pipeline does', () => {
  it('node and Fastify: the socket address, no TLS', async () => {
    const routes = nodeRoutes(testRoutes);
    const server = await listen((req, res) => {
      routes(req, res, () => res.writeHead(404).end());
    });
    const app = Fastify();
    await app.register(fastifyRoutes, { routes: [testRoutes] });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      for (const base of [server.origin, origin]) {
        const reply = await overHttp(base)('GET', '/seen');
        expect(reply.body).toBe('127.0.0.1 false');
      }
    } finally {
      await Promise.all([server.close(), app.close()]);
    }
  });

  it('Fetch: the address the runtime tells, TLS from the URL', async () => {
    const routes = fetchRoutes(testRoutes);
    const told = await routes(new Request('https://app.example/seen'), '192.0.2.7');
    expect(await told?.text()).toBe('192.0.2.7 true');
    // A runtime's own second argument (Bun's server, a Worker's env) is no address.
    const other = await (routes as (request: Request, env: unknown) => Promise<Response>)(
      new Request('http://app.example/seen'),
      { requestIP: () => ({ address: '192.0.2.8' }) },
    );
    expect(await other.text()).toBe('unknown false');
  });

  it('Hono: the address where the runtime put the connection on c.env, else unknown', async () => {
    const app = new Hono();
    app.use(honoSecurityRoutes(testRoutes));
    const at = async (env: unknown): Promise<string> =>
      (await app.fetch(new Request('http://app.example/seen'), env)).text();
    expect(await at({ incoming: { socket: { remoteAddress: '203.0.113.9' } } })).toBe(
      '203.0.113.9 false',
    );
    const server = {
      requestIP: (request: Request) => ({ address: request.url && '203.0.113.10' }),
    };
    expect(await at(server)).toBe('203.0.113.10 false');
    expect(await at({ remoteAddr: { hostname: '203.0.113.11', port: 1 } })).toBe(
      '203.0.113.11 false',
    );
    // A Worker's bindings, a throwing runtime API, nothing at all: unknown.
    expect(await at({ SECRET: 'x' })).toBe('unknown false');
    expect(
      await at({
        requestIP: () => {
          throw new Error('closed');
        },
      }),
    ).toBe('unknown false');
    expect(await at(undefined)).toBe('unknown false');
    const context = { req: { raw: new Request('http://x/') } } as unknown as HonoLikeContext;
    expect(honoClientAddress(context)).toBeUndefined();
  });
});

describe('mounting something that is not SecurityRoutes', () => {
  it.each([
    ['node', (r: unknown) => nodeRoutes(r as SecurityRoutes)],
    ['Fetch', (r: unknown) => fetchRoutes(r as SecurityRoutes)],
    ['Hono', (r: unknown) => honoSecurityRoutes(r as SecurityRoutes)],
  ])('%s: a ConfigurationError at start-up', (_name, mount) => {
    for (const bad of [undefined, {}, { paths: ['/x'] }, { paths: [1], handle: () => undefined }]) {
      expect(() => mount(bad)).toThrow(ConfigurationError);
    }
  });
});
