import { initTRPC } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Access, AuthorizationManager, SecurityTransform } from '../../src/index.js';
import { withSecurity } from '../../src/node/index.js';
import { sendRaw } from '../support/raw-http.js';
import { listen, type TestServer } from '../support/server.js';

/** The Host checks are the firewall's: every request that passes it is granted. */
const everyone = AuthorizationManager.requestMatcher().anyRequest(Access.permitAll());
const t = initTRPC.create();
const router = t.router({ greeting: t.procedure.query(() => 'hello') });

/**
 * The fuzzer's finding: a `Host` holding `@` and non-ASCII bytes reached tRPC's
 * node adapter, which built a URL with credentials and answered 500 with a stack.
 */
describe('a malformed Host never reaches the framework (tRPC standalone behind withSecurity)', () => {
  let server: TestServer;
  let allowList: TestServer;
  beforeAll(async () => {
    const trpc = createHTTPHandler({ router });
    server = await listen(
      withSecurity(new SecurityTransform({ authorizer: everyone }), (req, res) => {
        trpc(req, res);
      }),
    );
    const strict = new SecurityTransform({
      authorizer: everyone,
      firewall: { allowedHostnames: ['127.0.0.1'] },
    });
    allowList = await listen(
      withSecurity(strict, (req, res) => {
        trpc(req, res);
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    await allowList.close();
  });

  it('answers a valid Host (the control)', async () => {
    const response = await sendRaw(server.origin, 'GET /greeting HTTP/1.1', [
      ['Host', new URL(server.origin).host],
    ]);
    expect(response.status).toBe(200);
    expect(response.body).toContain('hello');
  });

  it.each([
    'u:p@h\u00e9\u00ff',
    'user:secret@127.0.0.1',
    '@',
    'h\u00e9',
    'a b',
    '127.0.0.1:99999',
    'xn--a',
    '[::1',
  ])('answers 400, never 500 or a stack, to Host %j', async (host) => {
    const response = await sendRaw(server.origin, 'GET /greeting HTTP/1.1', [['Host', host]]);
    expect(response.status).toBe(400);
    expect(response.body).not.toMatch(/at |stack|Error/u);
  });

  it('answers 400 to an absolute-form target with userinfo', async () => {
    const response = await sendRaw(server.origin, 'GET http://u:p@127.0.0.1/greeting HTTP/1.1', [
      ['Host', '127.0.0.1'],
    ]);
    expect(response.status).toBe(400);
  });

  it('lets only allowedHostnames through', async () => {
    const port = new URL(allowList.origin).port;
    const ok = await sendRaw(allowList.origin, 'GET /greeting HTTP/1.1', [
      ['Host', `127.0.0.1:${port}`],
    ]);
    expect(ok.status).toBe(200);
    const other = await sendRaw(allowList.origin, 'GET /greeting HTTP/1.1', [
      ['Host', `evil.example:${port}`],
    ]);
    expect(other.status).toBe(400);
    // HTTP/1.0 without Host names no host: refused when there is an allow-list.
    const none = await sendRaw(allowList.origin, 'GET /greeting HTTP/1.0', []);
    expect(none.status).toBe(400);
  });

  it('leaves HTTP/1.1 without Host to node, which answers 400 itself', async () => {
    const response = await sendRaw(server.origin, 'GET /greeting HTTP/1.1', []);
    expect(response.status).toBe(400);
  });
});
