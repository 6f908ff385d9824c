import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityHeaders, applySecurityHeaders, applyToHeaders } from '../../src/headers/index.js';

const sh = new SecurityHeaders({
  contentSecurityPolicy: { directives: { scriptSrc: ["'self'", SecurityHeaders.nonce] } },
});

describe('applySecurityHeaders on a Node server on 127.0.0.1', () => {
  let server: http.Server;
  let url = '';

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.setHeader('X-Powered-By', 'Express');
      const applied = sh.forRequest();
      applySecurityHeaders(res, applied);
      if (req.url === '/embeddable') res.setHeader('X-Frame-Options', 'DENY');
      if (req.url === '/cached') res.setHeader('Cache-Control', 'public, max-age=60');
      // What an adapter does when headers are written: decide Cache-Control then.
      const authenticated = req.headers.authorization !== undefined;
      const cacheControl = sh.cacheControlFor(authenticated, res.hasHeader('cache-control'));
      if (cacheControl !== undefined) res.setHeader('Cache-Control', cacheControl);
      res.setHeader('Content-Type', 'text/html');
      res.end(`<script nonce="${applied.nonce ?? ''}"></script>`);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.close();
    server.closeAllConnections();
    await once(server, 'close');
  });

  it('sets every header, removes X-Powered-By and gives the handler this response’s nonce', async () => {
    const response = await fetch(`${url}/`);
    const body = await response.text();
    for (const [name, value] of sh.headers) expect(response.headers.get(name)).toBe(value);
    expect(response.headers.has('x-powered-by')).toBe(false);
    const nonce = /nonce="([^"]+)"/u.exec(body)?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/u);
    expect(response.headers.get('content-security-policy')).toContain(
      `script-src 'self' 'nonce-${nonce!}';`,
    );
    expect(response.headers.has('cache-control')).toBe(false);
  });

  it('lets the handler override a header for its response', async () => {
    const response = await fetch(`${url}/embeddable`);
    await response.text();
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('adds Cache-Control: no-store to authenticated responses unless the handler set one', async () => {
    const auth = { authorization: 'Bearer x' };
    const [authenticated, ownCache] = await Promise.all([
      fetch(`${url}/`, { headers: auth }),
      fetch(`${url}/cached`, { headers: auth }),
    ]);
    await Promise.all([authenticated.text(), ownCache.text()]);
    expect(authenticated.headers.get('cache-control')).toBe('no-store');
    expect(ownCache.headers.get('cache-control')).toBe('public, max-age=60');
  });
});

describe('applyToHeaders on Fetch responses', () => {
  it('adds the headers to a handler’s Response and removes X-Powered-By', () => {
    const applied = sh.forRequest();
    const response = new Response('ok', { headers: { 'X-Powered-By': 'Hono' } });
    applyToHeaders(response.headers, applied);
    expect(Object.fromEntries(response.headers)).toEqual({
      ...Object.fromEntries(applied.headers),
      'content-type': 'text/plain;charset=UTF-8',
    });
    expect(response.headers.get('content-security-policy')).toContain(`'nonce-${applied.nonce!}'`);
  });

  it('keeps a header the handler set, unless overwrite is set', () => {
    const applied = sh.forRequest();
    const kept = new Headers({ 'Referrer-Policy': 'origin' });
    applyToHeaders(kept, applied);
    expect(kept.get('referrer-policy')).toBe('origin');
    const replaced = new Headers({ 'Referrer-Policy': 'origin' });
    applyToHeaders(replaced, applied, { overwrite: true });
    expect(replaced.get('referrer-policy')).toBe('no-referrer');
  });

  it('throws on immutable headers rather than silently sending none', () => {
    const redirect = Response.redirect('http://127.0.0.1/login', 302);
    expect(() => {
      applyToHeaders(redirect.headers, sh.forRequest());
    }).toThrow(TypeError);
  });
});
