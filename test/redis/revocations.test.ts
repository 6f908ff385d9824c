import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import {
  closeAll,
  commandCounts,
  instance,
  keysWithTtl,
  observer,
  type Instance,
} from './instances.js';

const HOUR = 3_600_000;
const PREFIX = 'revocation-test:';

let redis: TestRedis;
let a: Instance;
let b: Instance;
let look: Awaited<ReturnType<typeof observer>>;

beforeAll(async () => {
  redis = await startRedis();
  // A long staleness bound: only the invalidation can explain a fresh answer.
  a = await instance(redis.url, { prefix: PREFIX, maxStalenessMs: 60_000 });
  b = await instance(redis.url, { prefix: PREFIX, maxStalenessMs: 60_000 });
  look = await observer(redis.url);
});

afterAll(async () => {
  look.destroy();
  closeAll(a, b);
  await redis.stop();
});

let unique = 0;
const id = (what: string): string => `${what}-${++unique}-${Math.random().toString(36).slice(2)}`;

/** The commands the server ran while `work` ran (INFO itself excluded). */
async function commandsDuring(work: () => unknown): Promise<number> {
  await look.sendCommand(['CONFIG', 'RESETSTAT']);
  await work();
  const counts = await commandCounts(look);
  counts.delete('info');
  counts.delete('config|resetstat');
  return [...counts.values()].reduce((sum, n) => sum + n, 0);
}

describe('RedisSessionStore: one revocation state for every instance', () => {
  it('a warm check costs no Redis command and answers synchronously', async () => {
    const sid = id('sid');
    const t0 = Date.now();
    expect(await b.stores.sessions.isRevoked(sid, 'alice', t0)).toBe(false);
    let answer: unknown;
    const commands = await commandsDuring(() => {
      for (let i = 0; i < 100; i++) answer = b.stores.sessions.isRevoked(sid, 'alice', t0);
    });
    expect(answer).toBe(false); // not a promise: answered from the cache
    expect(commands).toBe(0);
  });

  it('a logout through A is refused by B as soon as it returns, though B had it cached', async () => {
    const sid = id('sid');
    const t0 = Date.now();
    expect(await b.stores.sessions.isRevoked(sid, 'bob', t0)).toBe(false);
    expect(b.stores.sessions.isRevoked(sid, 'bob', t0)).toBe(false); // cached
    await a.stores.sessions.revokeSession(sid, t0 + HOUR);
    expect(await b.stores.sessions.isRevoked(sid, 'bob', t0)).toBe('session');
    expect(await a.stores.sessions.isRevoked(sid, 'bob', t0)).toBe('session');
    // The revoked answer is cached in turn.
    expect(await commandsDuring(() => b.stores.sessions.isRevoked(sid, 'bob', t0))).toBe(0);
  });

  it('log out everywhere through A refuses every older session of the user on B, not newer ones', async () => {
    const user = id('carol');
    const t0 = Date.now();
    const [s1, s2] = [id('sid'), id('sid')];
    expect(await b.stores.sessions.isRevoked(s1, user, t0 - 10)).toBe(false);
    expect(await b.stores.sessions.isRevoked(s2, user, t0 + 10)).toBe(false);
    await a.stores.sessions.revokeUser(user, t0, t0 + HOUR);
    expect(await b.stores.sessions.isRevoked(s1, user, t0 - 10)).toBe('user');
    expect(await b.stores.sessions.isRevoked(s2, user, t0)).toBe('user');
    expect(await b.stores.sessions.isRevoked(s2, user, t0 + 10)).toBe(false);
    // An earlier revocation never moves the time back.
    await a.stores.sessions.revokeUser(user, t0 - 1_000, t0 + HOUR);
    expect(await b.stores.sessions.isRevoked(s2, user, t0)).toBe('user');
    // The user's other kind of credential is a separate record.
    expect(await b.stores.accessTokens.isRevoked(s1, user, t0 - 10)).toBe(false);
  });

  it('touch writes at most once per interval per session, and returns the previous activity', async () => {
    const sid = id('sid');
    const t0 = Date.now();
    expect(await a.stores.sessions.touch(sid, t0, t0 + HOUR)).toBeUndefined();
    let writes = 0;
    const commands = await commandsDuring(async () => {
      for (let i = 1; i <= 20; i++) {
        expect(await a.stores.sessions.touch(sid, t0 + i, t0 + HOUR)).toBe(t0 + i - 1);
      }
    });
    writes += commands;
    expect(writes).toBe(0);
    // Another instance reads what was written (the first touch): earlier, never later.
    expect(await b.stores.sessions.touch(sid, t0 + 30, t0 + HOUR)).toBe(t0);
  });

  it('a logout forgets the session activity', async () => {
    const sid = id('sid');
    const t0 = Date.now();
    await b.stores.sessions.touch(sid, t0, t0 + HOUR);
    await a.stores.sessions.revokeSession(sid, t0 + HOUR);
    expect(await a.stores.sessions.touch(sid, t0 + 1, t0 + HOUR)).toBeUndefined();
  });
});

describe('RedisRevocationStore (access tokens)', () => {
  it('a jti revoked through B is refused by A at once; others are not', async () => {
    const [jti, other] = [id('jti'), id('jti')];
    const t0 = Date.now();
    expect(await a.stores.accessTokens.isRevoked(jti, 'dave', t0)).toBe(false);
    await b.stores.accessTokens.revoke(jti, t0 + HOUR);
    expect(await a.stores.accessTokens.isRevoked(jti, 'dave', t0)).toBe('id');
    expect(await a.stores.accessTokens.isRevoked(other, 'dave', t0)).toBe(false);
    expect(await a.stores.sessions.isRevoked(jti, 'dave', t0)).toBe(false);
  });

  it('a token without a user is checked by id only', async () => {
    const jti = id('jti');
    const t0 = Date.now();
    await b.stores.accessTokens.revokeUser('erin', t0, t0 + HOUR);
    expect(await a.stores.accessTokens.isRevoked(jti, undefined, t0)).toBe(false);
    expect(await a.stores.accessTokens.isRevoked(jti, 'erin', t0)).toBe('user');
  });

  it('forgets a revocation once its credential has expired (the TTL)', async () => {
    const jti = id('jti');
    const t0 = Date.now();
    await a.stores.accessTokens.revoke(jti, t0 + 200);
    expect(await b.stores.accessTokens.isRevoked(jti, undefined, t0)).toBe('id');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const look2 = await look.sendCommand([
      'EXISTS',
      `${PREFIX}{t:v${Buffer.from(jti).toString('base64url')}}`,
    ]);
    expect(look2).toBe(0);
  });
});

describe('keys cannot be forged from ids and usernames', () => {
  it('ids holding ":", "{", "}" never reach another record', async () => {
    const base = id('sid');
    const t0 = Date.now();
    const forged = [
      `${base}:activity`,
      `${base}}:activity`,
      `{${base}}`,
      `${base}}`,
      `${base}{`,
      `${base}:`,
    ];
    await a.stores.sessions.revokeSession(base, t0 + HOUR);
    await a.stores.sessions.revokeUser(base, t0, t0 + HOUR);
    for (const other of forged) {
      expect(await b.stores.sessions.isRevoked(other, other, t0)).toBe(false);
      expect(await b.stores.accessTokens.isRevoked(other, other, t0)).toBe(false);
    }
    // Touching "<sid>" and revoking "<sid>:activity" do not meet.
    const victim = id('sid');
    await a.stores.sessions.touch(victim, t0, t0 + HOUR);
    await a.stores.sessions.revokeSession(`${victim}:activity`, t0 + HOUR);
    expect(await b.stores.sessions.touch(victim, t0 + 1, t0 + HOUR)).toBe(t0);
    expect(await b.stores.sessions.isRevoked(victim, undefined, t0)).toBe(false);
  });
});

describe('after the run', () => {
  it('every key under the prefix has a TTL', async () => {
    const keys = await keysWithTtl(look, PREFIX);
    expect(keys.size).toBeGreaterThan(5);
    for (const [key, ttl] of keys) {
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(HOUR);
    }
  });
});
