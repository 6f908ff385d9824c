import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USERS, createApp } from '../../examples/app.js';
import { escapeHtml, mePage } from '../../examples/session-pages.js';
import { AuthenticatedUser, User, securityEvents, type SecurityEvent } from '../../src/index.js';
import { basic, listen, type TestServer } from '../support/server.js';

let server: TestServer;
let events: SecurityEvent[] = [];
let stopListening: () => void;

beforeAll(async () => {
  // Explicit options: the test does not depend on SESSION_* in the environment.
  const { listener } = await createApp({ session: { secure: false } });
  server = await listen(createServer(listener));
  stopListening = securityEvents.on('*', (event) => {
    events.push(event);
  });
});
afterAll(async () => {
  stopListening();
  await server.close();
});

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** What a same-origin browser form post sends besides the body. */
const sameOrigin = (): Record<string, string> => ({
  origin: server.origin,
  'sec-fetch-site': 'same-origin',
});

/** `name=value` of the response's cookie (the first `Set-Cookie`). */
function cookieOf(response: Response): string {
  const header = response.headers.getSetCookie()[0];
  expect(header).toBeDefined();
  return (header ?? '').split(';', 1)[0] ?? '';
}

/** The value of a hidden input in a page. */
function hidden(html: string, name: string): string | undefined {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`, 'u').exec(html);
  return match?.[1];
}

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.origin}${path}`, { headers, redirect: 'manual' });

const postForm = (path: string, form: Record<string, string>, headers: Record<string, string>) =>
  fetch(`${server.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });

/** GET /login: the pre-login cookie and the form's token. */
async function loginForm(query = ''): Promise<{ cookie: string; token: string; html: string }> {
  const response = await get(`/login${query}`, { accept: HTML });
  expect(response.status).toBe(200);
  const html = await response.text();
  const token = hidden(html, '_csrf');
  expect(token).toBeDefined();
  return { cookie: cookieOf(response), token: token ?? '', html };
}

/** The whole login: the session cookie of `username`. */
async function logIn(username: string, password = `${username}-password`): Promise<string> {
  const form = await loginForm();
  const response = await postForm(
    '/login',
    { username, password, _csrf: form.token },
    { cookie: form.cookie, ...sameOrigin() },
  );
  expect(response.status).toBe(303);
  return cookieOf(response);
}

/** GET /me: the page and the logout form's token. */
async function me(cookie: string): Promise<{ html: string; token: string }> {
  const response = await get('/me', { cookie, accept: HTML });
  expect(response.status).toBe(200);
  const html = await response.text();
  return { html, token: hidden(html, '_csrf') ?? '' };
}

describe('the session site: login, /me, logout', () => {
  for (const demo of DEMO_USERS) {
    it(`runs the whole flow for ${demo.username}`, async () => {
      const form = await loginForm('?continue=%2Fme');
      expect(hidden(form.html, 'continue')).toBe('/me');
      const login = await postForm(
        '/login',
        {
          username: demo.username,
          password: demo.password,
          _csrf: form.token,
          continue: '/me',
        },
        { cookie: form.cookie, ...sameOrigin() },
      );
      expect(login.status).toBe(303);
      expect(login.headers.get('location')).toBe('/me');
      const setCookie = login.headers.getSetCookie()[0] ?? '';
      expect(setCookie).toMatch(/^session=Fe26\.2\*/u);
      expect(setCookie).toContain('; HttpOnly');
      expect(setCookie).toContain('; SameSite=Lax');
      expect(setCookie).toContain('; Path=/');
      expect(setCookie).not.toContain('Secure');
      const cookie = cookieOf(login);
      // A fresh session: the pre-login cookie is not the logged-in one and logs nobody in.
      expect(cookie).not.toBe(form.cookie);
      expect((await get('/me', { cookie: form.cookie })).status).toBe(401);

      const page = await me(cookie);
      expect(page.html).toContain(`<span id="username">${demo.username}</span>`);
      const roles = demo.roles.length > 0 ? demo.roles.join(', ') : '(none)';
      const authorities = demo.authorities.length > 0 ? demo.authorities.join(', ') : '(none)';
      expect(page.html).toContain(`<dd id="roles">${roles}</dd>`);
      expect(page.html).toContain(`<dd id="authorities">${authorities}</dd>`);
      expect(page.html).toContain('<dd id="method">session</dd>');

      const logout = await postForm('/logout', { _csrf: page.token }, { cookie, ...sameOrigin() });
      expect(logout.status).toBe(303);
      expect(logout.headers.get('location')).toBe('/login?logout');
      expect(logout.headers.getSetCookie()[0]).toMatch(/^session=; .*Max-Age=0/u);

      // The old cookie, replayed: a browser is sent to the login form, an API client gets 401.
      const browser = await get('/me', { cookie, accept: HTML });
      expect(browser.status).toBe(302);
      expect(browser.headers.get('location')).toBe('/login?continue=%2Fme');
      const api = await get('/me', { cookie });
      expect(api.status).toBe(401);
      expect(api.headers.get('www-authenticate')).toMatch(/^Basic realm="Restricted"/u);
      expect((await get('/trpc/profile', { cookie })).status).toBe(401);
    });
  }

  it('sends the login form with its token, a pre-login cookie once, and no-store', async () => {
    const first = await loginForm();
    expect(first.html).toContain('<form class="login" method="post" action="/login">');
    const again = await get('/login', { cookie: first.cookie, accept: HTML });
    expect(again.headers.getSetCookie()).toEqual([]);
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(hidden(await again.text(), '_csrf')).toBe(first.token);
  });

  it('sends a bad password or an unknown user back to /login?error, keeping the target', async () => {
    for (const [username, password] of [
      ['user', 'wrong'],
      ['nobody', 'user-password'],
    ] as const) {
      const form = await loginForm();
      const response = await postForm(
        '/login',
        { username, password, _csrf: form.token, continue: '/posts' },
        { cookie: form.cookie, ...sameOrigin() },
      );
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/login?error&continue=%2Fposts');
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    const page = await get('/login?error&continue=%2Fposts', { accept: HTML });
    const html = await page.text();
    expect(html).toContain('id="login-error"');
    expect(hidden(html, 'continue')).toBe('/posts');
  });

  it('refuses a login without the form token or with the token of another session', async () => {
    const form = await loginForm();
    const other = await loginForm();
    const credentials = { username: 'user', password: 'user-password' };
    for (const [fields, cookie] of [
      [credentials, form.cookie],
      [{ ...credentials, _csrf: other.token }, form.cookie],
      [{ ...credentials, _csrf: form.token }, ''],
    ] as const) {
      const response = await postForm('/login', fields, { cookie, ...sameOrigin() });
      expect(response.status).toBe(403);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
  });

  it('escapes what it prints into pages', async () => {
    const attack = '/"><script>alert(1)</script>';
    const page = await get(`/login?continue=${encodeURIComponent(attack)}`, { accept: HTML });
    const html = await page.text();
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('"><');
    expect(escapeHtml(`<a href="x" title='y'>&`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;',
    );
    const user = AuthenticatedUser.from(
      new User('<img src=x onerror=alert(1)>', '').withRoles(['<b>']).withAuthorities(['"&']),
      { authenticationMethod: 'session' },
    );
    const me = mePage({ user, csrfToken: '"><x', csrfField: '_csrf', nonce: 'n"' });
    expect(me).not.toMatch(/<img|<b>|"><x|n""/u);
    expect(me).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('puts the response nonce of the Content-Security-Policy on the inline script', async () => {
    const cookie = await logIn('user');
    const response = await get('/me', { cookie, accept: HTML });
    const csp = response.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/u.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(await response.text()).toContain(`<script nonce="${nonce ?? ''}">`);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the saved target after login', () => {
  it('redirects a browser to /login with the requested path and query', async () => {
    const response = await get('/posts?page=2', { accept: HTML });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/login?continue=%2Fposts%3Fpage%3D2');
    // API clients keep getting 401 with the challenges.
    const api = await get('/posts?page=2');
    expect(api.status).toBe(401);
    expect(api.headers.get('www-authenticate')).toBe(
      'Basic realm="Restricted", charset="UTF-8", Bearer realm="api"',
    );
  });

  it('follows a same-origin target and nothing else', async () => {
    const cases: [target: string, location: string][] = [
      ['/posts?page=2', '/posts?page=2'],
      ['//evil.example/x', '/me'],
      ['https://evil.example/', '/me'],
      ['/\\evil.example', '/me'],
      ['https://127.0.0.1@evil.example/', '/me'],
      ['javascript:alert(1)', '/me'],
      ['/\t/evil.example', '/me'],
    ];
    for (const [target, location] of cases) {
      const form = await loginForm();
      const response = await postForm(
        '/login',
        { username: 'user', password: 'user-password', _csrf: form.token, continue: target },
        { cookie: form.cookie, ...sameOrigin() },
      );
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(location);
    }
    const page = await loginForm(`?continue=${encodeURIComponent('//evil.example/x')}`);
    expect(hidden(page.html, 'continue')).toBeUndefined();
  });
});

describe('cross-site requests with a valid session cookie', () => {
  const attacks: [name: string, headers: Record<string, string>][] = [
    [
      'Sec-Fetch-Site: cross-site',
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    ],
    // Another port of 127.0.0.1 is another origin but the same site: SameSite=Lax sends the cookie.
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' }],
    ['a foreign Origin (no Sec-Fetch-Site)', { origin: 'https://evil.example' }],
    ['Origin: null', { origin: 'null' }],
  ];

  for (const [name, headers] of attacks) {
    it(`refuses ${name} with 403 and leaves the session alone`, async () => {
      const cookie = await logIn('writer');
      const { token } = await me(cookie);
      events = [];
      // Even with the right token (a leaked one): the origin decides first.
      const logout = await postForm('/logout', { _csrf: token }, { cookie, ...headers });
      expect(logout.status).toBe(403);
      expect(logout.headers.getSetCookie()).toEqual([]);
      const posts = await fetch(`${server.origin}/posts`, {
        method: 'POST',
        headers: { cookie, 'x-csrf-token': token, ...headers },
        redirect: 'manual',
      });
      expect(posts.status).toBe(403);
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'csrf-rejected', username: 'writer' }),
      );
      await me(cookie); // still logged in
    });
  }

  it('lets the same request through from the own origin', async () => {
    const cookie = await logIn('writer');
    const { token } = await me(cookie);
    const posts = await fetch(`${server.origin}/posts`, {
      method: 'POST',
      headers: { cookie, ...sameOrigin() },
    });
    expect(posts.status).toBe(201);
    // A client without browser metadata (curl) needs the token in the header.
    const bare = await fetch(`${server.origin}/posts`, { method: 'POST', headers: { cookie } });
    expect(bare.status).toBe(403);
    const withToken = await fetch(`${server.origin}/posts`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': token },
    });
    expect(withToken.status).toBe(201);
    const wrongToken = await fetch(`${server.origin}/posts`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': (await loginForm()).token, ...sameOrigin() },
    });
    expect(wrongToken.status).toBe(403);
  });

  it('refuses a cross-site login form post', async () => {
    const form = await loginForm();
    const response = await postForm(
      '/login',
      { username: 'user', password: 'user-password', _csrf: form.token },
      { cookie: form.cookie, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    );
    expect(response.status).toBe(403);
  });

  it('keeps HTTP Basic working next to the session, with no CSRF check', async () => {
    const response = await fetch(`${server.origin}/posts`, {
      method: 'POST',
      headers: {
        authorization: basic('writer', 'writer-password'),
        'sec-fetch-site': 'cross-site',
      },
    });
    expect(response.status).toBe(201);
  });
});

describe('/trpc and /graphql with the session cookie', () => {
  const graphql = (cookie: string, headers: Record<string, string>, query: string) =>
    fetch(`${server.origin}/graphql`, {
      method: 'POST',
      headers: {
        cookie,
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...headers,
      },
      body: JSON.stringify({ query }),
    });

  it('answers GET queries for the session user', async () => {
    const cookie = await logIn('writer');
    const trpc = await get('/trpc/profile', { cookie });
    expect(trpc.status).toBe(200);
    expect(await trpc.json()).toEqual({
      result: {
        data: { username: 'writer', roles: ['USER'], authorities: ['posts:read', 'posts:write'] },
      },
    });
    const query = encodeURIComponent('{ profile { username } }');
    const gql = await get(`/graphql?query=${query}`, {
      cookie,
      accept: 'application/graphql-response+json',
    });
    expect(gql.status).toBe(200);
    expect(await gql.json()).toEqual({ data: { profile: { username: 'writer' } } });
  });

  it('answers a POST from the own origin with the token, and no other', async () => {
    const cookie = await logIn('admin');
    const { token } = await me(cookie);
    const query = '{ profile { username } }';
    const ok = await graphql(cookie, { ...sameOrigin(), 'x-csrf-token': token }, query);
    expect(await ok.json()).toEqual({ data: { profile: { username: 'admin' } } });
    const anonymous = { profile: null };
    for (const headers of [
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example', 'x-csrf-token': token },
      { 'x-csrf-token': 'bad.token' },
      {}, // no browser metadata and no token
    ]) {
      const refused = (await (await graphql(cookie, headers, query)).json()) as {
        data: unknown;
        errors: { extensions: { code: string } }[];
      };
      expect(refused.data).toEqual(anonymous);
      expect(refused.errors[0]?.extensions.code).toBe('UNAUTHENTICATED');
    }
    const tokenOnly = await graphql(cookie, { 'x-csrf-token': token }, query);
    expect(await tokenOnly.json()).toEqual({ data: { profile: { username: 'admin' } } });
  });

  it('never runs a mutation sent cross-site or as a text/plain form', async () => {
    const cookie = await logIn('writer');
    const { token } = await me(cookie);
    const create = (headers: Record<string, string>, type = 'application/json') =>
      fetch(`${server.origin}/trpc/posts.create`, {
        method: 'POST',
        headers: { cookie, 'content-type': type, ...headers },
        body: JSON.stringify({ title: 'forged' }),
      });
    const own = await create({ ...sameOrigin(), 'x-csrf-token': token });
    expect(own.status).toBe(200);
    const crossSite = await create({
      'sec-fetch-site': 'cross-site',
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(401);
    // A text/plain body is what a cross-site form can send: the session needs the token.
    const textPlain = await fetch(`${server.origin}/posts`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'text/plain', ...sameOrigin() },
      body: '{}',
    });
    expect(textPlain.status).toBe(403);
    expect((await create({ ...sameOrigin() }, 'text/plain')).status).not.toBe(200);
    const gqlForm = await fetch(`${server.origin}/graphql`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
      body: JSON.stringify({ query: 'mutation { createPost(title: "forged") { id } }' }),
    });
    expect(gqlForm.status).not.toBe(200);
  });
});
