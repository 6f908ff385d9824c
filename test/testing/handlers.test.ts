import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SecurityContext } from '../../src/index.js';
import { userOf as fetchUserOf } from '../../src/fetch/index.js';
import { userOf as nodeUserOf } from '../../src/node/index.js';
import { fetchHandlerAs, mockUser, nodeHandlerAs } from '../../src/testing/index.js';

const ann = mockUser('ann', { roles: ['ADMIN'] });

describe('fetchHandlerAs', () => {
  it('gives the handler the user as withSecurity does: { user }, userOf and the SecurityContext', async () => {
    const handler = fetchHandlerAs(async (request: Request, { user }, tenant: string) => {
      await Promise.resolve();
      const current = SecurityContext.getUser();
      return new Response(
        `${user?.username} ${fetchUserOf(request)?.username} ${current?.username} ${tenant}`,
      );
    }, ann);
    const response = await handler(new Request('https://app.test/me'), 't1');
    expect(await response.text()).toBe('ann ann ann t1');
    const anonymous = fetchHandlerAs(
      (request) => new Response(fetchUserOf(request) === null ? 'null' : 'user'),
      null,
    );
    expect(await (await anonymous(new Request('https://app.test/'))).text()).toBe('null');
  });

  it('refuses a user that is not an AuthenticatedUser', () => {
    expect(() => fetchHandlerAs(() => new Response(), { username: 'eve' } as never)).toThrow(
      TypeError,
    );
  });
});

describe('nodeHandlerAs', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => {
      if (server) server.close(resolve);
      else resolve(undefined);
    });
    server = undefined;
  });

  it('gives the handler req.user, userOf(req) and the SecurityContext, also after the body', async () => {
    server = createServer(
      nodeHandlerAs((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          res.end(
            `${req.user?.username} ${nodeUserOf(req)?.username} ${SecurityContext.getUser()?.username} ${body}`,
          );
        });
      }, ann),
    );
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/me`, { method: 'POST', body: 'hi' });
    expect(await response.text()).toBe('ann ann ann hi');
  });
});
