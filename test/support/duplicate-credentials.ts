import { expect, it } from 'vitest';
import type { SecurityEvent, SecurityEvents } from '../../src/index.js';
import { sendRaw } from './raw-http.js';
import { basic } from './server.js';

/**
 * The attack of two credentials against a server (node, Express, Fastify): node
 * keeps the first `Authorization` line only, so `Basic user` + `Basic admin` was
 * authenticated as the first. Every case must be refused with 400, never a user.
 */
export function runDuplicateCredentialScenarios(
  origin: () => string,
  events: SecurityEvents,
): void {
  const host = (): [string, string] => ['Host', new URL(origin()).host];
  const user = basic('user', 'user-pw');
  const admin = basic('admin', 'admin-pw');

  it('authenticates one credential (the control)', async () => {
    const response = await sendRaw(origin(), 'GET /profile HTTP/1.1', [
      host(),
      ['Authorization', user],
    ]);
    expect(response.status).toBe(200);
    expect(response.body).toContain('hello user');
  });

  it.each([
    ['Basic admin + Basic user to /admin', '/admin', [admin, user]],
    ['Basic user + Basic admin to /profile', '/profile', [user, admin]],
    ['Basic user + Bearer to /profile', '/profile', [user, 'Bearer x']],
    ['Bearer + Basic user to /profile', '/profile', ['Bearer x', user]],
    ['Basic user, Basic admin in one line', '/profile', [`${user}, ${admin}`]],
  ])('refuses %s with 400', async (_, path, credentials) => {
    const seen: SecurityEvent[] = [];
    const stop = events.on('request-rejected', (event) => {
      seen.push(event);
    });
    const response = await sendRaw(origin(), `GET ${path} HTTP/1.1`, [
      host(),
      ...credentials.map((value): [string, string] => ['Authorization', value]),
    ]);
    expect(response.status).toBe(400);
    expect(response.body).not.toContain('hello');
    stop();
    expect(seen).toContainEqual(
      expect.objectContaining({ type: 'request-rejected', reason: 'duplicate-header' }),
    );
  });

  it('refuses two Hosts and a malformed Host with 400', async () => {
    const twice = await sendRaw(origin(), 'GET / HTTP/1.1', [host(), ['Host', 'evil.example']]);
    expect(twice.status).toBe(400);
    const malformed = await sendRaw(origin(), 'GET / HTTP/1.1', [['Host', 'u:p@h\u00e9\u00ff']]);
    expect(malformed.status).toBe(400);
  });
}
