/**
 * The example's account routes on the in-memory stores (one process):
 * `POST /account/password` and `POST /logout/everywhere`, with their attacks — an
 * anonymous call, a cross-site post riding the session cookie, a wrong current
 * password, and the old credentials after a change.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.js';
import { basic, listen, type TestServer } from '../support/server.js';

let server: TestServer;
let close: () => Promise<void>;

beforeAll(async () => {
  const app = await createApp({ session: { secure: false } });
  close = app.close;
  server = await listen(createServer(app.listener));
});
afterAll(async () => {
  await server.close();
  await close();
});

const post = (path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`${server.origin}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const status = async (path: string, headers: Record<string, string>): Promise<number> => {
  const response = await fetch(`${server.origin}${path}`, { headers, redirect: 'manual' });
  await response.arrayBuffer();
  return response.status;
};

/** The session cookie of a form login. */
async function logIn(username: string, password = `${username}-password`): Promise<string> {
  const page = await fetch(`${server.origin}/login`, { headers: { accept: 'text/html' } });
  const token = /name="_csrf" value="([^"]*)"/u.exec(await page.text())?.[1] ?? '';
  const pre = (page.headers.getSetCookie()[0] ?? '').split(';', 1)[0] ?? '';
  const response = await fetch(`${server.origin}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: pre,
      origin: server.origin,
      'sec-fetch-site': 'same-origin',
    },
    body: new URLSearchParams({ username, password, _csrf: token }).toString(),
  });
  expect(response.status).toBe(303);
  return (response.headers.getSetCookie()[0] ?? '').split(';', 1)[0] ?? '';
}

describe('POST /account/password', () => {
  it('needs a login, the right current password and an acceptable new one', async () => {
    const body = { currentPassword: 'guest-password', newPassword: 'long-enough-password' };
    expect((await post('/account/password', {}, body)).status).toBe(401);
    const auth = { authorization: basic('guest', 'guest-password') };
    const wrong = await post('/account/password', auth, { ...body, currentPassword: 'nope' });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({ error: 'invalid_current_password' });
    for (const newPassword of ['short', 'x'.repeat(257), 42]) {
      expect((await post('/account/password', auth, { ...body, newPassword })).status).toBe(400);
    }
    expect(
      (await post('/account/password', { ...auth, 'content-type': 'text/plain' })).status,
    ).toBe(415);
    // Nothing changed: the old password still works.
    expect(await status('/me', auth)).toBe(200);
  });

  it('changes the password: the old one is refused at once (cached or not), every session ends', async () => {
    const old = { authorization: basic('writer', 'writer-password') };
    expect(await status('/profile', old)).toBe(200); // cached now
    const cookie = await logIn('writer');
    expect(await status('/profile', { cookie })).toBe(200);
    const change = await post('/account/password', old, {
      currentPassword: 'writer-password',
      newPassword: 'writer-new-password',
    });
    expect(change.status).toBe(200);
    expect(await status('/profile', old)).toBe(401);
    expect(await status('/profile', { cookie })).toBe(401);
    const fresh = { authorization: basic('writer', 'writer-new-password') };
    expect(await status('/profile', fresh)).toBe(200);
  });

  it('refuses a cross-site post riding the session cookie (CSRF)', async () => {
    const cookie = await logIn('admin');
    const forged = await post(
      '/account/password',
      { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { currentPassword: 'admin-password', newPassword: 'chosen-by-the-attacker' },
    );
    expect(forged.status).toBe(403);
    expect(await status('/profile', { authorization: basic('admin', 'admin-password') })).toBe(200);
  });
});

describe('POST /logout/everywhere', () => {
  it('needs a login, refuses a cross-site post, and ends every session and token of the user', async () => {
    expect((await post('/logout/everywhere', {}, {})).status).toBe(401);
    const first = await logIn('user');
    const second = await logIn('user');
    const forged = await post(
      '/logout/everywhere',
      { cookie: first, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      {},
    );
    expect(forged.status).toBe(403);
    // A browser's cached Basic credentials, from a cross-site form (no JSON without a
    // CORS preflight): refused before anything is revoked.
    const basicForm = await fetch(`${server.origin}/logout/everywhere`, {
      method: 'POST',
      headers: {
        authorization: basic('user', 'user-password'),
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
      },
      body: 'x=1',
    });
    expect(basicForm.status).toBe(415);
    expect(await status('/profile', { cookie: second })).toBe(200);

    const out = await post(
      '/logout/everywhere',
      { cookie: first, origin: server.origin, 'sec-fetch-site': 'same-origin' },
      {},
    );
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ loggedOutEverywhere: true });
    expect(await status('/profile', { cookie: first })).toBe(401);
    expect(await status('/profile', { cookie: second })).toBe(401);
  });
});
