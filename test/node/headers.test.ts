import express from 'express';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityHeaders } from '../../src/index.js';
import {
  getCspNonce,
  withSecurity,
  security,
  securityHeaders,
  withSecurityHeaders,
} from '../../src/node/index.js';
import { createTestTransform } from '../support/fixture.js';
import { NONCE_OPTIONS, expectDefaultHeaders, nonceOf } from '../support/headers.js';
import { basic, listen, type TestServer } from '../support/server.js';

describe('portcullis/node security headers on Express', () => {
  const { transform } = createTestTransform();
  let server: TestServer;
  beforeAll(async () => {
    const app = express();
    app.use(securityHeaders(new SecurityHeaders(NONCE_OPTIONS)));
    app.use(security(transform));
    app.get('/page', (_req, res) => {
      res.send(
        `nonce=${String(res.locals['cspNonce'])} same=${String(getCspNonce(res) === res.locals['cspNonce'])}`,
      );
    });
    app.get('/cached', (_req, res) => {
      res.set('cache-control', 'public, max-age=60').send('ok');
    });
    app.get('/head-cached', (_req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=5' }).end('ok');
    });
    app.get('/frame', (_req, res) => {
      res.set('x-frame-options', 'DENY').send('ok');
    });
    server = await listen(createServer(app));
  });
  afterAll(() => server.close());

  it('sends helmet 8 defaults, removes X-Powered-By and exposes a fresh nonce', async () => {
    const first = await fetch(`${server.origin}/page`);
    const nonce = nonceOf(first.headers);
    expect(await first.text()).toBe(`nonce=${nonce} same=true`);
    const second = await fetch(`${server.origin}/page`);
    expect(nonceOf(second.headers)).not.toBe(nonce);
    expect(first.headers.get('x-powered-by')).toBeNull();
    expect(first.headers.get('strict-transport-security')).toBe(
      'max-age=31536000; includeSubDomains',
    );
  });

  it('adds no-store only for authenticated requests without their own Cache-Control', async () => {
    const anonymous = await fetch(`${server.origin}/page`);
    expect(anonymous.headers.get('cache-control')).toBeNull();
    const auth = { authorization: basic('user', 'user-pw') };
    const authenticated = await fetch(`${server.origin}/page`, { headers: auth });
    expect(authenticated.headers.get('cache-control')).toBe('no-store');
    const own = await fetch(`${server.origin}/cached`, { headers: auth });
    expect(own.headers.get('cache-control')).toBe('public, max-age=60');
    const viaWriteHead = await fetch(`${server.origin}/head-cached`, { headers: auth });
    expect(viaWriteHead.headers.get('cache-control')).toBe('max-age=5');
  });

  it('lets a handler override a header and puts the headers on denials too', async () => {
    expect((await fetch(`${server.origin}/frame`)).headers.get('x-frame-options')).toBe('DENY');
    const denied = await fetch(`${server.origin}/profile`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('portcullis/node withSecurityHeaders (plain http)', () => {
  it('wraps a handler with the default headers', async () => {
    const { transform } = createTestTransform();
    const server = await listen(
      withSecurityHeaders(
        withSecurity(transform, (_req, res) => {
          res.setHeader('x-powered-by', 'leaky');
          res.end('ok');
        }),
      ),
    );
    try {
      const response = await fetch(`${server.origin}/`);
      expect(response.status).toBe(200);
      for (const [name, value] of Object.entries({ 'x-xss-protection': '0' })) {
        expect(response.headers.get(name)).toBe(value);
      }
      // The handler itself set X-Powered-By after the headers ran: its choice wins.
      expect(response.headers.get('x-powered-by')).toBe('leaky');
      const plain = await listen(withSecurityHeaders((_req, res) => res.end('ok')));
      try {
        expectDefaultHeaders((await fetch(`${plain.origin}/`)).headers);
      } finally {
        await plain.close();
      }
    } finally {
      await server.close();
    }
  });

  it('refuses invalid options at construction with the option name', () => {
    expect(() => securityHeaders({ strictTransportSecurity: { maxAge: -1 } })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION' }),
    );
  });
});
