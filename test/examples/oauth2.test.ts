/**
 * The example's OAuth2 login against its development OpenID provider (oidc-provider
 * on 127.0.0.1), driven over HTTP with fetch and a cookie jar per origin.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.js';
import { securityEvents, type SecurityEvent } from '../../src/index.js';
import { listen, type TestServer } from '../support/server.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const TIMEOUT_MS = 5000;

let server: TestServer;
let issuer: string;
let closeApp: () => Promise<void>;
let events: SecurityEvent[] = [];
let stopListening: () => void;

beforeAll(async () => {
  // The redirect URI names the example's port: listen first, then build the app.
  const node = createServer();
  server = await listen(node);
  const app = await createApp({
    session: { secure: false },
    oauth2DevProvider: { appOrigin: server.origin },
  });
  node.on('request', app.listener);
  closeApp = app.close;
  issuer = app.oauth2?.issuer ?? '';
  stopListening = securityEvents.on('*', (event) => {
    events.push(event);
  });
});

afterAll(async () => {
  stopListening();
  await server.close();
  await closeApp();
});

/** Cookies of one origin, as a browser would keep them (path and expiry aside). */
class Jar {
  readonly cookies = new Map<string, string>();

  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { ...(init.headers as Record<string, string> | undefined), cookie },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';', 1);
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /Max-Age=0/iu.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}

const locationOf = (response: Response, base: string): URL =>
  new URL(response.headers.get('location') ?? '', base);

/** The form fields a person types at the provider's login page. */
interface Typed {
  readonly username: string;
  readonly password: string;
}

/** Follows the provider's redirects from `url` to its login page. */
async function toLoginPage(jar: Jar, url: URL): Promise<{ page: URL; html: string; action: URL }> {
  let at = url;
  for (let hop = 0; hop < 5; hop++) {
    const response = await jar.fetch(at, { headers: { accept: HTML } });
    if (response.status === 200) {
      const html = await response.text();
      const action = /<form method="post" action="([^"]+\/login)"/u.exec(html)?.[1];
      expect(action).toBeDefined();
      return { page: at, html, action: new URL(action ?? '', at) };
    }
    expect(response.status).toBe(303);
    at = locationOf(response, at.href);
  }
  throw new Error('no login page at the provider');
}

/** Posts the provider's login form, by default with the metadata of its own page. */
function submit(
  jar: Jar,
  action: URL,
  typed: Typed,
  metadata: Record<string, string> = { origin: issuer, 'sec-fetch-site': 'same-origin' },
) {
  return jar.fetch(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...metadata },
    body: new URLSearchParams({ ...typed }).toString(),
  });
}

/**
 * Fills the provider's login form and follows its redirects (login, the consent it
 * approves at once) back to the example: the callback URL (`code`, `state`, `iss`).
 */
async function atProvider(jar: Jar, start: URL, typed: Typed): Promise<URL> {
  const { action } = await toLoginPage(jar, start);
  let response = await submit(jar, action, typed);
  let url = action;
  for (let hop = 0; hop < 10; hop++) {
    expect(response.status).toBe(303);
    url = locationOf(response, url.href);
    if (url.origin !== issuer) return url;
    response = await jar.fetch(url, { headers: { accept: HTML } });
  }
  throw new Error('too many redirects at the provider');
}

/** `GET /oauth2/authorization/local`: the provider's authorization URL. */
async function authorizationUrl(app: Jar, query = '?continue=%2Fme'): Promise<URL> {
  const start = await app.fetch(`${server.origin}/oauth2/authorization/local${query}`, {
    headers: { accept: HTML },
  });
  expect(start.status).toBe(302);
  const authorization = locationOf(start, server.origin);
  expect(authorization.origin).toBe(issuer);
  return authorization;
}

/** From the example's authorization route to the provider's redirect back. */
async function startLogin(
  app: Jar,
  typed: Typed,
  query = '?continue=%2Fme',
): Promise<{ callback: URL; authorization: URL }> {
  const authorization = await authorizationUrl(app, query);
  const callback = await atProvider(new Jar(), authorization, typed);
  return { callback, authorization };
}

describe('OAuth2 login with the development provider', () => {
  it('logs admin in through the provider and shows the example roles on /me', async () => {
    const app = new Jar();
    const { callback, authorization } = await startLogin(app, {
      username: 'admin',
      password: 'admin-password',
    });
    // PKCE, state and nonce in the request; RFC 9207 iss in the response.
    const request = authorization.searchParams;
    expect(request.get('code_challenge_method')).toBe('S256');
    expect(request.get('state')).toMatch(/^[A-Za-z0-9_-]{32,}$/u);
    expect(request.get('nonce')).toMatch(/^[A-Za-z0-9_-]{32,}$/u);
    expect(`${callback.origin}${callback.pathname}`).toBe(
      `${server.origin}/login/oauth2/code/local`,
    );
    expect(callback.searchParams.get('iss')).toBe(issuer);
    expect(callback.searchParams.get('state')).toBe(request.get('state'));
    expect(app.cookies.has('session')).toBe(false);
    const transaction = app.cookies.get('oauth2') ?? '';
    expect(transaction).toMatch(/^Fe26\.2\*/u);

    events = [];
    const done = await app.fetch(callback, { headers: { accept: HTML } });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/me');
    expect(app.cookies.get('session')).toMatch(/^Fe26\.2\*/u);
    expect(app.cookies.has('oauth2')).toBe(false); // the transaction is spent
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'authentication-success',
        username: 'admin',
        authenticationMethod: 'oauth2',
      }),
    );

    const me = await app.fetch(`${server.origin}/me`, { headers: { accept: HTML } });
    expect(me.status).toBe(200);
    const html = await me.text();
    expect(html).toContain('<span id="username">admin</span>');
    expect(html).toContain('<dd id="roles">ADMIN, USER</dd>');
    expect(html).toContain('<dd id="authorities">posts:read, posts:write, users:write</dd>');
    // The roles are the example's: admin may use the admin area.
    const admin = await app.fetch(`${server.origin}/admin`);
    expect(admin.status).toBe(200);

    // The same callback again with a copy of the transaction cookie: spent, refused.
    const replay = new Jar();
    replay.cookies.set('oauth2', transaction);
    events = [];
    const again = await replay.fetch(callback);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toMatch(/^\/login\?error=oauth2/u);
    expect(replay.cookies.has('session')).toBe(false);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'authentication-failure', reason: 'invalid-session' }),
    );
  });

  it('maps writer to the example writer (roles and authorities from the store)', async () => {
    const app = new Jar();
    const { callback } = await startLogin(app, {
      username: 'writer',
      password: 'writer-password',
    });
    expect((await app.fetch(callback)).status).toBe(303);
    const profile = await app.fetch(`${server.origin}/profile`);
    expect(await profile.text()).toBe(
      'username: writer\nroles: USER\nauthorities: posts:read, posts:write\n',
    );
    expect((await app.fetch(`${server.origin}/admin`)).status).toBe(403);
  });

  it('refuses a tampered state at the callback: no session', async () => {
    const app = new Jar();
    const { callback } = await startLogin(app, { username: 'admin', password: 'admin-password' });
    const tampered = new URL(callback);
    const state = tampered.searchParams.get('state') ?? '';
    tampered.searchParams.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`);
    events = [];
    const response = await app.fetch(tampered);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?error=oauth2');
    expect(response.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(false);
    expect(app.cookies.has('session')).toBe(false);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'authentication-failure', authenticationMethod: 'oauth2' }),
    );
    expect((await app.fetch(`${server.origin}/me`)).status).toBe(401);
  });

  it('refuses a subject the example has no account for (mapper → null)', async () => {
    const app = new Jar();
    const { callback } = await startLogin(app, {
      username: 'stranger',
      password: 'stranger-password',
    });
    expect(callback.searchParams.has('code')).toBe(true); // the provider said yes
    events = [];
    const response = await app.fetch(callback);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(/^\/login\?error=oauth2/u);
    expect(app.cookies.has('session')).toBe(false);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'authentication-failure',
        authenticationMethod: 'oauth2',
        reason: 'unknown-user',
      }),
    );
    const page = await app.fetch(`${server.origin}/login?error=oauth2`, {
      headers: { accept: HTML },
    });
    expect(await page.text()).toContain('The login with the provider did not succeed.');
  });
});

describe('the login page and the routes', () => {
  it('offers the provider button, keeping a same-origin target only', async () => {
    const page = async (query: string) =>
      (await fetch(`${server.origin}/login${query}`, { headers: { accept: HTML } })).text();
    expect(await page('')).toContain(
      '<a class="button" id="oauth2-login" href="/oauth2/authorization/local?continue=%2Fme">Log in with the local test provider</a>',
    );
    expect(await page('?continue=%2Fposts%3Fpage%3D2')).toContain(
      'href="/oauth2/authorization/local?continue=%2Fposts%3Fpage%3D2"',
    );
    const evil = await page(`?continue=${encodeURIComponent('//evil.example/"><script>')}`);
    expect(evil).toContain('href="/oauth2/authorization/local?continue=%2Fme"');
    expect(evil).not.toContain('<script>');
  });

  it('returns to the saved target, and never to another origin', async () => {
    for (const [query, location] of [
      ['?continue=%2Fposts%3Fpage%3D2', '/posts?page=2'],
      [`?continue=${encodeURIComponent('//evil.example/x')}`, '/me'],
      [`?continue=${encodeURIComponent('https://evil.example/')}`, '/me'],
    ] as const) {
      const app = new Jar();
      const authorization = await authorizationUrl(app, query);
      const callback = await atProvider(new Jar(), authorization, {
        username: 'user',
        password: 'user-password',
      });
      const done = await app.fetch(callback);
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe(location);
    }
  });

  it('sends a cancelled login back to /login?error=oauth2 without a session', async () => {
    const app = new Jar();
    const provider = new Jar();
    const { action } = await toLoginPage(provider, await authorizationUrl(app));
    const abort = await submit(provider, new URL(action.href.replace(/\/login$/u, '/abort')), {
      username: '',
      password: '',
    });
    expect(abort.status).toBe(303);
    let url = locationOf(abort, action.href);
    while (url.origin === issuer) {
      url = locationOf(await provider.fetch(url), url.href);
    }
    expect(url.searchParams.get('error')).toBe('access_denied');
    const done = await app.fetch(url);
    expect(done.headers.get('location')).toMatch(/^\/login\?error=oauth2/u);
    expect(app.cookies.has('session')).toBe(false);
  });

  it('answers 404 for another registration id and 405 for a POST', async () => {
    expect((await fetch(`${server.origin}/oauth2/authorization/google`)).status).toBe(404);
    const post = await fetch(`${server.origin}/oauth2/authorization/local`, { method: 'POST' });
    expect(post.status).toBe(405);
  });
});

describe('the development provider', () => {
  it('publishes S256 PKCE and RFC 9207 iss in its discovery document', async () => {
    const response = await fetch(`${issuer}/.well-known/openid-configuration`);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata['issuer']).toBe(issuer);
    expect(metadata['code_challenge_methods_supported']).toEqual(['S256']);
    expect(metadata['authorization_response_iss_parameter_supported']).toBe(true);
  });

  it('requires PKCE: a request without code_challenge is refused', async () => {
    const authorization = await authorizationUrl(new Jar());
    authorization.searchParams.delete('code_challenge');
    authorization.searchParams.delete('code_challenge_method');
    const response = await fetch(authorization, { redirect: 'manual' });
    const back = locationOf(response, authorization.href);
    expect(`${back.origin}${back.pathname}`).toBe(`${server.origin}/login/oauth2/code/local`);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.has('code')).toBe(false);
  });

  it('refuses a wrong password or an unknown user, echoing the username escaped', async () => {
    const provider = new Jar();
    const { action } = await toLoginPage(provider, await authorizationUrl(new Jar()));
    for (const typed of [
      { username: 'admin', password: 'user-password' },
      { username: 'admin', password: '' },
      { username: 'nobody"><script>alert(1)</script>', password: 'admin-password' },
    ]) {
      const response = await submit(provider, action, typed);
      expect(response.status).toBe(401);
      expect(response.headers.get('location')).toBeNull();
      const html = await response.text();
      expect(html).toContain('id="provider-error"');
      expect(html).not.toContain('<script>');
    }
    // The form still works afterwards.
    const ok = await submit(provider, action, { username: 'admin', password: 'admin-password' });
    expect(ok.status).toBe(303);
  });

  it('refuses a cross-site post of its login form', async () => {
    const provider = new Jar();
    const { action } = await toLoginPage(provider, await authorizationUrl(new Jar()));
    const typed = { username: 'admin', password: 'admin-password' };
    for (const headers of [
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-site', origin: server.origin },
      { 'sec-fetch-site': '', origin: server.origin },
      { origin: server.origin }, // no browser metadata: the Origin decides
      { origin: 'null' },
    ]) {
      const response = await submit(provider, action, typed, headers);
      expect(response.status).toBe(403);
    }
  });

  it('answers an unknown interaction with 400 and no details', async () => {
    const response = await fetch(`${issuer}/interaction/unknown-uid`, {
      headers: { accept: HTML },
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('unknown or has expired');
  });
});

describe('the example without the development provider', () => {
  it('has no provider button and no OAuth2 routes', async () => {
    const app = await createApp({ session: { secure: false } });
    expect(app.oauth2).toBeUndefined();
    const plain = await listen(createServer(app.listener));
    try {
      const login = await fetch(`${plain.origin}/login`, { headers: { accept: HTML } });
      expect(await login.text()).not.toContain('oauth2');
      const route = await fetch(`${plain.origin}/oauth2/authorization/local`, {
        redirect: 'manual',
      });
      expect(route.status).toBe(404);
    } finally {
      await plain.close();
      await app.close();
    }
  });
});
