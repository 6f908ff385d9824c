/**
 * Three instances of the example (`node --import tsx examples/server.ts`, child
 * processes) on one real `redis-server` (a free 127.0.0.1 port), sharing
 * SESSION_PASSWORD and JWT_SECRET as instances behind a load balancer would. Each
 * attack is made on one instance after the state changed on another: with the
 * in-memory stores each instance would have accepted it.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import {
  basicAuth,
  bearer,
  call,
  everywhere,
  logIn,
  postJson,
  sameOrigin,
  startInstance,
  statusesOn,
  type Instance,
  type TokenBody,
} from './multi-instance-support.js';

/** The refresh tokens' grace window of the instances, in seconds. */
const GRACE_SECONDS = 2;

let redis: TestRedis;
let instances: Instance[] = [];
let a: Instance;
let b: Instance;
let c: Instance;

beforeAll(async () => {
  redis = await startRedis();
  const env = {
    REDIS_URL: redis.url,
    SESSION_PASSWORD: randomBytes(32).toString('base64url'),
    JWT_SECRET: randomBytes(32).toString('base64url'),
    JWT_REFRESH_GRACE_SECONDS: String(GRACE_SECONDS),
  };
  try {
    instances = await Promise.all(['A', 'B', 'C'].map((name) => startInstance(name, env)));
  } finally {
    [a, b, c] = instances as [Instance, Instance, Instance];
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await redis.stop();
}, 20_000);

describe('three example instances on one Redis', () => {
  it('say they run on Redis', () => {
    for (const instance of instances) {
      expect(instance.output.join('')).toContain('Users and security state on Redis');
    }
  });

  it('log out on A: B and C refuse the session cookie at once', async () => {
    const cookie = await logIn(a, 'user');
    // The cookie works on every instance (one SESSION_PASSWORD), and B has checked it.
    expect(await statusesOn(instances, { cookie })).toEqual(everywhere(instances, 200));
    const me = await call(a, '/me', { headers: { cookie, accept: 'text/html' } });
    const token = /name="_csrf" value="([^"]*)"/u.exec(await me.text())?.[1] ?? '';
    const logout = await call(a, '/logout', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie,
        ...sameOrigin(a),
      },
      body: new URLSearchParams({ _csrf: token }).toString(),
    });
    expect(logout.status).toBe(303);
    // No waiting: the logout returned once the other instances dropped their cache.
    expect(await statusesOn(instances, { cookie })).toEqual(everywhere(instances, 401));
  });

  it('log out everywhere on A: every session and access token of the user is refused everywhere', async () => {
    const onA = await logIn(a, 'writer');
    const onB = await logIn(b, 'writer');
    const login = await postJson(c, '/auth/login', {
      username: 'writer',
      password: 'writer-password',
    });
    const { access_token } = (await login.json()) as TokenBody;
    const other = await logIn(c, 'user');
    for (const headers of [{ cookie: onA }, { cookie: onB }, bearer(access_token)]) {
      expect(await statusesOn(instances, headers)).toEqual(everywhere(instances, 200));
    }
    const everywhereOut = await postJson(
      a,
      '/logout/everywhere',
      {},
      {
        cookie: onA,
        ...sameOrigin(a),
      },
    );
    expect(everywhereOut.status).toBe(200);
    for (const headers of [{ cookie: onA }, { cookie: onB }, bearer(access_token)]) {
      expect(await statusesOn(instances, headers)).toEqual(everywhere(instances, 401));
    }
    // Another user's session is untouched, and the user can log in again.
    expect(await statusesOn(instances, { cookie: other })).toEqual(everywhere(instances, 200));
    const again = await logIn(b, 'writer');
    expect(await statusesOn(instances, { cookie: again })).toEqual(everywhere(instances, 200));
  });

  it('50 concurrent refreshes of one token over three instances: one new token, then a late replay revokes the family everywhere', async () => {
    const login = await postJson(a, '/auth/login', {
      username: 'user',
      password: 'user-password',
    });
    const first = (await login.json()) as TokenBody;
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const instance = instances[i % 3] as Instance;
        const response = await postJson(instance, '/auth/refresh', {
          refresh_token: first.refresh_token,
        });
        const body = (await response.json()) as Partial<TokenBody> & { error?: string };
        return { instance: instance.name, status: response.status, body };
      }),
    );
    const granted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    // Exactly one new family member: every 200 is the same pair, from one instance
    // (the grace window joins the refreshes of the instance that won the rotation);
    // the other instances' copies are refused without revoking the family.
    expect(granted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(granted.map((answer) => answer.body.refresh_token)).size).toBe(1);
    expect(new Set(granted.map((answer) => answer.instance)).size).toBe(1);
    for (const answer of refused) {
      expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
    const second = granted[0]?.body.refresh_token ?? '';
    expect(second).not.toBe(first.refresh_token);
    // The family is kept: the new token refreshes once, on another instance.
    const next = await postJson(c, '/auth/refresh', { refresh_token: second });
    expect(next.status).toBe(200);
    const third = (await next.json()) as TokenBody;

    // Past the grace window, the first token replayed is a stolen copy: the family
    // is revoked on every instance, its newest token included.
    await new Promise((resolve) => setTimeout(resolve, GRACE_SECONDS * 1000 + 200));
    const replay = await postJson(b, '/auth/refresh', { refresh_token: first.refresh_token });
    expect(replay.status).toBe(400);
    for (const instance of instances) {
      for (const token of [third.refresh_token, second]) {
        const refresh = await postJson(instance, '/auth/refresh', { refresh_token: token });
        expect({ instance: instance.name, status: refresh.status }).toEqual({
          instance: instance.name,
          status: 400,
        });
      }
    }
  }, 20_000);

  it('a password changed through A: B refuses the old password at once, though it had cached it', async () => {
    const old = basicAuth('admin', 'admin-password');
    // Warm B's and C's verified-credential caches with the old password.
    expect(await statusesOn(instances, old)).toEqual(everywhere(instances, 200));
    expect(await statusesOn(instances, old)).toEqual(everywhere(instances, 200));
    const wrong = await postJson(
      a,
      '/account/password',
      { currentPassword: 'not-the-password', newPassword: 'admin-new-password' },
      old,
    );
    expect(wrong.status).toBe(403);
    const change = await postJson(
      a,
      '/account/password',
      { currentPassword: 'admin-password', newPassword: 'admin-new-password' },
      old,
    );
    expect(change.status).toBe(200);
    expect(await statusesOn(instances, old)).toEqual(everywhere(instances, 401));
    const fresh = basicAuth('admin', 'admin-new-password');
    expect(await statusesOn(instances, fresh)).toEqual(everywhere(instances, 200));
  });

  it('every key portcullis wrote has a TTL; the example user keys are the app’s own', async () => {
    // Sessions, users and refresh families were revoked and rotated above.
    expect(await expectEveryKeyHasTtl()).toBeGreaterThan(3);
  });

  it('Redis stopped: 503 with Retry-After within seconds, never a 500; Redis back: service resumes by itself', async () => {
    const cookie = await logIn(b, 'user');
    const login = await postJson(c, '/auth/login', {
      username: 'writer',
      password: 'writer-password',
    });
    const tokens = (await login.json()) as TokenBody;
    const needsState = {
      'session cookie (revocations)': () => call(a, '/api/profile', { headers: { cookie } }),
      'bearer token (revocations)': () =>
        call(b, '/api/profile', { headers: bearer(tokens.access_token) }),
      'refresh (rotation)': () =>
        postJson(c, '/auth/refresh', { refresh_token: tokens.refresh_token }),
      'token login (users)': () =>
        postJson(a, '/auth/login', { username: 'guest', password: 'guest-password' }),
      'HTTP Basic, not cached (users)': () =>
        call(b, '/api/profile', { headers: basicAuth('user', 'not-the-password') }),
    };
    await redis.stop();
    for (const [what, request] of Object.entries(needsState)) {
      // Each is answered (the call aborts after 5 s): no hang.
      const response = await request();
      await response.arrayBuffer();
      expect({ what, status: response.status }).toEqual({ what, status: 503 });
      expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/u);
    }

    await redis.restart();
    const seen = new Set<number>();
    const back = async (): Promise<boolean> => {
      const statuses = await Promise.all([
        call(a, '/api/profile', { headers: { cookie } }),
        call(b, '/api/profile', { headers: bearer(tokens.access_token) }),
        call(c, '/api/profile', { headers: basicAuth('user', 'user-password') }),
      ]).then((responses) => responses.map((response) => response.status));
      for (const status of statuses) seen.add(status);
      return statuses.every((status) => status === 200);
    };
    const until = Date.now() + 15_000;
    while (!(await back())) {
      expect(Date.now()).toBeLessThan(until);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Nothing but "unavailable" before "back": never a 500, never a 401.
    expect([...seen].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    // State written after the restart expires too.
    const logout = await postJson(b, '/logout/everywhere', {}, { cookie, ...sameOrigin(b) });
    expect(logout.status).toBe(200);
    expect(await statusesOn(instances, { cookie })).toEqual(everywhere(instances, 401));
    expect(await expectEveryKeyHasTtl()).toBeGreaterThan(0);
  }, 40_000);
});

/** Checks every key under `portcullis:` has a TTL and every other key is a user of the example; answers how many portcullis keys there are. */
async function expectEveryKeyHasTtl(): Promise<number> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ COUNT: 100 })) keys.push(...batch);
    const ours = keys.filter((key) => key.startsWith('portcullis:'));
    for (const key of ours) {
      const ttl = await client.pTTL(key);
      expect({ key, hasTtl: ttl > 0 }).toEqual({ key, hasTtl: true });
    }
    const others = keys.filter((key) => !key.startsWith('portcullis:'));
    expect(others.filter((key) => !key.startsWith('example:users:'))).toEqual([]);
    return ours.length;
  } finally {
    await client.close();
  }
}
