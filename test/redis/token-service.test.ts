// The refresh-token service of two instances on one Redis: the store's atomic rotation
// seen through JwtTokenService, as the example servers use it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { User } from '../../src/index.js';
import { JwtConfig, JwtTokenService, type TokenPair } from '../../src/jwt/index.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { closeAll, instance, type Instance } from './instances.js';

const SECRET = 'redis-token-service-test-secret-0123456789abcdef';

let redis: TestRedis;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  redis = await startRedis();
  a = await instance(redis.url, { prefix: 'tokens:' });
  b = await instance(redis.url, { prefix: 'tokens:' });
});

afterAll(async () => {
  closeAll(a, b);
  await redis.stop();
});

describe('JwtTokenService on two instances sharing Redis', () => {
  it('50 concurrent refreshes of one token: one new family member; a replay after the grace window revokes the family everywhere', async () => {
    const clock = { now: Date.now() };
    const config = (): JwtConfig => new JwtConfig(SECRET).clock(() => clock.now);
    const serviceA = new JwtTokenService(config(), {
      store: a.stores.refreshTokens,
      graceSeconds: 10,
    });
    const serviceB = new JwtTokenService(config(), {
      store: b.stores.refreshTokens,
      graceSeconds: 10,
    });
    const alice = new User('alice', '', ['USER']);
    const loadUser = (): User => alice;
    const login = await serviceA.generateRefreshToken(alice);

    const settled = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? serviceA : serviceB).refresh(login, loadUser),
      ),
    );
    const pairs = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    // One rotation: every success holds the same new refresh token (the winner's, or
    // joined within its own instance's grace window).
    expect(new Set(pairs.map((p: TokenPair) => p.refreshToken)).size).toBe(1);
    for (const error of refused) expect(error).toMatchObject({ code: 'ERR_JWT_REFRESH_REUSED' });
    const current = pairs[0]?.refreshToken ?? '';

    // Within the grace window the family is kept: the new token still refreshes.
    clock.now += 1_000;
    const next = await serviceB.refresh(current, loadUser);

    // After the grace window, replaying the login token on A revokes the family: B refuses it.
    clock.now += 11_000;
    await expect(serviceA.refresh(login, loadUser)).rejects.toMatchObject({
      code: 'ERR_JWT_REFRESH_REUSED',
    });
    await expect(serviceB.refresh(next.refreshToken, loadUser)).rejects.toMatchObject({
      code: 'ERR_JWT_REVOKED',
    });
  });
});
