import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { SecurityEvent } from '../../src/index.js';
import { honoSecurity, withSecurity } from '../../src/fetch/index.js';
import { createTestTransform, respond } from '../support/fixture.js';
import { basic } from '../support/server.js';

/** A Request whose `Authorization` was appended once per credential, as a runtime joins repeated lines. */
function withCredentials(path: string, ...credentials: string[]): Request {
  const headers = new Headers();
  for (const credential of credentials) headers.append('authorization', credential);
  return new Request(`http://app.example${path}`, { headers });
}

const user = basic('user', 'user-pw');
const admin = basic('admin', 'admin-pw');

describe('portcullis/fetch: two credentials are refused', () => {
  const { transform, events } = createTestTransform();
  const handler = withSecurity(
    transform,
    async (request) => new Response(await respond(new URL(request.url).pathname)),
  );
  const app = new Hono();
  app.use(honoSecurity(transform));
  app.all('*', async (c) => c.text(await respond(c.req.path)));

  it('authenticates one credential (the control)', async () => {
    const response = await handler(withCredentials('/profile', user));
    expect(await response.text()).toBe('hello user');
  });

  it.each([
    ['Basic admin + Basic user to /admin', '/admin', [admin, user]],
    ['Basic user + Basic admin to /profile', '/profile', [user, admin]],
    ['Basic user + Bearer to /profile', '/profile', [user, 'Bearer x']],
    ['Bearer + Basic user to /profile', '/profile', ['Bearer x', user]],
  ])('refuses %s with 400 (withSecurity and honoSecurity)', async (_, path, credentials) => {
    const seen: SecurityEvent[] = [];
    const stop = events.on('request-rejected', (event) => {
      seen.push(event);
    });
    const response = await handler(withCredentials(path, ...credentials));
    const hono = await app.fetch(withCredentials(path, ...credentials));
    stop();
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain('hello');
    expect(hono.status).toBe(400);
    expect(seen.map((event) => event.type === 'request-rejected' && event.reason)).toEqual([
      'duplicate-header',
      'duplicate-header',
    ]);
  });

  it('refuses a Host with userinfo', async () => {
    const request = new Request('http://app.example/', { headers: { host: 'u:p@app.example' } });
    expect((await handler(request)).status).toBe(400);
  });
});
