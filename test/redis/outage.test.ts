import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/core/errors.js';
import {
  createRedisStores,
  reconnectWithBackoff,
  type RedisStores,
} from '../../src/redis/index.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { closeAll, instance, observer, type Instance } from './instances.js';

const HOUR = 3_600_000;
const TIMEOUT_MS = 300;
/** What the deadline may overrun by on a busy machine; a hang would take far longer. */
const MARGIN_MS = 700;

let redis: TestRedis;
let a: Instance;
let b: Instance;
let bare: ReturnType<typeof createClient> | undefined;
let bareStores: RedisStores | undefined;
const bareErrors: unknown[] = [];

beforeAll(async () => {
  redis = await startRedis();
  a = await instance(redis.url, { prefix: 'outage:', timeoutMs: TIMEOUT_MS });
  b = await instance(redis.url, {
    prefix: 'outage:',
    timeoutMs: TIMEOUT_MS,
    maxStalenessMs: 60_000,
  });
  // An app's client without an 'error' listener of its own: the stores add one.
  bare = createClient({ url: redis.url, socket: { reconnectStrategy: reconnectWithBackoff } });
  await bare.connect();
  bareStores = createRedisStores({
    client: bare,
    prefix: 'outage:',
    timeoutMs: TIMEOUT_MS,
    onError: (error) => bareErrors.push(error),
  });
});

afterAll(async () => {
  bareStores?.close();
  bare?.destroy();
  closeAll(a, b);
  await redis.stop();
});

/** Runs `work`, expecting a StoreUnavailableError within the deadline and margin. */
async function failsClosed(work: () => unknown): Promise<StoreUnavailableError> {
  const started = performance.now();
  let error: unknown;
  try {
    await work();
  } catch (thrown) {
    error = thrown;
  }
  const elapsed = performance.now() - started;
  expect(error).toBeInstanceOf(StoreUnavailableError);
  expect(elapsed).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
  const unavailable = error as StoreUnavailableError;
  expect(unavailable).toMatchObject({ code: 'ERR_STORE_UNAVAILABLE', store: 'redis' });
  expect(unavailable.retryAfter).toBeGreaterThanOrEqual(1);
  expect(unavailable.retryAfter).toBeLessThanOrEqual(5);
  expect(unavailable.operation).toMatch(/^[a-z-]+$/u);
  return unavailable;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('Redis stopped mid-run', () => {
  it('every operation fails closed within the deadline, cached answers included; then recovers by itself', async () => {
    const t0 = Date.now();
    const sid = `sid-${t0}`;
    // B has a negative answer cached (and a long staleness bound).
    expect(await b.stores.sessions.isRevoked(sid, 'alice', t0)).toBe(false);
    expect(b.stores.sessions.isRevoked(sid, 'alice', t0)).toBe(false);

    await redis.stop();
    await sleep(100); // the connections see the server gone

    const rotation = { family: 'f', jti: 'a', nextJti: 'b', expiresAtMs: t0 + HOUR, nowMs: t0 };
    await failsClosed(() => a.stores.refreshTokens.rotate(rotation));
    await failsClosed(() => a.stores.refreshTokens.revokeFamily('f', t0 + HOUR, t0));
    await failsClosed(() => a.stores.refreshTokens.revokeUser('alice', t0, t0 + HOUR));
    await failsClosed(() => a.stores.refreshTokens.revocationState('f', 'alice', t0));
    // The cache went with the invalidation channel: no stale "not revoked".
    const cached = await failsClosed(() => b.stores.sessions.isRevoked(sid, 'alice', t0));
    expect(cached.operation).toBe('session-revocation-check');
    await failsClosed(() => a.stores.sessions.revokeSession(sid, t0 + HOUR));
    await failsClosed(() => a.stores.sessions.revokeUser('alice', t0, t0 + HOUR));
    await failsClosed(() => a.stores.sessions.touch(`${sid}-new`, t0, t0 + HOUR));
    await failsClosed(() => a.stores.accessTokens.isRevoked('jti', 'alice', t0));
    await failsClosed(() => a.stores.accessTokens.revoke('jti', t0 + HOUR));
    await failsClosed(() => a.stores.spentIds.spend('tx', t0 + HOUR));
    await failsClosed(() => a.stores.userChanges.publish('alice'));
    // Many at once: none hangs.
    const started = performance.now();
    const all = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => a.stores.spentIds.spend(`tx-${i}`, t0 + HOUR)),
    );
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(
      all.every((r) => r.status === 'rejected' && r.reason instanceof StoreUnavailableError),
    ).toBe(true);

    // The client's 'error' events reached the listener the stores added (no crash).
    expect(bareErrors.length).toBeGreaterThan(0);

    await redis.restart();
    // Same stores, same clients: they reconnect by themselves (capped backoff).
    const deadline = Date.now() + 10_000;
    let spent: boolean | undefined;
    while (spent === undefined && Date.now() < deadline) {
      spent = await Promise.resolve(a.stores.spentIds.spend(`after-${t0}`, t0 + HOUR)).catch(
        () => undefined,
      );
      if (spent === undefined) await sleep(100);
    }
    expect(spent).toBe(true);
    expect(await b.stores.ready(10_000)).toBe(true);
    expect(await b.stores.sessions.isRevoked(sid, 'alice', t0)).toBe(false);
    await a.stores.sessions.revokeSession(sid, t0 + HOUR);
    expect(await b.stores.sessions.isRevoked(sid, 'alice', t0)).toBe('session');
    expect(await bareStores?.ready(10_000)).toBe(true);
    expect(await bareStores?.spentIds.spend(`after-${t0}`, t0 + HOUR)).toBe(false);
  });
});

describe('Redis slow past the deadline', () => {
  it('a command already sent fails closed at the deadline, and the store works once Redis answers again', async () => {
    const look = await observer(redis.url);
    try {
      await look.sendCommand(['CLIENT', 'PAUSE', '1000', 'ALL']);
      const t0 = Date.now();
      await failsClosed(() => a.stores.spentIds.spend(`slow-${t0}`, t0 + HOUR));
      await failsClosed(() =>
        a.stores.refreshTokens.rotate({
          family: `slow-${t0}`,
          jti: 'a',
          nextJti: 'b',
          expiresAtMs: t0 + HOUR,
          nowMs: t0,
        }),
      );
      await look.sendCommand(['CLIENT', 'UNPAUSE']);
      expect(await a.stores.spentIds.spend(`later-${t0}`, t0 + HOUR)).toBe(true);
    } finally {
      await look.sendCommand(['CLIENT', 'UNPAUSE']).catch(() => undefined);
      look.destroy();
    }
  });
});
