/**
 * The login routes on throttle counters in a real Redis: two instances count the
 * same attempts, and with Redis down every route fails closed (503 with
 * `Retry-After`; never a 500, a hang or an unthrottled check).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JwtConfig, JwtTokenService, tokenEndpoints } from '../../src/jwt/index.js';
import { formLogin } from '../../src/session/index.js';
import { makeFixture } from '../oauth2/routes-support.js';
import { closeAll, instance, type Instance } from '../redis/instances.js';
import { answer, makeSessions, request, cookiePair, form } from '../session/support.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { bodyOf, json, mount, SECRET, type Harness } from '../token-routes/support.js';
import { ALICE_PASSWORD, makeSite, type Site } from './support.js';

describe('login routes on Redis throttle counters', () => {
  let redis: TestRedis;
  const apps: Instance[] = [];
  const sites: Site[] = [];
  const harnesses: Harness[] = [];

  /** One instance: its own Redis client and stores, a throttle on them, its token endpoints. */
  const start = async (): Promise<Harness> => {
    const app = await instance(redis.url, { prefix: 'throttle-paths:', timeoutMs: 200 });
    apps.push(app);
    const site = makeSite({ store: app.stores.throttle, storeTimeoutMs: 200 });
    sites.push(site);
    const tokens = new JwtTokenService(new JwtConfig(SECRET).issuer('https://issuer.test'));
    const endpoints = tokenEndpoints({
      authenticator: site.authenticator,
      tokens,
      users: site.users,
      throttle: site.throttle,
    });
    const harness = await mount('node', endpoints);
    harnesses.push(harness);
    return harness;
  };

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(harnesses.map((h) => h.close()));
    closeAll(...apps);
    await redis.stop();
  });

  it('two instances count the same guesses: the sixth, wherever it lands, is 429 before hashing', async () => {
    const [a, b] = [await start(), await start()];
    const logIn = (harness: Harness, password: string) =>
      harness.send('/auth/login', json({ username: 'alice', password }));
    for (let i = 0; i < 5; i++) {
      expect((await logIn(i % 2 === 0 ? a : b, `guess-${i}`)).status).toBe(400);
    }
    expect((await logIn(a, 'guess-5')).status).toBe(429);
    const refused = await logIn(b, ALICE_PASSWORD);
    expect(refused.status).toBe(429);
    expect(bodyOf(refused)['error']).toBe('slow_down');
    const hashed = sites.reduce((sum, site) => sum + site.encoder.matchesCalls, 0);
    expect(hashed).toBe(5);
  });

  // A hang would meet the test's timeout: every store call has a 200 ms deadline.
  it('Redis down: login, refresh, the form login and the OAuth2 callback fail closed with 503, no password checked', async () => {
    const harness = await start();
    const site = sites.at(-1) as Site;
    const { sessions } = makeSessions();
    const login = formLogin({ sessions, credentials: site.authenticator });
    const oauth2 = makeFixture({ throttle: site.throttle });
    const { token, setCookie } = await sessions.csrfToken(request());
    await redis.stop();
    try {
      const before = site.encoder.matchesCalls;
      const logIn = await harness.send(
        '/auth/login',
        json({ username: 'bob', password: 'builder' }),
      );
      expect(logIn.status).toBe(503);
      expect(bodyOf(logIn)['error']).toBe('temporarily_unavailable');
      expect(Number(logIn.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const refresh = await harness.send('/auth/refresh', json({ refresh_token: 'forged' }));
      expect(refresh.status).toBe(503);
      const posted = await answer(
        login,
        new Request('http://app.example/login', {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'sec-fetch-site': 'same-origin',
            accept: 'text/html',
            cookie: cookiePair(setCookie ?? ''),
          },
          body: form({ _csrf: token, username: 'bob', password: 'builder' }),
        }),
        '192.0.2.60',
      );
      expect(posted.status).toBe(503);
      expect(posted.headers.get('retry-after')).not.toBeNull();
      expect(site.encoder.matchesCalls).toBe(before);
      const callback = await answer(
        oauth2.login,
        new Request('https://app.example/login/oauth2/code/google?code=x&state=s', {
          headers: { accept: 'text/html' },
        }),
        '192.0.2.61',
      );
      expect(callback.status).toBe(503);
      expect(callback.headers.get('retry-after')).not.toBeNull();
      expect(
        site.received.filter((e) => e.type === 'throttle-store-failure').length,
      ).toBeGreaterThan(0);
    } finally {
      await redis.restart();
    }
  });
});
