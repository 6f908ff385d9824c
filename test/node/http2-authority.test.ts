import { connect, createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Access, AuthorizationManager, SecurityTransform } from '../../src/index.js';
import { withSecurity } from '../../src/node/index.js';

/** An HTTP/2 server (node's compatibility API) behind withSecurity on 127.0.0.1. */
describe('HTTP/2 :authority is checked like Host', () => {
  let server: Http2Server;
  let origin = '';
  beforeAll(async () => {
    const everyone = AuthorizationManager.requestMatcher().anyRequest(Access.permitAll());
    const handler = withSecurity(new SecurityTransform({ authorizer: everyone }), (req, res) => {
      res.end('reached');
    });
    server = createServer(handler as unknown as Parameters<typeof createServer>[0]);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  );

  async function get(authority: string): Promise<{ status: number; body: string }> {
    const client = connect(origin);
    try {
      const request = client.request({ ':path': '/', ':authority': authority });
      request.setEncoding('utf8');
      let body = '';
      let status = 0;
      request.on('response', (headers) => {
        status = Number(headers[':status']);
      });
      request.on('data', (chunk: string) => (body += chunk));
      await new Promise((resolve, reject) => {
        request.on('end', resolve);
        request.on('error', reject);
      });
      return { status, body };
    } finally {
      client.close();
    }
  }

  it('lets a valid :authority through (the control)', async () => {
    expect(await get('api.example:8443')).toEqual({ status: 200, body: 'reached' });
  });

  it.each(['api.example:99999', 'api%2eexample'])(
    'answers 400 to :authority %j',
    async (authority) => {
      const response = await get(authority);
      expect(response.status).toBe(400);
      expect(response.body).not.toBe('reached');
    },
  );

  // With userinfo, Node 24's nghttp2 refuses the stream itself (PROTOCOL_ERROR) before any
  // handler runs; Node 20 and 22 hand it to withSecurity, which must answer 400.
  it.each(['u@api.example', 'user:secret@api.example'])(
    'answers 400 to :authority %j, or HTTP/2 refuses it first',
    async (authority) => {
      const response = await get(authority).catch((error: unknown) => {
        if (error instanceof Error && /NGHTTP2_PROTOCOL_ERROR/u.test(error.message)) {
          return { status: 400, body: 'refused by nghttp2' };
        }
        throw error;
      });
      expect(response.status).toBe(400);
      expect(response.body).not.toBe('reached');
    },
  );
});
