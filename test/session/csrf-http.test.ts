import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Access,
  AuthenticationManager,
  AuthorizationManager,
  SecurityTransform,
} from '../../src/index.js';
import { withSecurity } from '../../src/node/index.js';
import { basic, listen, type TestServer } from '../support/server.js';
import {
  ALICE,
  cookiePair,
  makeSessions,
  request,
  userStore,
  type SessionsFixture,
} from './support.js';

interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** A request with exactly these headers (fetch would add or drop some). */
function send(
  origin: string,
  method: string,
  path: string,
  headers: Readonly<Record<string, string>> = {},
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const HTML = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';

describe('CSRF over HTTP (node adapter, requestMatcher with a login URL)', () => {
  let server: TestServer;
  let fixture: SessionsFixture;
  let cookie: string;
  let token: string;
  let own: string;

  beforeAll(async () => {
    fixture = makeSessions({ dangerouslyAllowInsecureCookie: true });
    const authenticator = AuthenticationManager.anyOf(fixture.sessions, userStore(fixture.events));
    const transform = new SecurityTransform({ events: fixture.events })
      .configAuthenticator(() => authenticator)
      .configAuthorizer(() =>
        AuthorizationManager.requestMatcher()
          .loginUrl('/login', { targetParameter: 'continue' })
          .httpBasic()
          .addMatcher('/login', Access.permitAll())
          .anyRequest(new Access().authenticated()),
      );
    server = await listen(
      withSecurity(transform, (req, res) => {
        res.setHeader('content-type', 'text/plain');
        res.end(`${req.method ?? ''} ${req.user?.username ?? 'anonymous'}`);
      }),
    );
    own = server.origin;
    cookie = cookiePair(await fixture.sessions.logIn(ALICE));
    token = (await fixture.sessions.csrfToken(request({ cookie }))).token;
  });
  afterAll(() => server.close());

  const crossSite = () => ({
    cookie,
    'sec-fetch-site': 'cross-site',
    origin: 'https://evil.example',
  });

  it('a same-origin POST with the session cookie goes through', async () => {
    const reply = await send(own, 'POST', '/api/transfer', {
      cookie,
      'sec-fetch-site': 'same-origin',
      origin: own,
    });
    expect(reply).toMatchObject({ status: 200, body: 'POST alice' });
  });

  it('a cross-site POST is 403, not 401 and not a login redirect', async () => {
    const reply = await send(own, 'POST', '/api/transfer', {
      ...crossSite(),
      accept: 'application/json',
    });
    expect(reply.status).toBe(403);
    expect(reply.headers['www-authenticate']).toBeUndefined();
    expect(reply.headers.location).toBeUndefined();
    expect(reply.headers['content-type']).toBe('application/problem+json');
  });

  it('a cross-site form post (a browser navigation) is 403 too', async () => {
    const reply = await send(
      own,
      'POST',
      '/api/transfer',
      { ...crossSite(), accept: HTML, 'content-type': 'application/x-www-form-urlencoded' },
      'amount=1000',
    );
    expect(reply.status).toBe(403);
    expect(reply.headers.location).toBeUndefined();
    expect(reply.body).toBe('Forbidden');
  });

  it('PUT, PATCH and DELETE are refused the same way; GET is not checked', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      expect((await send(own, method, '/api/x', crossSite())).status).toBe(403);
    }
    expect(await send(own, 'GET', '/api/x', crossSite())).toMatchObject({
      status: 200,
      body: 'GET alice',
    });
  });

  it('a non-browser client with the cookie needs the token header', async () => {
    expect((await send(own, 'POST', '/api/x', { cookie })).status).toBe(403);
    expect((await send(own, 'POST', '/api/x', { cookie, 'x-csrf-token': 'forged' })).status).toBe(
      403,
    );
    expect(await send(own, 'POST', '/api/x', { cookie, 'x-csrf-token': token })).toMatchObject({
      status: 200,
      body: 'POST alice',
    });
  });

  it('a text/plain POST (what a cross-site form can send) without token is 403', async () => {
    const reply = await send(
      own,
      'POST',
      '/graphql',
      { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'text/plain' },
      '{"query":"mutation { transfer }"}',
    );
    expect(reply.status).toBe(403);
  });

  it('without any session a POST is a missing login (401 / redirect), not a refusal', async () => {
    const api = await send(own, 'POST', '/api/x', { 'sec-fetch-site': 'cross-site' });
    expect(api.status).toBe(401);
    expect(api.headers['www-authenticate']).toMatch(/^Basic /u);
    const page = await send(own, 'GET', '/me?tab=1', { accept: HTML });
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe('/login?continue=%2Fme%3Ftab%3D1');
  });

  it('Basic-authenticated requests are not subject to CSRF (cross-site, no cookie)', async () => {
    const reply = await send(own, 'POST', '/api/x', {
      'sec-fetch-site': 'cross-site',
      origin: 'https://partner.example',
      authorization: basic('alice', 'alice-pw'),
    });
    expect(reply).toMatchObject({ status: 200, body: 'POST alice' });
  });

  it('the csrf-rejected event reaches the application', async () => {
    const before = fixture.received.length;
    await send(own, 'DELETE', '/api/account', crossSite());
    expect(fixture.received.slice(before)).toContainEqual(
      expect.objectContaining({ type: 'csrf-rejected', username: 'alice', reason: 'cross-site' }),
    );
  });
});
