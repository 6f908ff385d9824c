/**
 * Rate limits: the per-request cost of a `rateLimit` rule's `consume` against
 * rate-limiter-flexible's `consume(key)`, on the same store, side by side in one run:
 *
 * - memory: portcullis on a `MemoryThrottleStore` (synchronous; also awaited, as an
 *   async middleware would) against `RateLimiterMemory` (always a promise);
 * - Redis: portcullis on `createRedisStores(…).throttle` against `RateLimiterRedis`
 *   (`useRedisPackage: true`) with the same node-redis client on the same
 *   `redis-server` (a free 127.0.0.1 port, started and killed here), one request at
 *   a time (latency) and {@link IN_FLIGHT} in flight (node-redis pipelines them);
 * - the URL rule: `SecurityTransform.handle` with `requestMatcher().rateLimit(…)`
 *   against the same pipeline followed by rate-limiter-flexible, on memory and on
 *   Redis (bench/rate-limit-pipeline.ts), compared over the pipeline alone;
 * - floors: a do-nothing call (sync and awaited) and a node-redis `PING`; and the
 *   time each library's Lua script takes inside redis-server (`INFO commandstats`).
 *
 * Requests rotate over {@link KEYS} users (or client addresses), so no side measures
 * one hot key. The limits are too high to refuse anything, except on the "half
 * refused" rows: a fresh limiter each round whose limit lets exactly half of each
 * key's requests through — every round checks that exactly half were refused (and
 * none elsewhere), on both libraries, so each proves it counts. Rounds interleave the
 * rows (their order rotated each round); the table gives the median and range over
 * the rounds, and the ratio portcullis / rate-limiter-flexible as the median of the
 * rounds' ratios (each round's pair measured back to back). Each group stops starting
 * rounds past its time budget (after three), so the part stays near a minute.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import {
  AuthenticatedUser,
  MemoryThrottleStore,
  User,
  createSecurityRequest,
  rateLimit,
  type RateLimitSubject,
  type ThrottleStore,
} from 'portcullis';
import { connectRedis, createRedisStores } from 'portcullis/redis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { startRedis } from '../test/support/redis-server.js';
import {
  IN_FLIGHT,
  KEYS,
  NEVER,
  type Flexible,
  measure,
  type Group,
  type Mode,
  type RateLimitRow,
  type Variant,
} from './rate-limit-measure.js';
import { pipelineGroup } from './rate-limit-pipeline.js';
import type { RateLimitResult } from './rate-limit-report.js';

type RedisClient = Awaited<ReturnType<typeof connectRedis>>;

/** The requests, one per key: user `bench-user-<n>` from client address `10.0.x.y`. */
function subjects(): { users: RateLimitSubject[]; anonymous: RateLimitSubject[] } {
  const users: RateLimitSubject[] = [];
  const anonymous: RateLimitSubject[] = [];
  for (let n = 0; n < KEYS; n++) {
    const request = createSecurityRequest({
      method: 'GET',
      url: '/api/search',
      header: () => undefined,
      clientAddress: `10.0.${String(n >> 8)}.${String(n & 255)}`,
    });
    const user = AuthenticatedUser.from(new User(`bench-user-${String(n)}`, '', ['USER']));
    users.push({ request, user });
    anonymous.push({ request, user: null });
  }
  return { users, anonymous };
}

/**
 * The rows every store has: by user, nothing refused, and half refused (a fresh
 * limiter per round whose limit is half of each key's requests), each library's.
 */
function pairs(
  tag: string,
  store: ThrottleStore,
  flexible: Flexible,
  mode: Mode,
  iterations: number,
  portcullisMode: Mode = mode,
): Variant[] {
  const { users } = subjects();
  const name = (i: number): string => users[i % KEYS]!.user!.username;
  const byUser = rateLimit({ name: 'bench-user', window: '1m', max: NEVER, by: 'user', store });
  const flexibleUser = flexible('bench-user', NEVER, 60);
  const perKey = iterations / KEYS;
  if (!Number.isInteger(perKey / 2)) throw new Error('iterations must be an even multiple of KEYS');
  const fresh = (round: number): string => `bench-half-${tag}-${round < 0 ? 'w' : String(round)}`;
  const p = 'portcullis' as const;
  const f = 'rate-limiter-flexible' as const;
  return [
    {
      label: "portcullis `consume`, by 'user'",
      library: p,
      mode: portcullisMode,
      pair: 'user',
      prepare: () => (i) => byUser.consume(users[i % KEYS]!),
    },
    {
      label: '`consume(username)`',
      library: f,
      mode,
      pair: 'user',
      prepare: () => (i) => flexibleUser.consume(name(i)),
    },
    {
      label: "portcullis `consume`, by 'user', half refused",
      library: p,
      mode: portcullisMode,
      pair: 'half',
      halfRefused: true,
      prepare: (round) => {
        const limit = rateLimit({ name: fresh(round), window: '1h', max: perKey / 2, store });
        return (i) => limit.consume(users[i % KEYS]!);
      },
    },
    {
      label: '`consume(username)`, half refused',
      library: f,
      mode,
      pair: 'half',
      halfRefused: true,
      prepare: (round) => {
        const limit = flexible(fresh(round), perKey / 2, 3600);
        return (i) => limit.consume(name(i));
      },
    },
  ];
}

const memoryFlexible: Flexible = (keyPrefix, points, duration) =>
  new RateLimiterMemory({ keyPrefix, points, duration });

function memoryGroup(): Group {
  const iterations = 40_000;
  const { users, anonymous } = subjects();
  const store = new MemoryThrottleStore();
  const flexible = memoryFlexible;
  const byUser = rateLimit({ name: 'bench-awaited', window: '1m', max: NEVER, store });
  const byAddress = rateLimit({
    name: 'bench-address',
    window: '1m',
    max: NEVER,
    by: 'address',
    store,
  });
  const flexibleAddress = flexible('bench-address', NEVER, 60);
  const noop = (subject: RateLimitSubject): RateLimitSubject => subject;
  const [user, flexibleUser, half, flexibleHalf] = pairs(
    'memory',
    store,
    flexible,
    'await',
    iterations,
    'sync',
  );
  return {
    title: 'memory, one request at a time',
    iterations,
    budgetMs: 20_000,
    variants: [
      {
        label: 'floor: a do-nothing call',
        library: 'floor',
        mode: 'sync',
        prepare: () => (i) => noop(users[i % KEYS]!),
      },
      {
        label: 'floor: a do-nothing call, awaited',
        library: 'floor',
        mode: 'await',
        prepare: () => (i) => noop(users[i % KEYS]!),
      },
      user!,
      {
        label: "portcullis `consume`, by 'user', awaited",
        library: 'portcullis',
        mode: 'await',
        pair: 'user',
        prepare: () => (i) => byUser.consume(users[i % KEYS]!),
      },
      flexibleUser!,
      {
        label: "portcullis `consume`, by 'address'",
        library: 'portcullis',
        mode: 'sync',
        pair: 'address',
        prepare: () => (i) => byAddress.consume(anonymous[i % KEYS]!),
      },
      {
        label: '`consume(address)`',
        library: 'rate-limiter-flexible',
        mode: 'await',
        pair: 'address',
        prepare: () => (i) => flexibleAddress.consume(anonymous[i % KEYS]!.request!.clientAddress!),
      },
      half!,
      flexibleHalf!,
    ],
  };
}

/** Both Redis groups on one client: one request at a time, and {@link IN_FLIGHT} in flight. */
async function redisGroups(client: RedisClient, store: ThrottleStore): Promise<Group[]> {
  const flexible: Flexible = (keyPrefix, points, duration) =>
    new RateLimiterRedis({
      storeClient: client,
      useRedisPackage: true,
      keyPrefix,
      points,
      duration,
    });
  const group = (title: string, mode: Mode, iterations: number): Group => ({
    title,
    iterations,
    budgetMs: 25_000,
    variants: [
      {
        label: 'floor: node-redis `PING`',
        library: 'floor',
        mode,
        prepare: () => () => client.ping(),
      },
      ...pairs(mode, store, flexible, mode, iterations),
    ],
  });
  return [
    group('Redis, one request at a time', 'await', 2_000),
    group(`Redis, ${String(IN_FLIGHT)} requests in flight`, 'concurrent', 10_000),
    await pipelineGroup(
      'URL rule in `SecurityTransform.handle`, Redis, one at a time',
      store,
      flexible,
      {
        tag: 'redis',
        mode: 'await',
        iterations: 1_000,
        budgetMs: 15_000,
      },
    ),
  ];
}

/**
 * Pins the redis-server listening on `port` to core 1 (this process runs on core 0
 * when the runner pinned it), as the benchmark's servers are; false without taskset.
 */
function pinRedis(port: number): boolean {
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/u.test(pid)) continue;
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (cmdline.startsWith('redis-server') || cmdline.startsWith('/usr/bin/redis-server')) {
        if (!cmdline.includes(`:${String(port)}`) && !cmdline.includes(`\0${String(port)}\0`)) {
          continue;
        }
        execFileSync('taskset', ['-p', '-c', '1', pid], { stdio: 'ignore' });
        return true;
      }
    }
  } catch {
    // No taskset: the server runs wherever the kernel puts it.
  }
  return false;
}

/** `usec_per_call` of a command in `INFO commandstats`. */
function usecPerCall(stats: string, command: string): number {
  const line = new RegExp(`^cmdstat_${command}:.*usec_per_call=([\\d.]+)`, 'mu').exec(stats);
  return line === null ? Number.NaN : Number(line[1]);
}

/** Runs every group: memory first, then Redis on a redis-server started and killed here. */
export async function benchRateLimit(): Promise<RateLimitResult> {
  const started = Date.now();
  const rows: RateLimitRow[] = [];
  rows.push(...(await measure(memoryGroup())));
  const pipeline = await pipelineGroup(
    'URL rule in `SecurityTransform.handle`, memory',
    new MemoryThrottleStore(),
    memoryFlexible,
    { tag: 'memory', mode: 'await', iterations: 20_000, budgetMs: 15_000 },
  );
  rows.push(...(await measure(pipeline)));
  const redis = await startRedis();
  try {
    const redisPinned = pinRedis(redis.port);
    const client = await connectRedis(redis.url);
    const stores = createRedisStores({ client, prefix: 'bench-rate:' });
    try {
      if (!(await stores.ready())) throw new Error('the Redis stores are not ready');
      await client.sendCommand(['CONFIG', 'RESETSTAT']);
      for (const group of await redisGroups(client, stores.throttle)) {
        rows.push(...(await measure(group)));
      }
      // Every counter either library left has a TTL.
      const keys = await client.keys('*');
      const ttls = await Promise.all(keys.map((key) => client.pTTL(key)));
      if (keys.length < KEYS || ttls.some((ttl) => ttl < 0)) {
        throw new Error(`${String(keys.length)} counter keys, some without a TTL`);
      }
      const stats = await client.info('commandstats');
      // portcullis calls its scripts by EVALSHA; rate-limiter-flexible sends EVAL with the script.
      const scriptMicros = {
        portcullis: usecPerCall(stats, 'evalsha'),
        flexible: usecPerCall(stats, 'eval'),
      };
      return { rows, redisPinned, scriptMicros, seconds: (Date.now() - started) / 1000 };
    } finally {
      stores.close();
      await client.close();
    }
  } finally {
    await redis.stop();
  }
}
