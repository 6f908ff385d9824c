import { describe, expect, it } from 'vitest';
import {
  SecurityEvents,
  securityEvents,
  User,
  type AccessDeniedEvent,
  type AuthenticationSuccessEvent,
  type Authenticator,
} from '../../src/index.js';
import { createTrpcContext, type NodeRequestLike } from '../../src/trpc/index.js';
import { appRouter, createAuthenticator, headersOf, securedRouter } from './fixture.js';

function nodeRequest(headers: Record<string, string>, extra: object = {}): NodeRequestLike {
  return {
    method: 'GET',
    url: '/trpc/profile',
    headers,
    socket: { remoteAddress: '10.0.0.9' },
    ...extra,
  } as unknown as NodeRequestLike;
}

const wsInfo = (connectionParams: Record<string, string> | null) => ({ connectionParams });
const upgrade = { upgrade: 'websocket', connection: 'Upgrade' };

describe('createTrpcContext', () => {
  // `router` is checked at start-up, so WebSocket upgrades (whose context is made
  // before any call) are served.
  const context = createTrpcContext({
    authenticator: createAuthenticator(),
    router: securedRouter,
  });

  it('authenticates node, Express, Fastify and Fetch requests', async () => {
    const headers = headersOf('writer');
    expect((await context({ req: nodeRequest(headers) })).user?.username).toBe('writer');
    expect((await context({ req: { raw: nodeRequest(headers) } })).user?.username).toBe('writer');
    const request = new Request('https://api.example/trpc/profile', { headers });
    expect((await context({ req: request })).user?.username).toBe('writer');
    expect((await context({ req: nodeRequest({}) })).user).toBeNull();
    const admin = (await context({ req: nodeRequest(headersOf('admin')) })).user;
    expect([...(admin?.roles ?? [])]).toEqual(['ADMIN', 'USER']);
    expect(admin?.authenticationMethod).toBe('basic');
  });

  it('summarizes the request the client sent (Express originalUrl, client address)', async () => {
    const events = new SecurityEvents();
    const seen: AuthenticationSuccessEvent[] = [];
    events.on('authentication-success', (event) => {
      seen.push(event);
    });
    const withEvents = createTrpcContext({
      authenticator: createAuthenticator(events),
      router: securedRouter,
    });
    const req = nodeRequest(headersOf('user'), { url: '/profile', originalUrl: '/trpc/profile' });
    await withEvents({ req });
    expect(seen[0]?.request).toEqual({
      method: 'GET',
      path: '/trpc/profile',
      clientAddress: '10.0.0.9',
    });
  });

  it('reads the credential from connectionParams on a WebSocket upgrade only', async () => {
    const params = headersOf('user');
    const ws = await context({ req: nodeRequest(upgrade), info: wsInfo(params) });
    expect(ws.user?.username).toBe('user');
    const http = await context({ req: nodeRequest({}), info: wsInfo(params) });
    expect(http.user).toBeNull();
    const fetchUpgrade = new Request('http://h/trpc', { headers: upgrade });
    expect((await context({ req: fetchUpgrade, info: wsInfo(params) })).user?.username).toBe(
      'user',
    );
  });

  it('prefers the header of the upgrade request to connectionParams', async () => {
    const req = nodeRequest({ ...upgrade, ...headersOf('admin') });
    const ctx = await context({ req, info: wsInfo(headersOf('user')) });
    expect(ctx.user?.username).toBe('admin');
  });

  it('ignores missing, non-string and unlisted connection parameters', async () => {
    const req = nodeRequest(upgrade);
    expect((await context({ req, info: wsInfo(null) })).user).toBeNull();
    const odd = { authorization: 42 } as unknown as Record<string, string>;
    expect((await context({ req, info: wsInfo(odd) })).user).toBeNull();
    const other = { token: headersOf('user').authorization! };
    expect((await context({ req, info: wsInfo(other) })).user).toBeNull();
    const off = createTrpcContext({
      authenticator: createAuthenticator(),
      connectionParams: false,
      router: securedRouter,
    });
    expect((await off({ req, info: wsInfo(headersOf('user')) })).user).toBeNull();
  });

  it('maps configured connectionParams to headers', async () => {
    const apiKeys: Authenticator = {
      authenticationMethod: 'api-key',
      getUser: (request) =>
        request.header('X-API-Key') === 'k-1' ? new User('robot', '', ['BOT']) : null,
    };
    const apiContext = createTrpcContext({
      authenticator: apiKeys,
      connectionParams: ['X-API-Key'],
      router: securedRouter,
    });
    const ctx = await apiContext({
      req: nodeRequest(upgrade),
      info: wsInfo({ 'X-API-Key': 'k-1' }),
    });
    expect(ctx.user?.username).toBe('robot');
    expect(ctx.user?.authenticationMethod).toBe('api-key');
  });

  it('keeps the client address through a spread into a larger context', async () => {
    const denied: AccessDeniedEvent[] = [];
    const stop = securityEvents.on('access-denied', (event) => {
      denied.push(event);
    });
    try {
      const ctx = { ...(await context({ req: nodeRequest(headersOf('user')) })), db: 'db' };
      await expect(appRouter.createCaller(ctx).admin.dashboard()).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      expect(denied[0]?.request).toEqual({
        method: 'TRPC',
        path: 'admin.dashboard',
        clientAddress: '10.0.0.9',
      });
    } finally {
      stop();
    }
  });
});
