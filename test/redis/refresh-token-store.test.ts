import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MemoryRefreshTokenStore,
  type RefreshRotation,
  type RefreshTokenStore,
} from '../../src/jwt/index.js';
import { RedisRefreshTokenStore } from '../../src/redis/index.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { closeAll, instance, keysWithTtl, observer, type Instance } from './instances.js';

const HOUR = 3_600_000;
const PREFIX = 'refresh-test:';

let redis: TestRedis;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  redis = await startRedis();
  a = await instance(redis.url, { prefix: PREFIX });
  b = await instance(redis.url, { prefix: PREFIX });
});

afterAll(async () => {
  closeAll(a, b);
  await redis.stop();
});

let unique = 0;
/** A fresh family name per test, so the Redis suite's tests do not share records. */
const family = (): string => `fam-${++unique}-${Math.random().toString(36).slice(2)}`;

function rotation(fam: string, jti: string, nextJti: string, nowMs = Date.now()): RefreshRotation {
  return { family: fam, jti, nextJti, expiresAtMs: nowMs + HOUR, nowMs };
}

// One behaviour, two stores: what holds for the memory default holds on Redis.
function behaviour(name: string, make: () => RefreshTokenStore): void {
  describe(`${name}: the RefreshTokenStore contract`, () => {
    it('rotates from the login token along the chain; a spent token is reused, the grace time reported', async () => {
      const store = make();
      const f = family();
      const t0 = Date.now();
      expect(await store.rotate(rotation(f, 'a', 'b', t0))).toEqual({ status: 'rotated' });
      expect(await store.rotate(rotation(f, 'b', 'c', t0 + 5))).toEqual({ status: 'rotated' });
      expect(await store.rotate(rotation(f, 'b', 'x', t0 + 9))).toEqual({
        status: 'reused',
        spentAtMs: t0 + 5,
      });
      expect(await store.rotate(rotation(f, 'a', 'x', t0 + 9))).toEqual({
        status: 'reused',
        spentAtMs: undefined,
      });
      expect(await store.rotate(rotation(f, 'c', 'd', t0 + 9))).toEqual({ status: 'rotated' });
    });

    it('refuses every rotation of a revoked family, rotated or never rotated', async () => {
      const store = make();
      const [f, g] = [family(), family()];
      const now = Date.now();
      await store.rotate(rotation(f, 'a', 'b', now));
      await store.revokeFamily(f, now + HOUR, now);
      expect(await store.rotate(rotation(f, 'b', 'c', now))).toEqual({ status: 'revoked' });
      expect(await store.rotate(rotation(f, 'a', 'c', now))).toEqual({ status: 'revoked' });
      await store.revokeFamily(g, now + HOUR, now);
      expect(await store.rotate(rotation(g, 'a', 'b', now))).toEqual({ status: 'revoked' });
      expect(await store.revocationState(f, 'nobody', now)).toEqual({
        familyRevoked: true,
        userRevokedAtMs: undefined,
      });
      expect((await store.revocationState(family(), 'nobody', now)).familyRevoked).toBe(false);
    });

    it('keeps the latest user revocation', async () => {
      const store = make();
      const user = `alice-${family()}`;
      const now = Date.now();
      await store.revokeUser(user, now + 10, now + HOUR);
      await store.revokeUser(user, now + 5, now + HOUR);
      expect(await store.revocationState(family(), user, now + 20)).toEqual({
        familyRevoked: false,
        userRevokedAtMs: now + 10,
      });
      expect(
        (await store.revocationState(family(), `bob-${user}`, now)).userRevokedAtMs,
      ).toBeUndefined();
    });

    it('lets exactly one of two concurrent rotations of a token win', async () => {
      const store = make();
      const f = family();
      await store.rotate(rotation(f, 'a', 'b'));
      const outcomes = await Promise.all([
        store.rotate(rotation(f, 'b', 'c1')),
        store.rotate(rotation(f, 'b', 'c2')),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['reused', 'rotated']);
    });
  });
}

behaviour('MemoryRefreshTokenStore', () => new MemoryRefreshTokenStore());
behaviour('RedisRefreshTokenStore', () => a.stores.refreshTokens);

describe('RedisRefreshTokenStore across instances', () => {
  it('is a RedisRefreshTokenStore', () => {
    expect(a.stores.refreshTokens).toBeInstanceOf(RedisRefreshTokenStore);
  });

  it('of 50 concurrent rotations of one token from two connections, exactly one rotates', async () => {
    const f = family();
    expect(await a.stores.refreshTokens.rotate(rotation(f, 'login', 'r1'))).toEqual({
      status: 'rotated',
    });
    const now = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? a : b).stores.refreshTokens.rotate(rotation(f, 'r1', `r2-${i}`, now + i)),
      ),
    );
    const rotated = outcomes.filter((o) => o.status === 'rotated');
    expect(rotated).toHaveLength(1);
    const winner = outcomes.findIndex((o) => o.status === 'rotated');
    // Every loser is told the token was spent, and when (the grace window).
    for (const outcome of outcomes.filter((o) => o.status !== 'rotated')) {
      expect(outcome).toEqual({ status: 'reused', spentAtMs: now + winner });
    }
    // The winner's token is the family's current one: it rotates, on the other instance too.
    const other = winner % 2 === 0 ? b : a;
    expect(await other.stores.refreshTokens.rotate(rotation(f, `r2-${winner}`, 'r3'))).toEqual({
      status: 'rotated',
    });
  });

  it('of 50 concurrent first refreshes of a login token, exactly one rotates', async () => {
    const f = family();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? a : b).stores.refreshTokens.rotate(rotation(f, 'login', `n-${i}`)),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'rotated')).toHaveLength(1);
  });

  it('a revocation on one instance is seen by the other', async () => {
    const f = family();
    const now = Date.now();
    await a.stores.refreshTokens.rotate(rotation(f, 'a', 'b', now));
    await b.stores.refreshTokens.revokeFamily(f, now + HOUR, now);
    expect(await a.stores.refreshTokens.rotate(rotation(f, 'b', 'c', now))).toEqual({
      status: 'revoked',
    });
    await b.stores.refreshTokens.revokeUser('carol', now, now + HOUR);
    expect(
      (await a.stores.refreshTokens.revocationState(family(), 'carol', now)).userRevokedAtMs,
    ).toBe(now);
  });

  it('forgets a family once its tokens have expired (the TTL), and not before', async () => {
    const f = family();
    const now = Date.now();
    await a.stores.refreshTokens.rotate({
      family: f,
      jti: 'a',
      nextJti: 'b',
      expiresAtMs: now + 300,
      nowMs: now,
    });
    // A shorter expiry never shortens the record.
    await a.stores.refreshTokens.rotate({
      family: f,
      jti: 'b',
      nextJti: 'c',
      expiresAtMs: now + 1,
      nowMs: now,
    });
    expect(await a.stores.refreshTokens.rotate(rotation(f, 'a', 'x', now))).toMatchObject({
      status: 'reused',
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    // Gone: a family without a record is at its login token again (its tokens have expired).
    expect(await a.stores.refreshTokens.rotate(rotation(f, 'anything', 'y'))).toEqual({
      status: 'rotated',
    });
  });

  it('keeps families apart whatever their ids hold (no key-boundary forgery)', async () => {
    const now = Date.now();
    const base = family();
    const forged = [`${base}:x`, `${base}}:x`, `{${base}}`, `${base}}`, `${base}{`, `${base} `];
    await a.stores.refreshTokens.revokeFamily(base, now + HOUR, now);
    for (const id of forged) {
      expect((await a.stores.refreshTokens.revocationState(id, 'u', now)).familyRevoked).toBe(
        false,
      );
      expect(await a.stores.refreshTokens.rotate(rotation(id, 'a', 'b', now))).toEqual({
        status: 'rotated',
      });
    }
    // A very long id is accepted (hashed into a bounded key) and kept apart from its prefix.
    const long = `${base}${'z'.repeat(10_000)}`;
    expect(await a.stores.refreshTokens.rotate(rotation(long, 'a', 'b', now))).toEqual({
      status: 'rotated',
    });
    expect(await a.stores.refreshTokens.rotate(rotation(long, 'a', 'b', now))).toMatchObject({
      status: 'reused',
    });
    expect(await a.stores.refreshTokens.rotate(rotation(long.slice(0, -1), 'a', 'b', now))).toEqual(
      {
        status: 'rotated',
      },
    );
    // Lone surrogates do not merge with the replacement character.
    expect(await a.stores.refreshTokens.rotate(rotation(`${base}\uD800`, 'a', 'b', now))).toEqual({
      status: 'rotated',
    });
    expect(await a.stores.refreshTokens.rotate(rotation(`${base}\uFFFD`, 'a', 'b', now))).toEqual({
      status: 'rotated',
    });
  });

  it('after the run, every key under the prefix has a TTL no longer than what it guards', async () => {
    const look = await observer(redis.url);
    try {
      const keys = await keysWithTtl(look, PREFIX);
      expect(keys.size).toBeGreaterThan(10);
      for (const [key, ttl] of keys) {
        expect(ttl, key).toBeGreaterThan(0);
        expect(ttl, key).toBeLessThanOrEqual(HOUR + 60_000);
        expect(key.length, key).toBeLessThan(120);
      }
    } finally {
      look.destroy();
    }
  });
});
