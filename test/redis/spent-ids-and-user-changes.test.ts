import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, StoreUnavailableError } from '../../src/core/errors.js';
import { connectRedis, createRedisStores } from '../../src/redis/index.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { closeAll, instance, keysWithTtl, observer, type Instance } from './instances.js';

const HOUR = 3_600_000;
const PREFIX = 'spent-test:';

let redis: TestRedis;
let a: Instance;
let b: Instance;
let c: Instance;

beforeAll(async () => {
  redis = await startRedis();
  [a, b, c] = await Promise.all([
    instance(redis.url, { prefix: PREFIX }),
    instance(redis.url, { prefix: PREFIX }),
    instance(redis.url, { prefix: PREFIX }),
  ]);
});

afterAll(async () => {
  closeAll(a, b, c);
  await redis.stop();
});

describe('RedisSpentIdStore', () => {
  it('of 30 concurrent spends of one id over three instances, exactly one succeeds', async () => {
    const id = `tx-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 3 === 0 ? a : i % 3 === 1 ? b : c).stores.spentIds.spend(id, Date.now() + HOUR),
      ),
    );
    expect(results.filter((r) => r)).toHaveLength(1);
    expect(results.filter((r) => !r)).toHaveLength(29);
  });

  it('ids that look like key boundaries are separate ids', async () => {
    const base = `tx-${Date.now()}`;
    expect(await a.stores.spentIds.spend(base, Date.now() + HOUR)).toBe(true);
    for (const other of [`${base}:`, `${base}}`, `{${base}}`, `${base}{x}`]) {
      expect(await b.stores.spentIds.spend(other, Date.now() + HOUR)).toBe(true);
    }
  });

  it('keeps a spent id until its expiry, then forgets it', async () => {
    const id = `short-${Date.now()}`;
    expect(await a.stores.spentIds.spend(id, Date.now() + 150)).toBe(true);
    expect(await b.stores.spentIds.spend(id, Date.now() + 150)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await b.stores.spentIds.spend(id, Date.now() + 150)).toBe(true);
  });
});

describe('RedisUserChangeNotifier', () => {
  it('a change published on A has reached every instance, A included, when publish returns', async () => {
    const seen: string[][] = [[], [], []];
    const stops = [a, b, c].map((one, i) =>
      one.stores.userChanges.subscribe((name) => seen[i]?.push(name)),
    );
    const names = ['alice', 'bob smith', 'ünïcödé', 'lone \uD800 surrogate', 'x'.repeat(5_000)];
    for (const name of names) await a.stores.userChanges.publish(name);
    expect(seen).toEqual([names, names, names]);
    for (const stop of stops) stop();
    await b.stores.userChanges.publish('after');
    expect(seen[0]).toEqual(names);
  });

  it('a throwing listener does not stop the others', async () => {
    const errors: unknown[] = [];
    const client = await connectRedis(redis.url);
    const stores = createRedisStores({ client, prefix: PREFIX, onError: (e) => errors.push(e) });
    try {
      expect(await stores.ready(5_000)).toBe(true);
      const seen: string[] = [];
      const stopBad = stores.userChanges.subscribe(() => {
        throw new Error('listener bug');
      });
      const stopGood = stores.userChanges.subscribe((name) => seen.push(name));
      await a.stores.userChanges.publish('carol');
      expect(seen).toEqual(['carol']);
      expect(errors).toHaveLength(1);
      stopBad();
      stopGood();
    } finally {
      stores.close();
      client.destroy();
    }
  });
});

describe('createRedisStores and connectRedis', () => {
  it('refuses bad options by name', () => {
    const client = a.client;
    const cases: [Record<string, unknown>, string][] = [
      [{ prefix: 'a{b}:' }, 'prefix'],
      [{ prefix: '' }, 'prefix'],
      [{ timeoutMs: 0 }, 'timeoutMs'],
      [{ maxStalenessMs: -1 }, 'maxStalenessMs'],
      [{ touchIntervalMs: 1.5 }, 'touchIntervalMs'],
      [{ timeoutMS: 5 }, 'timeoutMS'],
      [{ client: {} }, 'client'],
    ];
    for (const [options, option] of cases) {
      expect(() => createRedisStores({ client, ...options })).toThrow(ConfigurationError);
      expect(() => createRedisStores({ client, ...options })).toThrow(
        expect.objectContaining({ option }),
      );
    }
  });

  it('a first connection that cannot be made fails closed within its timeout', async () => {
    const look = await observer(redis.url);
    const started = performance.now();
    // A port nothing listens on: the stopped server's neighbour is not guaranteed free, so use 1.
    const error: unknown = await connectRedis('redis://127.0.0.1:1', {
      connectTimeoutMs: 500,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(performance.now() - started).toBeLessThan(2_000);
    look.destroy();
  });

  it('with maxStalenessMs 0 nothing is cached', async () => {
    const client = await connectRedis(redis.url);
    const stores = createRedisStores({ client, prefix: PREFIX, maxStalenessMs: 0 });
    try {
      expect(await stores.ready(5_000)).toBe(true);
      await stores.sessions.isRevoked('sid', 'user', 0);
      const again = stores.sessions.isRevoked('sid', 'user', 0);
      expect(again).toBeInstanceOf(Promise); // asked Redis again
      expect(await again).toBe(false);
    } finally {
      stores.close();
      client.destroy();
    }
  });

  it('every key under the prefix has a TTL after the run', async () => {
    const look = await observer(redis.url);
    const keys = await keysWithTtl(look, PREFIX);
    look.destroy();
    expect(keys.size).toBeGreaterThan(3);
    for (const [key, ttl] of keys) expect(ttl, key).toBeGreaterThan(0);
  });
});
