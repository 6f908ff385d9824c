import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthRoutes } from '../../examples/auth-routes.js';
import {
  AuthenticationManager,
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  SecurityEvents,
  User,
} from '../../src/index.js';
import type { JwtTokenService } from '../../src/jwt/index.js';
import { listen, type TestServer } from '../support/server.js';

/** A token service whose signing fails, as a misconfigured or broken key would. */
const failing = {
  generateTokenPair: () => Promise.reject(new Error('HSM unavailable: key=secret')),
  refresh: () => Promise.reject(new Error('HSM unavailable: key=secret')),
} as unknown as JwtTokenService;

let server: TestServer;

beforeAll(async () => {
  const encoder = new DelegatingPasswordEncoder()
    .withEncoder('noop', new NoOpPasswordEncoder())
    .defaultEncoder('noop');
  const store = AuthenticationManager.inMemoryAuthentication({ events: new SecurityEvents() })
    .passwordEncoder(encoder)
    .withUser(new User('user', '{noop}user-pw').withRoles(['USER']));
  const routes = createAuthRoutes(store, failing);
  server = await listen(
    createServer((req, res) => {
      const route = routes[`${req.method ?? 'GET'} ${req.url ?? '/'}`];
      if (route) void route(req, res);
      else res.writeHead(404).end();
    }),
  );
});
afterAll(() => server.close());

describe('the token endpoints when token generation fails', () => {
  it('answer 500 in plain text, without the cause', async () => {
    const login = await fetch(`${server.origin}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'user', password: 'user-pw' }),
    });
    expect(login.status).toBe(500);
    expect(login.headers.get('content-type')).toMatch(/^text\/plain/u);
    expect(await login.text()).not.toContain('secret');
    const refresh = await fetch(`${server.origin}/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: 'x' }),
    });
    expect(refresh.status).toBe(500);
  });

  it('still answer 401 for bad credentials before any token is made', async () => {
    const login = await fetch(`${server.origin}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'user', password: 'wrong' }),
    });
    expect(login.status).toBe(401);
  });
});
