import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { security, securityHeaders } from '../../src/fastify/index.js';
import { createTestTransform } from '../support/fixture.js';
import { NONCE_OPTIONS, expectDefaultHeaders, nonceOf } from '../support/headers.js';
import { basic } from '../support/server.js';

describe('portcullis/fastify securityHeaders', () => {
  it('sets helmet defaults, a nonce on the reply and no-store for authenticated users', async () => {
    const { transform } = createTestTransform();
    const app = Fastify();
    await app.register(securityHeaders, { headers: NONCE_OPTIONS });
    await app.register(security, { transform });
    app.get('/page', (_request, reply) => `nonce=${reply.cspNonce ?? ''}`);
    app.get('/cached', (_request, reply) => reply.header('cache-control', 'max-age=3').send('ok'));
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const anonymous = await fetch(`${origin}/page`);
      const nonce = nonceOf(anonymous.headers);
      expect(await anonymous.text()).toBe(`nonce=${nonce}`);
      expect(anonymous.headers.get('cache-control')).toBeNull();
      const headers = { authorization: basic('user', 'user-pw') };
      expect((await fetch(`${origin}/page`, { headers })).headers.get('cache-control')).toBe(
        'no-store',
      );
      expect((await fetch(`${origin}/cached`, { headers })).headers.get('cache-control')).toBe(
        'max-age=3',
      );
      const denied = await fetch(`${origin}/admin`);
      expect(denied.status).toBe(401);
      expect(denied.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    } finally {
      await app.close();
    }
  });

  it('has helmet defaults without options and refuses bad options', async () => {
    const app = Fastify();
    await app.register(securityHeaders);
    app.get('/', () => 'ok');
    const response = await app.inject({ url: '/' });
    const headers = new Headers(response.headers as Record<string, string>);
    expectDefaultHeaders(headers);
    await app.close();
    const bad = Fastify();
    await expect(
      bad
        .register(securityHeaders, {
          headers: { xFrameOptions: { action: 'allow-from' as 'deny' } },
        })
        .ready(),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
  });
});
