import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/core/errors.js';
import { MemoryThrottleStore, type ThrottleRule } from '../../src/stores/index.js';
import { testClock } from '../support/clock.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { throttleStoreContract } from '../stores/throttle-store-contract.js';
import {
  closeAll,
  instance,
  keysWithTtl,
  observer,
  type Client,
  type Instance,
} from './instances.js';

const PREFIX = 'throttle-test:';
const RULE: ThrottleRule = { max: 3, windowMs: 60_000, delayMs: 1_000, maxDelayMs: 8_000 };
const TIMEOUT_MS = 500;
/** What the deadline may overrun by on a busy machine; a hang would take far longer. */
const MARGIN_MS = 700;

let redis: TestRedis;
// Two instances of an app: each its own client (connections) and stores.
let a: Instance;
let b: Instance;
let look: Client;

beforeAll(async () => {
  redis = await startRedis();
  [a, b] = await Promise.all([
    instance(redis.url, { prefix: PREFIX, timeoutMs: TIMEOUT_MS }),
    instance(redis.url, { prefix: PREFIX, timeoutMs: TIMEOUT_MS }),
  ]);
  look = await observer(redis.url);
});

afterAll(async () => {
  look.destroy();
  closeAll(a, b);
  await redis.stop();
});

const clock = testClock();
throttleStoreContract(
  'RedisThrottleStore',
  () => ({ store: a.stores.throttle, other: b.stores.throttle }),
  clock,
);

describe('RedisThrottleStore on Redis', () => {
  it('after the contract run, every key under the prefix has a TTL', async () => {
    const keys = await keysWithTtl(look, PREFIX);
    // The contract wrote dozens of keys (blocked ones and 10 KB ones included).
    expect(keys.size).toBeGreaterThanOrEqual(30);
    const withoutTtl = [...keys].filter(([, ttl]) => ttl <= 0);
    expect(withoutTtl).toEqual([]);
    // One hash-tagged key per counter; no raw limiter key in a key name.
    for (const key of keys.keys()) {
      expect(key).toMatch(/^throttle-test:\{th:[vuh][\w-]*\}$/u);
      expect(key).not.toContain('contract');
    }
  });

  it("a key's TTL follows its record: a window, or a window past its block", async () => {
    const now = Date.now();
    const key = `ttl-${now}`;
    const name = `${PREFIX}{th:v${Buffer.from(key).toString('base64url')}}`;
    await a.stores.throttle.acquire(key, RULE, now);
    const fresh = Number(await look.sendCommand(['PTTL', name]));
    expect(fresh).toBeGreaterThan(RULE.windowMs - 10_000);
    expect(fresh).toBeLessThanOrEqual(RULE.windowMs);
    await b.stores.throttle.acquire(key, { ...RULE, delayMs: 600_000, maxDelayMs: 600_000 }, now);
    await a.stores.throttle.acquire(key, { ...RULE, delayMs: 600_000, maxDelayMs: 600_000 }, now);
    const blocked = Number(await look.sendCommand(['PTTL', name]));
    expect(blocked).toBeGreaterThan(600_000 + RULE.windowMs - 10_000);
    expect(blocked).toBeLessThanOrEqual(600_000 + RULE.windowMs);
    await a.stores.throttle.release(key, 'reset', RULE, now);
    expect(Number(await look.sendCommand(['EXISTS', name]))).toBe(0);
  });

  it('a key found without a TTL, or with a damaged record, is healed by the next operation', async () => {
    const now = Date.now();
    const key = `heal-${now}`;
    const name = `${PREFIX}{th:v${Buffer.from(key).toString('base64url')}}`;
    await a.stores.throttle.acquire(key, RULE, now);
    await look.sendCommand(['PERSIST', name]);
    expect(Number(await look.sendCommand(['PTTL', name]))).toBe(-1);
    expect(await b.stores.throttle.peek(key, now)).toEqual({ count: 1, blockedUntilMs: 0 });
    expect(Number(await look.sendCommand(['PTTL', name]))).toBeGreaterThan(0);

    // A record that does not parse, without a TTL: counted as absent, rewritten with one.
    await look.sendCommand(['DEL', name]);
    await look.sendCommand(['HSET', name, 'n', 'lots', 'u', '1e999', 'e', 'never', 'x', 'y']);
    expect(await a.stores.throttle.acquire(key, RULE, now)).toEqual({ allowed: true, count: 1 });
    expect(await look.sendCommand(['HGETALL', name])).not.toContain('x');
    expect(Number(await look.sendCommand(['PTTL', name]))).toBeGreaterThan(0);
    await look.sendCommand(['HSET', name, 'e', 'inf']);
    await look.sendCommand(['PERSIST', name]);
    expect(await a.stores.throttle.hit(key, RULE.windowMs, now)).toEqual({
      count: 1,
      resetAtMs: now + RULE.windowMs,
    });
    expect(Number(await look.sendCommand(['PTTL', name]))).toBeGreaterThan(0);
  });

  it('answers what the memory store answers, to the last bit, for times with fractions', async () => {
    const memory = new MemoryThrottleStore();
    // Windows long enough that the keys' TTLs (real time) do not end within the test.
    const rule: ThrottleRule = { max: 2, windowMs: 20_000.3, delayMs: 100.1, maxDelayMs: 9_000.7 };
    const key = `fractions-${Date.now()}`;
    let now = 1_893_499_200_000.1;
    for (let i = 0; i < 30; i++) {
      const expected = memory.acquire(key, rule, now);
      expect(await a.stores.throttle.acquire(key, rule, now)).toEqual(expected);
      expect(await b.stores.throttle.peek(key, now)).toEqual(memory.peek(key, now));
      expect(await a.stores.throttle.hit(`${key}-rate`, 30_000.7, now)).toEqual(
        memory.hit(`${key}-rate`, 30_000.7, now),
      );
      now = expected.allowed ? now + 1_234.05 : expected.retryAtMs;
    }
  });

  it('refuses numbers a script could not count with exactly, sending nothing', async () => {
    const throttle = a.stores.throttle;
    const now = Date.now();
    const bad: (() => Promise<unknown>)[] = [
      () => throttle.acquire('k', RULE, Number.NaN),
      () => throttle.acquire('k', { ...RULE, windowMs: Number.POSITIVE_INFINITY }, now),
      () => throttle.acquire('k', { ...RULE, maxDelayMs: 2 ** 60 }, now),
      () => throttle.hit('k', Number.NaN, now),
      () => throttle.peek('k', Number.NEGATIVE_INFINITY),
      () => throttle.release('k', 'refund', { ...RULE, max: Number.NaN }, now),
    ];
    for (const call of bad) await expect(call()).rejects.toBeInstanceOf(RangeError);
    expect(await throttle.peek('k', now)).toBeNull();
  });
});

/** Runs `work`, expecting a StoreUnavailableError within the deadline and margin. */
async function failsClosed(work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  const error = await work().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
  expect(error).toBeInstanceOf(StoreUnavailableError);
  expect(error).toMatchObject({ code: 'ERR_STORE_UNAVAILABLE', store: 'redis' });
  expect((error as StoreUnavailableError).operation).toMatch(/^throttle-[a-z]+$/u);
}

describe('RedisThrottleStore with Redis stopped', () => {
  it('every operation fails closed within its deadline, then works again after a restart', async () => {
    const now = Date.now();
    const key = `outage-${now}`;
    await a.stores.throttle.acquire(key, RULE, now);
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));

    const throttle = a.stores.throttle;
    await failsClosed(() => throttle.acquire(key, RULE, now));
    await failsClosed(() => throttle.peek(key, now));
    await failsClosed(() => throttle.release(key, 'refund', RULE, now));
    await failsClosed(() => throttle.release(key, 'reset', RULE, now));
    await failsClosed(() => throttle.hit(key, RULE.windowMs, now));
    // A burst at once: none hangs, none is let through.
    const started = performance.now();
    const burst = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? a : b).stores.throttle.acquire(key, RULE, now),
      ),
    );
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(
      burst.every((r) => r.status === 'rejected' && r.reason instanceof StoreUnavailableError),
    ).toBe(true);

    await redis.restart();
    // The same stores reconnect by themselves; the restarted server is empty.
    const deadline = Date.now() + 10_000;
    let admitted: Awaited<ReturnType<typeof throttle.acquire>> | undefined;
    while (admitted === undefined && Date.now() < deadline) {
      admitted = await throttle.acquire(key, RULE, now).catch(() => undefined);
      if (admitted === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(admitted).toEqual({ allowed: true, count: 1 });
    expect(await b.stores.throttle.hit(`${key}-rate`, RULE.windowMs, now)).toEqual({
      count: 1,
      resetAtMs: now + RULE.windowMs,
    });
  });
});
