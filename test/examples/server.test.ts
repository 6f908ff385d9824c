import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.js';
import { basic, listen, type TestServer } from '../support/server.js';
import { SPEC_ROUTES, headersFor, statusesAt } from '../support/spec-routes.js';

describe('the example server (npm start)', () => {
  let server: TestServer;
  beforeAll(async () => {
    const { listener } = await createApp();
    server = await listen(createServer(listener));
  });
  afterAll(() => server.close());

  for (const [method, path, statuses] of SPEC_ROUTES) {
    it(`${method} ${path}`, async () => {
      expect(await statusesAt(server.origin, method, path)).toEqual(statuses);
    });
  }

  it('shows the profile and the JSON profile of the user', async () => {
    const profile = await fetch(`${server.origin}/profile`, { headers: headersFor('writer') });
    expect(await profile.text()).toBe(
      'username: writer\nroles: USER\nauthorities: posts:read, posts:write\n',
    );
    const json = await fetch(`${server.origin}/api/profile`, { headers: headersFor('admin') });
    expect(await json.json()).toEqual({ username: 'admin', roles: ['ADMIN', 'USER'] });
  });

  it('challenges with Basic, sends the security headers and no-store for users', async () => {
    const anonymous = await fetch(`${server.origin}/profile`);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm="Restricted"/u);
    expect(anonymous.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const user = await fetch(`${server.origin}/profile`, { headers: headersFor('user') });
    expect(user.headers.get('cache-control')).toBe('no-store');
    expect(user.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('refuses a wrong password and the path tricks', async () => {
    const wrong = await fetch(`${server.origin}/profile`, {
      headers: { authorization: basic('admin', 'user-password') },
    });
    expect(wrong.status).toBe(401);
    const encoded = await fetch(`${server.origin}/%61dmin`, { headers: headersFor('user') });
    expect(encoded.status).toBe(403);
  });
});
