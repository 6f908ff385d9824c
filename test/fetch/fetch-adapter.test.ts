import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthenticatedUser } from '../../src/index.js';
import { honoSecurity, withSecurity } from '../../src/fetch/index.js';
import { createTestTransform, respond } from '../support/fixture.js';
import { runContextScenario, runScenarios } from '../support/scenarios.js';
import { listen, type TestServer } from '../support/server.js';

/** Serves a Fetch handler over node http so the raw scenarios can reach it. */
async function serveFetch(handler: (request: Request) => Promise<Response>): Promise<TestServer> {
  return listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      // The raw target is passed through unparsed, as a runtime's server would build it.
      const request = new Request(
        `http://127.0.0.1${req.url?.startsWith('/') ? '' : '/'}${req.url ?? ''}`,
        {
          method: req.method ?? 'GET',
          headers,
          ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
        },
      );
      void handler(request).then(async (response) => {
        const body = Buffer.from(await response.arrayBuffer());
        res.writeHead(response.status, {
          ...Object.fromEntries(response.headers),
          'content-length': body.length,
        });
        res.end(body);
      });
    });
  });
}

// The WHATWG URL parser resolves dot segments and rewrites some targets before any
// Fetch handler sees them (as Bun, Deno and undici-based servers do): those cases
// reach the handler already normalized, so they are checked on the URL it gets.
const NORMALIZED_BY_URL = new Set([
  'dot-dot into admin',
  'encoded dot-dot',
  'absolute-form target',
]);

describe('portcullis/fetch withSecurity()', () => {
  const { transform } = createTestTransform();
  let server: TestServer;
  beforeAll(async () => {
    server = await serveFetch(
      withSecurity(transform, async (request, { user }) => {
        const text = await respond(new URL(request.url).pathname);
        return new Response(text, { headers: { 'x-user': user?.username ?? '-' } });
      }),
    );
  });
  afterAll(() => server.close());

  runScenarios(() => server.origin, NORMALIZED_BY_URL);
  runContextScenario(() => server.origin);

  it('checks paths the URL parser normalized as the router will see them', async () => {
    const handler = withSecurity(transform, () => new Response('ok'));
    expect((await handler(new Request('http://h/profile/../admin'))).status).toBe(401);
    expect((await handler(new Request('http://h/x/%2e%2e/admin'))).status).toBe(401);
  });
});

describe('portcullis/fetch honoSecurity()', () => {
  const { transform } = createTestTransform();
  const app = new Hono<{ Variables: { user: AuthenticatedUser | null } }>();
  app.use(honoSecurity(transform));
  app.get('/whoami', (c) => c.text(c.get('user')?.username ?? 'anonymous'));
  app.all('*', async (c) => c.text(await respond(c.req.path)));
  let server: TestServer;
  beforeAll(async () => {
    server = await serveFetch(async (request) => app.fetch(request));
  });
  afterAll(() => server.close());

  runScenarios(() => server.origin, NORMALIZED_BY_URL);
  runContextScenario(() => server.origin);

  it('sets the user variable', async () => {
    const response = await app.request('/whoami', {
      headers: { authorization: `Basic ${Buffer.from('writer:writer-pw').toString('base64')}` },
    });
    expect(await response.text()).toBe('writer');
  });
});
