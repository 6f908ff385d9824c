/**
 * The stores on memory and on Redis, side by side in one run:
 *
 * - refreshes per second: `JwtTokenService.refresh` chains (each refresh presents the
 *   token the previous one issued) in this process, 16 chains at once, on a
 *   `MemoryRefreshTokenStore` and on a `RedisRefreshTokenStore` (a real
 *   `redis-server` on a free 127.0.0.1 port, started and killed here), in
 *   alternating rounds;
 * - the example server's CPU per request with a session cookie and with a bearer
 *   token, on memory and on Redis (`REDIS_URL`), over the bare server, in alternating
 *   rounds: what a warm local revocation cache leaves of the Redis round trips.
 */
import { randomBytes } from 'node:crypto';
import {
  AuthenticationManager,
  MemoryRevocationStore,
  SecurityTransform,
  User,
  createSecurityRequest,
  type SecurityRequest,
} from 'portcullis';
import { MemorySessionStore, SessionAuthenticator, type SessionStore } from 'portcullis/session';
import {
  JwtConfig,
  JwtTokenService,
  MemoryRefreshTokenStore,
  type TokenPair,
} from 'portcullis/jwt';
import { connectRedis, createRedisStores } from 'portcullis/redis';
import { startRedis, type TestRedis } from '../test/support/redis-server.js';
import { expectStatus } from './http.js';
import { fmt, load, startServer, type LoadResult, type ServerProcess } from './lib.js';

const CHAINS = 16;

export interface RefreshRow {
  readonly store: string;
  /** Refreshes per second, one per round. */
  readonly perSecond: readonly number[];
}

export interface StoresRequestRow {
  readonly route: string;
  readonly store: string;
  /** Server CPU µs per request over the bare server, one per round. */
  readonly overheads: readonly number[];
}

/** The pipeline in process: ns per request, one per round. */
export interface InProcessRow {
  readonly route: string;
  readonly store: string;
  readonly nanos: readonly number[];
}

export interface StoresResult {
  readonly inProcess: readonly InProcessRow[];
  readonly refresh: readonly RefreshRow[];
  readonly requests: readonly StoresRequestRow[];
}

/** Refreshes done by {@link CHAINS} chains in `seconds`. */
async function refreshFor(service: JwtTokenService, seconds: number): Promise<number> {
  const user = new User('bench-user', '', ['USER']);
  const loadUser = (): User => user;
  const until = Date.now() + seconds * 1000;
  let count = 0;
  const chain = async (): Promise<void> => {
    let pair: TokenPair = await service.generateTokenPair(user);
    while (Date.now() < until) {
      pair = await service.refresh(pair.refreshToken, loadUser);
      count++;
    }
  };
  await Promise.all(Array.from({ length: CHAINS }, chain));
  return count / seconds;
}

async function benchRefresh(
  redisUrl: string,
  options: { seconds: number; rounds: number; warmup: number },
): Promise<RefreshRow[]> {
  const client = await connectRedis(redisUrl);
  const stores = createRedisStores({ client, prefix: 'bench:' });
  try {
    await stores.ready();
    const config = new JwtConfig(randomBytes(32).toString('base64url'));
    const services = [
      {
        store: 'memory',
        service: new JwtTokenService(config, {
          store: new MemoryRefreshTokenStore({ maxEntries: 10_000_000 }),
        }),
      },
      { store: 'Redis', service: new JwtTokenService(config, { store: stores.refreshTokens }) },
    ];
    for (const { service } of services) await refreshFor(service, options.warmup);
    const rows = services.map(({ store }) => ({ store, perSecond: [] as number[] }));
    for (let round = 0; round < options.rounds; round++) {
      for (const [index, { service }] of services.entries()) {
        rows[index]!.perSecond.push(await refreshFor(service, options.seconds));
      }
    }
    return rows;
  } finally {
    stores.close();
    await client.close();
  }
}

/** Sequential awaited calls of `fn`: ns per call. */
async function timeAsync(fn: () => unknown, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await fn();
  return Number(process.hrtime.bigint() - start) / iterations;
}

/**
 * `SecurityTransform.handle` in this process with a bearer token and with a session
 * cookie, the stores on memory and on Redis (the local revocation caches warm), in
 * alternating rounds: portcullis' own cost of each store, without HTTP's noise.
 */
async function benchInProcess(redisUrl: string, rounds: number): Promise<InProcessRow[]> {
  const client = await connectRedis(redisUrl);
  const stores = createRedisStores({ client, prefix: 'bench-pipeline:' });
  try {
    await stores.ready();
    const user = new User('bench-user', '', ['USER']);
    const secret = randomBytes(32).toString('base64url');
    const password = randomBytes(32).toString('base64url');
    const setups = await Promise.all(
      [
        {
          store: 'memory',
          revocations: new MemoryRevocationStore(),
          sessions: new MemorySessionStore() as SessionStore,
        },
        {
          store: 'Redis',
          revocations: stores.accessTokens,
          sessions: stores.sessions as SessionStore,
        },
      ].map(async ({ store, revocations, sessions: sessionStore }) => {
        const tokens = new JwtTokenService(new JwtConfig(secret), { revocations });
        const sessions = new SessionAuthenticator(
          { passwords: password, dangerouslyAllowInsecureCookie: true },
          { store: sessionStore },
        );
        const transform = new SecurityTransform({
          authenticator: AuthenticationManager.anyOf(tokens.authenticator, sessions),
        });
        const token = (await tokens.generateTokenPair(user)).accessToken;
        const cookie = (await sessions.logIn(user)).split(';', 1)[0] ?? '';
        const request = (name: string, value: string): SecurityRequest =>
          createSecurityRequest({
            method: 'GET',
            url: '/api/profile',
            header: (header) => (header === name ? value : undefined),
            clientAddress: '127.0.0.1',
          });
        return {
          store,
          // A new request each time: an authenticator may keep what it read on the request.
          bearer: () => request('authorization', `Bearer ${token}`),
          session: () => request('cookie', cookie),
          transform,
        };
      }),
    );
    const routes = [
      {
        route: 'bearer JWT (cache on)',
        pick: (s: (typeof setups)[number]) => s.bearer,
        iterations: 20_000,
      },
      {
        route: 'session cookie',
        pick: (s: (typeof setups)[number]) => s.session,
        iterations: 1_000,
      },
    ];
    const rows: InProcessRow[] = [];
    for (const { route, pick, iterations } of routes) {
      for (const setup of setups) {
        const outcome = await setup.transform.handle(pick(setup)());
        if (!outcome.proceed || outcome.user?.username !== 'bench-user') {
          throw new Error(`${setup.store} ${route}: the request was not authenticated`);
        }
        await timeAsync(() => setup.transform.handle(pick(setup)()), iterations); // warm-up
      }
      const perStore = setups.map(() => [] as number[]);
      for (let round = 0; round < rounds; round++) {
        for (const [index, setup] of setups.entries()) {
          perStore[index]!.push(
            await timeAsync(() => setup.transform.handle(pick(setup)()), iterations),
          );
        }
      }
      for (const [index, setup] of setups.entries()) {
        rows.push({ route, store: setup.store, nanos: perStore[index]! });
      }
    }
    return rows;
  } finally {
    stores.close();
    await client.close();
  }
}

interface Target {
  readonly store: string;
  readonly server: ServerProcess;
}

async function benchRequests(
  redis: TestRedis,
  options: { seconds: number; rounds: number; warmup: number },
): Promise<StoresRequestRow[]> {
  const env = {
    JWT_SECRET: randomBytes(32).toString('base64url'),
    SESSION_PASSWORD: randomBytes(32).toString('base64url'),
  };
  const servers: Target[] = [];
  try {
    const bare = await startServer('./servers/example.js', { ...env, MODE: 'bare' });
    servers.push({ store: 'bare', server: bare });
    servers.push({
      store: 'memory',
      server: await startServer('./servers/example.js', { ...env, MODE: 'secure' }),
    });
    servers.push({
      store: 'Redis',
      server: await startServer('./servers/example.js', {
        ...env,
        MODE: 'secure',
        REDIS_URL: redis.url,
      }),
    });
    const secured = servers.slice(1);
    const credentials = await Promise.all(secured.map(({ server }) => logIn(server.origin)));
    const routes = [
      { route: 'GET /api/profile, session cookie', path: '/api/profile', kind: 'cookie' as const },
      {
        route: 'GET /api/profile, Bearer JWT (cache on)',
        path: '/api/profile',
        kind: 'bearer' as const,
      },
    ];
    const headersOf = (index: number, kind: 'cookie' | 'bearer'): Record<string, string> => {
      if (index === 0) return {};
      const credential = credentials[index - 1]!;
      return kind === 'cookie'
        ? { cookie: credential.cookie }
        : { authorization: `Bearer ${credential.token}` };
    };
    const rows: StoresRequestRow[] = [];
    for (const { route, path, kind } of routes) {
      for (const [index, { server }] of servers.entries()) {
        await load(server, path, headersOf(index, kind), options.warmup);
      }
      const perRound = servers.map(() => [] as LoadResult[]);
      for (let round = 0; round < options.rounds; round++) {
        for (const [index, { store, server }] of servers.entries()) {
          if (index > 0) {
            const url = `${server.origin}${path}`;
            await expectStatus(url, headersOf(index, kind), 200);
            await expectStatus(url, {}, 401);
          }
          const result = await load(server, path, headersOf(index, kind), options.seconds);
          if (result.non2xx > 0 || result.errors > 0) {
            throw new Error(`${store} ${route}: ${result.non2xx} non-2xx, ${result.errors} errors`);
          }
          perRound[index]!.push(result);
        }
      }
      for (const [index, { store }] of servers.entries()) {
        if (index === 0) continue;
        rows.push({
          route,
          store,
          overheads: perRound[index]!.map(
            (result, round) =>
              result.cpuPerRequestMicros - perRound[0]![round]!.cpuPerRequestMicros,
          ),
        });
      }
    }
    return rows;
  } finally {
    await Promise.all(servers.map(({ server }) => server.stop()));
  }
}

/** A bearer token (POST /auth/login) and a session cookie (the login form) of the demo user. */
async function logIn(origin: string): Promise<{ token: string; cookie: string }> {
  const response = await fetch(`${origin}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'user', password: 'user-password' }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (typeof body.access_token !== 'string') throw new Error('the example issued no token');
  const page = await fetch(`${origin}/login`, { headers: { accept: 'text/html' } });
  const pageCookies = page.headers.getSetCookie().map((c) => c.split(';', 1)[0]!);
  const csrf = /name="_csrf" value="([^"]+)"/u.exec(await page.text())?.[1];
  if (csrf === undefined) throw new Error('the login page has no CSRF token');
  const form = await fetch(`${origin}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin,
      'sec-fetch-site': 'same-origin',
      cookie: pageCookies.join('; '),
    },
    body: new URLSearchParams({ username: 'user', password: 'user-password', _csrf: csrf }),
  });
  const session = form.headers
    .getSetCookie()
    .map((c) => c.split(';', 1)[0]!)
    .find((c) => !c.endsWith('='));
  if (form.status !== 303 || session === undefined) {
    throw new Error(`the login form answered ${form.status} without a session`);
  }
  return { token: body.access_token, cookie: session };
}

/** Runs both parts on one redis-server. */
export async function benchStores(options: {
  seconds: number;
  rounds: number;
  warmup: number;
}): Promise<StoresResult> {
  const redis = await startRedis();
  try {
    const inProcess = await benchInProcess(redis.url, Math.max(5, options.rounds));
    const refresh = await benchRefresh(redis.url, options);
    const requests = await benchRequests(redis, options);
    return { inProcess, refresh, requests };
  } finally {
    await redis.stop();
  }
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[middle]!
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

export function printStores({ inProcess, refresh, requests }: StoresResult): void {
  console.log('\n## Stores: memory and Redis\n');
  console.log(
    '`SecurityTransform.handle` in process (no HTTP), the stores on memory and on Redis with the local revocation caches warm, alternating rounds; µs per request, median and range:\n',
  );
  console.log('| request | store | µs/request (median) | range | Redis / memory |');
  console.log('|---|---|---:|---|---:|');
  for (const row of inProcess) {
    const memoryRow = inProcess.find((r) => r.route === row.route && r.store === 'memory');
    const ratio =
      row.store === 'Redis' && memoryRow !== undefined
        ? fmt(median(row.nanos) / median(memoryRow.nanos), 2)
        : '';
    console.log(
      `| ${row.route} | ${row.store} | ${fmt(median(row.nanos) / 1000, 2)} | ${fmt(Math.min(...row.nanos) / 1000, 2)} – ${fmt(Math.max(...row.nanos) / 1000, 2)} | ${ratio} |`,
    );
  }
  console.log('');
  console.log(
    `Refreshes per second (${CHAINS} refresh chains at once in one process, alternating rounds; median and range):\n`,
  );
  console.log('| store | refreshes/s (median) | range |');
  console.log('|---|---:|---|');
  for (const row of refresh) {
    console.log(
      `| ${row.store} | ${fmt(median(row.perSecond))} | ${fmt(Math.min(...row.perSecond))} – ${fmt(Math.max(...row.perSecond))} |`,
    );
  }
  const memory = refresh.find((row) => row.store === 'memory');
  const redis = refresh.find((row) => row.store === 'Redis');
  if (memory && redis) {
    console.log(`\nRedis / memory: ${fmt(median(redis.perSecond) / median(memory.perSecond), 2)}.`);
  }
  console.log(
    '\nThe example server on each store, server CPU µs per request over the bare server (the same routes with security off), alternating rounds, the local revocation cache warm:\n',
  );
  console.log('| route | store | overhead µs/req (median) | range | Redis − memory |');
  console.log('|---|---|---:|---|---:|');
  for (const row of requests) {
    const memoryRow = requests.find((r) => r.route === row.route && r.store === 'memory');
    const delta =
      row.store === 'Redis' && memoryRow !== undefined
        ? `${fmt(median(row.overheads) - median(memoryRow.overheads), 1)} (${fmt((100 * (median(row.overheads) - median(memoryRow.overheads))) / median(memoryRow.overheads), 0)}%)`
        : '';
    console.log(
      `| ${row.route} | ${row.store} | ${fmt(median(row.overheads), 1)} | ${fmt(Math.min(...row.overheads), 1)} – ${fmt(Math.max(...row.overheads), 1)} | ${delta} |`,
    );
  }
}
