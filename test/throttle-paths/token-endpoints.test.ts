/**
 * The token endpoints under login throttles (node, Fetch and Fastify): a throttled
 * login or refresh answers 429 `slow_down` with `Retry-After`, before any password
 * is hashed or refresh token looked up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { securityRoutes as fetchRoutes } from '../../src/fetch/index.js';
import {
  JwtConfig,
  JwtTokenService,
  tokenEndpoints,
  type TokenEndpoints,
  type TokenEndpointsOptions,
} from '../../src/jwt/index.js';
import { LoginThrottle } from '../../src/throttle/index.js';
import {
  ADAPTERS,
  bodyOf,
  json,
  mount,
  SECRET,
  tokensOf,
  type AdapterKind,
  type Harness,
  type Reply,
} from '../token-routes/support.js';
import { ALICE_PASSWORD, makeSite, MINUTE, throttledScopes, type Site } from './support.js';

/** The client address the Fetch handler is given (node and Fastify: the socket's). */
const FETCH_CLIENT = '192.0.2.30';

/** Mounts the endpoints; the Fetch handler is given {@link FETCH_CLIENT} as the client address. */
async function mountWithAddress(kind: AdapterKind, endpoints: TokenEndpoints): Promise<Harness> {
  if (kind !== 'fetch') return mount(kind, endpoints);
  const routes = fetchRoutes(endpoints);
  return {
    origin: undefined,
    send: async (path, options = {}) => {
      const response = await routes(
        new Request(`http://127.0.0.1${path}`, {
          method: options.method ?? 'POST',
          headers: options.headers ?? {},
          ...(options.body === undefined ? {} : { body: options.body as BodyInit }),
        }),
        FETCH_CLIENT,
      );
      if (response === undefined) throw new Error(`no route for ${path}`);
      return {
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: await response.text(),
      };
    },
    close: () => Promise.resolve(),
  };
}

const SLOW_DOWN = { error: 'slow_down', error_description: 'Too many attempts; try again later' };

describe.each(ADAPTERS)('token endpoints under a login throttle (%s)', (kind) => {
  let site: Site;
  let harness: Harness;
  const opened: Harness[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((h) => h.close()));
  });

  /** A fresh site and its endpoints, with the options made from the site. */
  const open = async (
    options: (site: Site) => Partial<TokenEndpointsOptions> = () => ({}),
  ): Promise<TokenEndpoints> => {
    site = makeSite();
    const tokens = new JwtTokenService(
      new JwtConfig(SECRET).issuer('https://issuer.test').clock(site.clock.now),
    );
    const endpoints = tokenEndpoints({
      authenticator: site.authenticator,
      tokens,
      users: site.users,
      events: site.events,
      ...options(site),
    });
    harness = await mountWithAddress(kind, endpoints);
    opened.push(harness);
    return endpoints;
  };
  const logIn = (username: string, password: string): Promise<Reply> =>
    harness.send('/auth/login', json({ username, password }));
  const refresh = (token: string): Promise<Reply> =>
    harness.send('/auth/refresh', json({ refresh_token: token }));

  const expectSlowDown = (reply: Reply, retryAfter: string) => {
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe(retryAfter);
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(bodyOf(reply)).toEqual(SLOW_DOWN);
  };

  it('login: N+1 wrong passwords, the last 429 slow_down before hashing; the right one refused, then accepted after the delay', async () => {
    await open();
    for (let i = 0; i < 5; i++) {
      const reply = await logIn('alice', `guess-${i}`);
      expect(reply.status).toBe(400);
      expect(bodyOf(reply)['error']).toBe('invalid_grant');
    }
    expectSlowDown(await logIn('alice', 'guess-5'), '60');
    expectSlowDown(await logIn('alice', ALICE_PASSWORD), '60');
    expect(site.encoder.matchesCalls).toBe(5);
    expect(throttledScopes(site.received)).toEqual(['username', 'username']);
    site.clock.advance(MINUTE);
    const reply = await logIn('alice', ALICE_PASSWORD);
    expect(reply.status).toBe(200);
    expect(tokensOf(reply).token_type).toBe('Bearer');
  });

  it('refresh: a client guessing refresh tokens is slowed by address; a real token waits out the delay too', async () => {
    await open(({ clock }) => ({
      throttle: new LoginThrottle({ clock: clock.now, address: { max: 3 } }),
    }));
    const pair = tokensOf(await logIn('alice', ALICE_PASSWORD));
    for (let i = 0; i < 3; i++) {
      const reply = await refresh(`forged-${i}`);
      expect(reply.status).toBe(400);
      expect(bodyOf(reply)['error']).toBe('invalid_grant');
    }
    expectSlowDown(await refresh('forged-3'), '60');
    // No oracle: a real refresh token meets the same answer, and is not spent by it.
    expectSlowDown(await refresh(pair.refresh_token), '60');
    site.clock.advance(MINUTE);
    expect((await refresh(pair.refresh_token)).status).toBe(200);
  });

  it('refresh: throttled by default, after 100 bad tokens from one address', async () => {
    await open();
    for (let i = 0; i < 100; i++) expect((await refresh(`forged-${i}`)).status).toBe(400);
    const reply = await refresh('forged-100');
    expect(reply.status).toBe(429);
    expect(bodyOf(reply)).toEqual(SLOW_DOWN);
  });

  it('refresh: good refreshes are taken back, so a client that only refreshes is never slowed', async () => {
    await open(({ clock }) => ({
      throttle: new LoginThrottle({ clock: clock.now, address: { max: 3 } }),
    }));
    let token = tokensOf(await logIn('alice', ALICE_PASSWORD)).refresh_token;
    for (let i = 0; i < 8; i++) {
      const reply = await refresh(token);
      expect(reply.status).toBe(200);
      token = tokensOf(reply).refresh_token;
    }
  });

  it("passing the authenticator's throttle shares its address counter between logins and refreshes", async () => {
    await open(({ throttle }) => ({ throttle }));
    for (let i = 0; i < 60; i++) expect((await logIn(`user-${i}`, 'x')).status).toBe(400);
    for (let i = 0; i < 40; i++) expect((await refresh(`forged-${i}`)).status).toBe(400);
    expectSlowDown(await refresh('forged-40'), '60');
  });

  it('errorResponse formats the refusal: it is told 429 and slow_down; Retry-After is kept', async () => {
    await open(() => ({
      errorResponse: ({ status, error }) => ({
        status: status === 429 ? 429 : 401,
        headers: { 'content-type': 'text/plain' },
        body: `${status} ${error}`,
      }),
    }));
    for (let i = 0; i < 5; i++) await logIn('alice', `guess-${i}`);
    const reply = await logIn('alice', 'guess-5');
    expect(reply.status).toBe(429);
    expect(reply.body).toBe('429 slow_down');
    expect(reply.headers['retry-after']).toBe('60');
  });
});
