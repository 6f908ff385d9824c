import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  getCspNonce,
  honoSecurity,
  honoSecurityHeaders,
  withSecurity,
  withSecurityHeaders,
  type PortcullisVariables,
} from '../../src/fetch/index.js';
import { createTestTransform } from '../support/fixture.js';
import { NONCE_OPTIONS, expectDefaultHeaders, nonceOf } from '../support/headers.js';
import { basic } from '../support/server.js';

const auth = { authorization: basic('user', 'user-pw') };

describe('portcullis/fetch withSecurityHeaders', () => {
  const { transform } = createTestTransform();
  const handler = withSecurityHeaders(
    withSecurity(transform, (request) => {
      const path = new URL(request.url).pathname;
      if (path === '/cached') {
        return new Response('ok', { headers: { 'cache-control': 'max-age=9' } });
      }
      if (path === '/redirect') return Response.redirect('http://127.0.0.1/elsewhere', 302);
      return new Response(`nonce=${getCspNonce(request) ?? ''}`);
    }),
    NONCE_OPTIONS,
  );

  it('sets the defaults and a per-request nonce the handler can read', async () => {
    const response = await handler(new Request('http://h/page'));
    const nonce = nonceOf(response.headers);
    expect(await response.text()).toBe(`nonce=${nonce}`);
    expect(nonceOf((await handler(new Request('http://h/page'))).headers)).not.toBe(nonce);
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('adds no-store for authenticated requests unless the handler chose', async () => {
    expect((await handler(new Request('http://h/page'))).headers.get('cache-control')).toBeNull();
    const authenticated = await handler(new Request('http://h/page', { headers: auth }));
    expect(authenticated.headers.get('cache-control')).toBe('no-store');
    const own = await handler(new Request('http://h/cached', { headers: auth }));
    expect(own.headers.get('cache-control')).toBe('max-age=9');
  });

  it('copies responses with immutable headers and covers denials', async () => {
    const redirect = await handler(new Request('http://h/redirect'));
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('x-content-type-options')).toBe('nosniff');
    const denied = await handler(new Request('http://h/profile'));
    expect(denied.status).toBe(401);
    expect(denied.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('has helmet defaults without options', async () => {
    const plain = withSecurityHeaders(() => new Response('ok'));
    expectDefaultHeaders((await plain(new Request('http://h/'))).headers);
  });
});

describe('portcullis/fetch honoSecurityHeaders', () => {
  const { transform } = createTestTransform();
  const app = new Hono<{ Variables: PortcullisVariables }>();
  app.use(honoSecurityHeaders(NONCE_OPTIONS));
  app.use(honoSecurity(transform));
  app.get('*', (c) =>
    c.text(`nonce=${c.get('cspNonce') ?? ''} user=${c.get('user')?.username ?? '-'}`),
  );

  it('sets headers, the nonce variable and no-store for authenticated users', async () => {
    const response = await app.request('/x', { headers: auth });
    const nonce = nonceOf(response.headers);
    expect(await response.text()).toBe(`nonce=${nonce} user=user`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const denied = await app.request('/profile');
    expect(denied.status).toBe(401);
    expect(denied.headers.get('x-dns-prefetch-control')).toBe('off');
  });
});
