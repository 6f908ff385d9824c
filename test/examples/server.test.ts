import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.js';
import { basic, listen, type TestServer } from '../support/server.js';

type Who = 'anonymous' | 'user' | 'writer' | 'admin' | 'guest';
const WHO: Who[] = ['anonymous', 'user', 'writer', 'admin', 'guest'];

/** SPEC.md's example routes and the status each demo user gets. */
const EXPECTED: [method: string, path: string, statuses: Record<Who, number>][] = [
  ['GET', '/', { anonymous: 200, user: 200, writer: 200, admin: 200, guest: 200 }],
  ['GET', '/health', { anonymous: 200, user: 200, writer: 200, admin: 200, guest: 200 }],
  ['GET', '/profile', { anonymous: 401, user: 200, writer: 200, admin: 200, guest: 403 }],
  ['GET', '/posts', { anonymous: 401, user: 200, writer: 200, admin: 200, guest: 403 }],
  ['POST', '/posts', { anonymous: 401, user: 403, writer: 201, admin: 201, guest: 403 }],
  ['GET', '/admin', { anonymous: 401, user: 403, writer: 403, admin: 200, guest: 403 }],
  ['GET', '/admin/dashboard', { anonymous: 401, user: 403, writer: 403, admin: 200, guest: 403 }],
  ['POST', '/admin/users', { anonymous: 401, user: 403, writer: 403, admin: 201, guest: 403 }],
  ['GET', '/api/data', { anonymous: 401, user: 200, writer: 200, admin: 200, guest: 403 }],
  ['GET', '/api/profile', { anonymous: 401, user: 200, writer: 200, admin: 200, guest: 403 }],
];

const headersFor = (who: Who): Record<string, string> =>
  who === 'anonymous' ? {} : { authorization: basic(who, `${who}-password`) };

describe('the example server (npm start)', () => {
  let server: TestServer;
  beforeAll(async () => {
    const { listener } = await createApp();
    server = await listen(createServer(listener));
  });
  afterAll(() => server.close());

  for (const [method, path, statuses] of EXPECTED) {
    it(`${method} ${path}`, async () => {
      const seen: Record<string, number> = {};
      for (const who of WHO) {
        const response = await fetch(`${server.origin}${path}`, {
          method,
          headers: headersFor(who),
        });
        await response.arrayBuffer();
        seen[who] = response.status;
      }
      expect(seen).toEqual(statuses);
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
