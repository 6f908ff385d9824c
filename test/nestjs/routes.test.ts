/**
 * The NestJS example (examples/nestjs/app.ts) over real HTTP on 127.0.0.1, on both
 * Nest platforms: SPEC.md's routes table × every demo user, as the node example
 * answers it (test/examples/server.test.ts).
 */
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNestApp, type Platform } from '../../examples/nestjs/app.js';
import { basic } from '../support/server.js';
import { SPEC_ROUTES, headersFor, statusesAt } from '../support/spec-routes.js';
import { PLATFORMS, listenLocally } from './support.js';

/** SPEC.md's table, and a route of the NestJS example's own: an ownership rule (args.username,
 * the route param, == principal.username, or ADMIN). */
const EXPECTED = [
  ...SPEC_ROUTES,
  [
    'GET',
    '/api/users/writer',
    { anonymous: 401, user: 403, writer: 200, admin: 200, guest: 403 },
  ] as const,
];

describe.each<Platform>(PLATFORMS)('the NestJS example on %s', (platform) => {
  let app: INestApplication;
  let origin: string;
  beforeAll(async () => {
    app = await createNestApp(platform, { logger: false });
    origin = await listenLocally(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('listens on 127.0.0.1', () => {
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/u);
  });

  for (const [method, path, statuses] of EXPECTED) {
    it(`${method} ${path}`, async () => {
      expect(await statusesAt(origin, method, path)).toEqual(statuses);
    });
  }

  it('answers a 401 with the Basic challenge, through Nest’s exception filter', async () => {
    const response = await fetch(`${origin}/profile`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Basic realm="Restricted", charset="UTF-8"',
    );
    expect(await response.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Authentication is required',
    });
  });

  it('answers a 403 as Nest’s ForbiddenException, without a challenge', async () => {
    const response = await fetch(`${origin}/admin`, { headers: headersFor('user') });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(await response.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'Access is denied',
    });
  });

  it('gives the handler the caller (@CurrentUser()) and the route param', async () => {
    const profile = await fetch(`${origin}/api/profile`, { headers: headersFor('admin') });
    expect(await profile.json()).toEqual({ username: 'admin', roles: ['ADMIN', 'USER'] });
    const account = await fetch(`${origin}/api/users/writer`, { headers: headersFor('admin') });
    expect(await account.json()).toEqual({ username: 'writer', viewer: 'admin' });
  });

  it('refuses a wrong password with 401, as anonymous', async () => {
    const response = await fetch(`${origin}/profile`, {
      headers: { authorization: basic('user', 'wrong') },
    });
    expect(response.status).toBe(401);
    await response.arrayBuffer();
  });

  it('answers 400 to a path not in normal form (the firewall), before the handler', async () => {
    // An encoded slash and a `..` segment: the router would hand it to /api/users/:username.
    const response = await fetch(`${origin}/api/users/a%2F..%2Fadmin`, {
      headers: headersFor('user'),
    });
    expect(response.status).toBe(400);
    await response.arrayBuffer();
  });
});
