/**
 * The tRPC edge answers as the HTTP edge does (issue 15, defects 5 and 10): an
 * unguarded procedure is never public, a 401 carries `WWW-Authenticate` (with the
 * RFC 6750 error of a refused token), and portcullis' own denials carry no stack
 * trace, even in development mode. Real standalone and Fetch servers on 127.0.0.1.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { initTRPC } from '@trpc/server';
import type { TRPCRequestInfo } from '@trpc/server/http';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, SecurityEvents, type SecurityEvent } from '../../src/index.js';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import {
  authenticated,
  createTrpcContext,
  permitAll,
  securityResponseMeta,
  type UserContext,
} from '../../src/trpc/index.js';
import { basic, listen, type TestServer } from '../support/server.js';
import { createAuthenticator } from './fixture.js';

const t = initTRPC.context<UserContext>().create();
let wiped = 0;
let pinged = 0;

/** `wipe` has no guard: the mistake deny-by-default is for. */
const router = t.router({
  health: t.procedure.use(permitAll()).query(() => 'ok'),
  me: t.procedure.use(authenticated()).query(({ ctx }) => ctx.user.username),
  ping: t.procedure.use(permitAll()).mutation(() => {
    pinged += 1;
    return 'pong';
  }),
  wipe: t.procedure.mutation(() => {
    wiped += 1;
    return 'wiped';
  }),
});

async function call(
  origin: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Headers; body: { error?: { data?: object } }[] | object }> {
  const response = await fetch(`${origin}/${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(method === 'POST' ? { body: '{}' } : {}),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as object,
  };
}

describe('deny by default: a procedure without a guard', () => {
  const events = new SecurityEvents();
  const seen: SecurityEvent[] = [];
  events.on('*', (event) => {
    seen.push(event);
  });
  let server: TestServer;
  let optedOut: TestServer;
  beforeAll(async () => {
    const authenticator = createAuthenticator();
    server = await listen(
      createHTTPServer({ router, createContext: createTrpcContext({ authenticator, events }) }),
    );
    optedOut = await listen(
      createHTTPServer({
        router,
        createContext: createTrpcContext({
          authenticator,
          dangerouslyAllowUnguardedProcedures: true,
        }),
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    await optedOut.close();
  });

  it('is refused before it runs: UNAUTHORIZED when anonymous, FORBIDDEN for a user', async () => {
    wiped = 0;
    expect((await call(server.origin, 'wipe', {}, 'POST')).status).toBe(401);
    const user = { authorization: basic('user', 'user-pw') };
    expect((await call(server.origin, 'wipe', user, 'POST')).status).toBe(403);
    const admin = { authorization: basic('admin', 'admin-pw') };
    expect((await call(server.origin, 'wipe', admin, 'POST')).status).toBe(403);
    expect(wiped).toBe(0);
    expect(seen.find((e) => e.type === 'access-denied')).toMatchObject({
      rule: 'denyAll() (procedure without a guard)',
      request: { method: 'TRPC', path: 'wipe' },
    });
  });

  it('refuses a batch holding one (nothing of the batch runs)', async () => {
    wiped = 0;
    pinged = 0;
    const batch = await fetch(`${server.origin}/ping,wipe?batch=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(batch.status).toBe(401);
    expect([pinged, wiped]).toEqual([0, 0]);
  });

  it('leaves guarded procedures alone', async () => {
    expect((await call(server.origin, 'health')).status).toBe(200);
    const user = { authorization: basic('user', 'user-pw') };
    expect((await call(server.origin, 'me', user)).status).toBe(200);
  });

  it('runs only with the loud opt-out dangerouslyAllowUnguardedProcedures', async () => {
    wiped = 0;
    expect((await call(optedOut.origin, 'wipe', {}, 'POST')).status).toBe(200);
    expect(wiped).toBe(1);
  });

  it('refuses what it cannot check: a WebSocket upgrade, a context without info, a tRPC without info.calls[].procedure', async () => {
    const authenticator = createAuthenticator();
    const factory = createTrpcContext({ authenticator });
    const req = (headers: Record<string, string>) =>
      ({
        method: 'GET',
        url: '/wipe',
        headers: { host: 'localhost', ...headers },
        socket: { remoteAddress: '127.0.0.1' },
      }) as unknown as IncomingMessage;
    const older = { calls: [{ path: 'wipe', type: 'mutation' }] } as unknown as TRPCRequestInfo;
    await expect(factory({ req: req({}), info: older })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    // A createContext that passes only { req } on (the review's attack: the unguarded
    // procedure answered 200 with its data).
    await expect(factory({ req: req({}) })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    const upgrade = req({ connection: 'Upgrade', upgrade: 'websocket' });
    const noCalls = { calls: [] } as unknown as TRPCRequestInfo;
    await expect(factory({ req: upgrade, info: noCalls })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    // With the router checked at start-up, both are served.
    const secured = t.router({ health: t.procedure.use(permitAll()).query(() => 'ok') });
    const checked = createTrpcContext({ authenticator, router: secured });
    await expect(checked({ req: req({}), info: older })).resolves.toMatchObject({ user: null });
    await expect(checked({ req: upgrade, info: noCalls })).resolves.toMatchObject({ user: null });
    await expect(checked({ req: req({}) })).resolves.toMatchObject({ user: null });
  });

  it('fails the start when the router is given', () => {
    const authenticator = createAuthenticator();
    expect(() => createTrpcContext({ authenticator, router })).toThrow(ConfigurationError);
    try {
      createTrpcContext({ authenticator, router });
    } catch (error) {
      expect((error as ConfigurationError).message).toContain('wipe: no guard and no meta.auth');
    }
    const secured = t.router({ health: t.procedure.use(permitAll()).query(() => 'ok') });
    expect(() => createTrpcContext({ authenticator, router: secured })).not.toThrow();
  });
});

describe('WWW-Authenticate on UNAUTHORIZED', () => {
  const SECRET = 'trpc-edge-test-secret-0123456789abcdef-0123456789';
  const jwt = new JwtAuthenticator(new JwtConfig(SECRET));
  const basicAuth = createAuthenticator();
  let jwtServer: TestServer;
  let basicServer: TestServer;
  let fetchServer: TestServer;
  beforeAll(async () => {
    jwtServer = await listen(
      createHTTPServer({
        router,
        createContext: createTrpcContext({
          authenticator: jwt,
          challenges: ['Bearer realm="api"'],
        }),
        responseMeta: securityResponseMeta(),
      }),
    );
    basicServer = await listen(
      createHTTPServer({
        router,
        createContext: createTrpcContext({
          authenticator: basicAuth,
          challenges: ['Basic realm="api", charset="UTF-8"'],
        }),
        // The app's own responseMeta keeps its headers.
        responseMeta: securityResponseMeta(() => ({ headers: { 'x-app': '1' } })),
      }),
    );
    const createContext = createTrpcContext({ authenticator: jwt });
    fetchServer = await listen(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
            method: req.method ?? 'GET',
            headers: req.headers as Record<string, string>,
            ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
          });
          void fetchRequestHandler({
            endpoint: '',
            req: request,
            router,
            createContext,
            responseMeta: securityResponseMeta(),
          }).then(async (response) => {
            res.writeHead(response.status, Object.fromEntries(response.headers));
            res.end(Buffer.from(await response.arrayBuffer()));
          });
        });
      }),
    );
  });
  afterAll(async () => {
    await jwtServer.close();
    await basicServer.close();
    await fetchServer.close();
  });

  it('answers the configured challenge when no credential was sent', async () => {
    const answer = await call(jwtServer.origin, 'me');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    const viaBasic = await call(basicServer.origin, 'me');
    expect(viaBasic.headers.get('www-authenticate')).toBe('Basic realm="api", charset="UTF-8"');
    expect(viaBasic.headers.get('x-app')).toBe('1');
  });

  it('says invalid_token when a presented token was refused', async () => {
    const answer = await call(jwtServer.origin, 'me', { authorization: 'Bearer a.b.c' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="api", error="invalid_token", error_description="[^"]+"$/u,
    );
    // Without configured challenges, the refused token's scheme still gets its error.
    const viaFetch = await call(fetchServer.origin, 'me', { authorization: 'Bearer a.b.c' });
    expect(viaFetch.status).toBe(401);
    expect(viaFetch.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/u);
  });

  it('adds nothing to other answers', async () => {
    expect((await call(jwtServer.origin, 'health')).headers.get('www-authenticate')).toBeNull();
    const forbidden = await call(
      basicServer.origin,
      'wipe',
      {
        authorization: basic('user', 'user-pw'),
      },
      'POST',
    );
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBeNull();
  });
});

describe('no stack trace in a denial, in development mode too', () => {
  const dev = initTRPC.context<UserContext>().create({ isDev: true });
  const devRouter = dev.router({
    me: dev.procedure.use(authenticated()).query(({ ctx }) => ctx.user.username),
    broken: dev.procedure.use(permitAll()).query(() => {
      throw new Error('the app failed');
    }),
  });
  let server: TestServer;
  beforeAll(async () => {
    server = await listen(
      createHTTPServer({
        router: devRouter,
        createContext: createTrpcContext({ authenticator: createAuthenticator() }),
      }),
    );
  });
  afterAll(() => server.close());

  it("sends no stack for portcullis' denials; the app's own errors keep tRPC's", async () => {
    const anonymous = await call(server.origin, 'me');
    expect(anonymous.status).toBe(401);
    const user = await call(server.origin, 'me', { authorization: basic('guest', 'wrong') });
    expect(user.status).toBe(401);
    for (const answer of [anonymous, user]) {
      const data = (answer.body as { error: { data: Record<string, unknown> } }).error.data;
      expect(data).not.toHaveProperty('stack');
      expect(JSON.stringify(answer.body)).not.toMatch(/\bat .*\.(?:ts|js):\d+/u);
    }
    const broken = await call(server.origin, 'broken');
    const data = (broken.body as { error: { data: Record<string, unknown> } }).error.data;
    expect(data['stack']).toEqual(expect.stringContaining('the app failed'));
  });
});
