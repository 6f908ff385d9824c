/**
 * Two instances of the example (child processes) on one real `redis-server`: the
 * login throttle's counters are shared, so a guesser spreading its attempts over the
 * instances is throttled after 5 failures in all, not 5 per instance. With the
 * in-memory counters each instance would have let 5 more guesses through.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import {
  basicAuth,
  call,
  postJson,
  profileStatus,
  sameOrigin,
  startInstance,
  type Instance,
} from './multi-instance-support.js';

let redis: TestRedis;
let instances: Instance[] = [];
let a: Instance;
let b: Instance;

beforeAll(async () => {
  redis = await startRedis();
  const env = {
    REDIS_URL: redis.url,
    SESSION_PASSWORD: randomBytes(32).toString('base64url'),
    JWT_SECRET: randomBytes(32).toString('base64url'),
  };
  try {
    instances = await Promise.all(['A', 'B'].map((name) => startInstance(name, env)));
  } finally {
    [a, b] = instances as [Instance, Instance];
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await redis.stop();
}, 20_000);

describe('the login throttle of two example instances on one Redis', () => {
  it('counts the guesses made on either instance together', async () => {
    // Five wrong passwords for `writer`, alternating between the instances: each is checked (401).
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(await profileStatus(i % 2 === 0 ? a : b, basicAuth('writer', `guess-${i}`)));
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    // The sixth, on either instance, is refused before any hashing, with Retry-After.
    for (const instance of [a, b]) {
      const refused = await call(instance, '/api/profile', {
        headers: basicAuth('writer', 'guess-6'),
      });
      await refused.arrayBuffer();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    // The right password meets the same throttle (a guess must not be told right from
    // wrong while throttled), through Basic and through the token login alike.
    expect(await profileStatus(b, basicAuth('writer', 'writer-password'))).toBe(429);
    const token = await postJson(a, '/auth/login', {
      username: 'writer',
      password: 'writer-password',
    });
    expect(token.status).toBe(429);
    expect(token.headers.get('retry-after')).not.toBeNull();
    // Another user is not held up by the guesser.
    expect(await profileStatus(a, basicAuth('user', 'user-password'))).toBe(200);
  });

  it('sends a browser guessing through the login form to the login page with the throttled notice', async () => {
    const page = await call(b, '/login', { headers: { accept: 'text/html' } });
    const token = /name="_csrf" value="([^"]*)"/u.exec(await page.text())?.[1] ?? '';
    const cookie = (page.headers.getSetCookie()[0] ?? '').split(';', 1)[0] ?? '';
    const post = (instance: Instance, password: string) =>
      call(instance, '/login', {
        method: 'POST',
        headers: {
          accept: 'text/html',
          'content-type': 'application/x-www-form-urlencoded',
          cookie,
          ...sameOrigin(b),
        },
        body: new URLSearchParams({ username: 'guest', password, _csrf: token }).toString(),
      });
    for (let i = 0; i < 5; i++) {
      const refused = await post(i % 2 === 0 ? a : b, `guess-${i}`);
      expect(refused.headers.get('location')).toBe('/login?error');
    }
    const throttled = await post(a, 'guest-password');
    expect(throttled.status).toBe(303);
    expect(throttled.headers.get('location')).toBe('/login?error=throttled');
    const notice = await call(a, '/login?error=throttled', { headers: { accept: 'text/html' } });
    expect(await notice.text()).toContain('Too many failed logins');
  });

  it('counts the /api rate limit of a user on both instances together', async () => {
    const headers = basicAuth('admin', 'admin-password');
    let passed = 0;
    let refused: Response | undefined;
    // 600 a minute per user, on either instance: the 601st is refused.
    for (let i = 0; i < 601 && refused === undefined; i++) {
      const response = await call(i % 2 === 0 ? a : b, '/api/data', { headers });
      await response.arrayBuffer();
      if (response.status === 200) passed++;
      else refused = response;
    }
    expect(passed).toBe(600);
    expect(refused?.status).toBe(429);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another user is counted apart.
    expect(await profileStatus(b, basicAuth('user', 'user-password'))).toBe(200);
  });

  it('keeps every counter in Redis with an expiry', async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const keys: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: 'portcullis:{th:*', COUNT: 100 })) {
        keys.push(...batch);
      }
      // The username counters of writer and guest, the address counter of 127.0.0.1 and
      // the /api counter of admin, at least.
      expect(keys.length).toBeGreaterThanOrEqual(4);
      for (const key of keys) {
        expect(await client.pTTL(key)).toBeGreaterThan(0);
        // No raw username in a key.
        for (const name of ['writer', 'guest', 'admin']) expect(key).not.toContain(name);
      }
    } finally {
      client.destroy();
    }
  });

  it('fails closed while Redis is down: 503 with Retry-After, no 500, no hang', async () => {
    await redis.stop();
    try {
      const started = performance.now();
      const response = await call(a, '/api/profile', {
        headers: basicAuth('admin', 'admin-password'),
      });
      await response.arrayBuffer();
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
      // Within the store deadline (2 s) and the request's own (5 s), never a hang.
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await redis.restart();
    }
  });
});
