import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { closeAll, instance, type Instance } from '../redis/instances.js';
import {
  bodyOf,
  endpointsOf,
  json,
  makeFixture,
  mount,
  tokensOf,
  type Harness,
} from './support.js';

describe('the refresh route on a Redis refresh-token store', () => {
  let redis: TestRedis;
  let app: Instance;
  let harness: Harness;
  beforeAll(async () => {
    redis = await startRedis();
    app = await instance(redis.url, { prefix: 'token-routes:', timeoutMs: 200 });
    harness = await mount(
      'node',
      endpointsOf(makeFixture({ store: app.stores.refreshTokens, graceSeconds: 0 })),
    );
  });
  afterAll(async () => {
    await harness.close();
    closeAll(app);
    await redis.stop();
  });

  it('rotates through Redis, catches reuse, and answers 503 + Retry-After when Redis is down', async () => {
    const login = tokensOf(
      await harness.send('/auth/login', json({ username: 'alice', password: 'alice-pw' })),
    );
    const next = await harness.send('/auth/refresh', json({ refresh_token: login.refresh_token }));
    expect(next.status).toBe(200);
    const reused = await harness.send(
      '/auth/refresh',
      json({ refresh_token: login.refresh_token }),
    );
    expect(bodyOf(reused)['error']).toBe('invalid_grant');
    const fresh = tokensOf(
      await harness.send('/auth/login', json({ username: 'bob', password: 'bob-pw' })),
    );
    await redis.stop();
    const down = await harness.send('/auth/refresh', json({ refresh_token: fresh.refresh_token }));
    expect(down.status).toBe(503);
    expect(Number(down.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(bodyOf(down)['error']).toBe('temporarily_unavailable');
  });
});
