import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formLogin, formLogout } from '../../src/session/index.js';
import {
  answer,
  APP_PAGE,
  cookiePair,
  form,
  harnessOf,
  HARNESS_KINDS,
  makeSessions,
  nodeHarness,
  request,
  thrown,
  userStore,
  type Harness,
  type SessionsFixture,
} from './support.js';

const FORM = 'application/x-www-form-urlencoded';

describe('form bodies that are too large or never end', () => {
  let fixture: SessionsFixture;
  let harness: Harness;
  let login: ReturnType<typeof formLogin>;

  beforeAll(async () => {
    fixture = makeSessions();
    login = formLogin({ sessions: fixture.sessions, credentials: userStore(fixture.events) });
    harness = await nodeHarness(login, formLogout({ sessions: fixture.sessions }));
  });
  afterAll(() => harness.close());

  it('fetch: an endless streamed body is cut at maxBodyBytes (413), not read to the end', async () => {
    let pulls = 0;
    const chunk = new TextEncoder().encode(`a=${'x'.repeat(1022)}`);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(chunk);
      },
    });
    const response = await answer(
      login,
      new Request('http://app.example/login', {
        method: 'POST',
        headers: { 'content-type': FORM },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    // 16 KiB by default: a few chunks past it at most, never the stream's (endless) rest.
    expect(pulls).toBeLessThan(40);
  });

  it('fetch: a declared Content-Length over the limit is refused before reading', async () => {
    const response = await answer(
      login,
      new Request('http://app.example/login', {
        method: 'POST',
        headers: { 'content-type': FORM, 'content-length': '99999999' },
        body: 'a=b',
      }),
    );
    expect(response.status).toBe(413);
  });

  it('node: a large body gets 413 and the connection is closed', async () => {
    const { token, setCookie } = await fixture.sessions.csrfToken(request());
    const reply = await harness.send('/login', {
      headers: {
        'content-type': FORM,
        cookie: cookiePair(setCookie ?? ''),
        'sec-fetch-site': 'same-origin',
      },
      body: form({ _csrf: token, username: 'alice', password: 'x'.repeat(200_000) }),
    });
    expect(reply.status).toBe(413);
    expect(reply.headers['connection']).toBe('close');
  });

  it('node: a client that goes away mid-body does not break the server', async () => {
    const url = new URL(harness.origin);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          [
            'POST /login HTTP/1.1',
            `Host: ${url.host}`,
            `Content-Type: ${FORM}`,
            'Content-Length: 1000',
            '',
            'username=alice&pass',
          ].join('\r\n'),
        );
        setImmediate(() => {
          socket.destroy();
          resolve();
        });
      });
      socket.on('error', reject);
    });
    // The server still answers (an unhandled rejection would fail this test file).
    const reply = await harness.send('/login', { method: 'POST' });
    expect(reply.status).toBe(415);
  });
});

describe.each(HARNESS_KINDS)('form request checks (%s)', (kind) => {
  let fixture: SessionsFixture;
  let harness: Harness;
  beforeAll(async () => {
    fixture = makeSessions();
    const login = formLogin({
      sessions: fixture.sessions,
      credentials: userStore(fixture.events),
      maxBodyBytes: 1024,
    });
    const logout = formLogout({ sessions: fixture.sessions });
    harness = await harnessOf(kind, login, logout);
  });
  afterAll(() => harness.close());

  const alice = { username: 'alice', password: 'alice-pw' };
  async function loginPage(): Promise<{ cookie: string; token: string }> {
    const { token, setCookie } = await fixture.sessions.csrfToken(request());
    return { cookie: cookiePair(setCookie ?? ''), token };
  }
  const post = (page: { cookie: string; token: string }, fields: Record<string, string>) =>
    harness.send('/login', {
      headers: { cookie: page.cookie, 'content-type': FORM, 'sec-fetch-site': 'same-origin' },
      body: form({ _csrf: page.token, ...fields }),
    });

  it("GET /login reaches the application's own login page (the routes answer POST only)", async () => {
    const reply = await harness.send('/login', { method: 'GET' });
    expect(reply.status).toBe(200);
    expect(reply.body).toBe(APP_PAGE);
    expect(reply.setCookies).toEqual([]);
  });

  it('other methods and paths pass on to the application (its 404)', async () => {
    const page = await loginPage();
    for (const [method, path] of [
      ['PUT', '/login'],
      ['PATCH', '/logout'],
      ['POST', '/login/'],
      ['POST', '/signin'],
    ] as const) {
      const reply = await harness.send(path, {
        method,
        headers: { cookie: page.cookie, 'content-type': FORM, 'sec-fetch-site': 'same-origin' },
        body: form({ ...alice, _csrf: page.token }),
      });
      expect([method, path, reply.status, reply.body]).toEqual([method, path, 404, 'no such page']);
      expect(reply.setCookies).toEqual([]);
    }
  });

  it('a POST with a query string is the route', async () => {
    const page = await loginPage();
    const reply = await harness.send('/login?lang=en', {
      headers: { cookie: page.cookie, 'content-type': FORM, 'sec-fetch-site': 'same-origin' },
      body: form({ ...alice, _csrf: page.token }),
    });
    expect(reply.status).toBe(303);
    expect(reply.setCookies).toHaveLength(1);
  });

  it('415 for JSON, multipart or no content type', async () => {
    const page = await loginPage();
    for (const type of ['application/json', 'multipart/form-data; boundary=x', 'text/plain']) {
      const reply = await harness.send('/login', {
        headers: { cookie: page.cookie, 'content-type': type, 'sec-fetch-site': 'same-origin' },
        body: JSON.stringify({ ...alice, _csrf: page.token }),
      });
      expect(reply.status).toBe(415);
      expect(reply.setCookies).toEqual([]);
    }
  });

  it('413 over maxBodyBytes', async () => {
    const page = await loginPage();
    const reply = await post(page, { ...alice, padding: 'x'.repeat(2000) });
    expect(reply.status).toBe(413);
    expect(reply.setCookies).toEqual([]);
  });

  it('400 for a repeated field (which copy wins would differ between layers)', async () => {
    const page = await loginPage();
    for (const body of [
      `${form({ ...alice, _csrf: page.token })}&username=root`,
      `${form({ ...alice, _csrf: page.token })}&_csrf=x`,
      `${form({ ...alice, _csrf: page.token })}&password=x`,
    ]) {
      const reply = await harness.send('/login', {
        headers: { cookie: page.cookie, 'content-type': FORM, 'sec-fetch-site': 'same-origin' },
        body,
      });
      expect(reply.status).toBe(400);
    }
  });
});

describe('a failing credentials check', () => {
  it('answers 500 without details (node and Fetch)', async () => {
    const { sessions } = makeSessions();
    const credentials = {
      verifyCredentials: () => Promise.reject(new Error('database password is hunter2')),
    };
    const login = formLogin({ sessions, credentials });
    const harness = await nodeHarness(login, formLogout({ sessions }));
    try {
      const { token, setCookie } = await sessions.csrfToken(request());
      const init = {
        headers: {
          'content-type': FORM,
          cookie: cookiePair(setCookie ?? ''),
          'sec-fetch-site': 'same-origin',
        },
        body: form({ _csrf: token, username: 'alice', password: 'alice-pw' }),
      };
      const reply = await harness.send('/login', init);
      expect(reply.status).toBe(500);
      expect(reply.body).toBe('Internal Server Error');
      expect(reply.setCookies).toEqual([]);
      const response = await answer(
        login,
        new Request('http://app.example/login', { method: 'POST', ...init }),
      );
      expect(response.status).toBe(500);
      expect(await response.text()).toBe('Internal Server Error');
      expect(response.headers.getSetCookie()).toEqual([]);
    } finally {
      await harness.close();
    }
  });
});

describe('formLogin / formLogout configuration', () => {
  const { sessions, events } = makeSessions();
  const credentials = userStore(events);

  it('refuses bad options, naming them', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ sessions: {}, credentials }, 'sessions'],
      [{ sessions, credentials: {} }, 'credentials'],
      [{ sessions, credentials, loginUrl: 'https://evil.com/login' }, 'loginUrl'],
      [{ sessions, credentials, loginUrl: '//evil.com' }, 'loginUrl'],
      [{ sessions, credentials, defaultTarget: 'javascript:alert(1)' }, 'defaultTarget'],
      [{ sessions, credentials, targetField: '' }, 'targetField'],
      [{ sessions, credentials, maxBodyBytes: 10 }, 'maxBodyBytes'],
      [{ sessions, credentials, redirect: '/' }, 'redirect'],
      [{ sessions, credentials, path: 'login' }, 'path'],
      [{ sessions, credentials, path: '/a/../login' }, 'path'],
      [{ sessions, credentials, path: '/login/{id}' }, 'path'],
      [{ sessions, credentials, path: '/login/*' }, 'path'],
      [{ sessions, credentials, path: '//evil.com' }, 'path'],
    ];
    for (const [options, option] of cases) {
      expect(thrown(() => formLogin(options as never))).toMatchObject({
        code: 'ERR_INVALID_OPTION',
        option,
      });
    }
    expect(thrown(() => formLogout({ sessions, target: '//evil.com' }))).toMatchObject({
      option: 'target',
    });
    expect(thrown(() => formLogout({ sessions, traget: '/' } as never))).toMatchObject({
      option: 'traget',
    });
    expect(thrown(() => formLogout({ sessions, path: 'logout' }))).toMatchObject({
      option: 'path',
    });
  });

  it('custom field names, login URL and default target', async () => {
    const custom = formLogin({
      sessions,
      credentials,
      path: '/signin',
      loginUrl: '/signin?lang=en',
      defaultTarget: '/home',
      targetField: 'next',
      usernameField: 'email',
      passwordField: 'secret',
    });
    const { token, setCookie } = await sessions.csrfToken(request());
    expect(custom.paths).toEqual(['/signin']);
    expect(custom.methods).toEqual(['POST']);
    const send = (fields: Record<string, string>) =>
      answer(
        custom,
        new Request('http://app.example/signin', {
          method: 'POST',
          headers: {
            'content-type': FORM,
            cookie: cookiePair(setCookie ?? ''),
            'sec-fetch-site': 'same-origin',
          },
          body: form({ _csrf: token, ...fields }),
        }),
      );
    const ok = await send({ email: 'alice', secret: 'alice-pw', next: '/x' });
    expect(ok.headers.get('location')).toBe('/x');
    const home = await send({ email: 'alice', secret: 'alice-pw' });
    expect(home.headers.get('location')).toBe('/home');
    const failed = await send({ email: 'alice', secret: 'no', next: '/x' });
    expect(failed.headers.get('location')).toBe('/signin?lang=en&error&next=%2Fx');
  });
});
