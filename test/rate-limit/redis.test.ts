/**
 * Rate-limit rules on a real Redis: one counter for two instances, every key with a
 * TTL, and Redis stopped: the documented policy (fail-closed 503 by default,
 * fail-open on request), an event either way, no 500 and no hang.
 */
import { graphql } from 'graphql';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { initTRPC, TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Access,
  AuthenticatedUser,
  AuthorizationManager,
  rateLimit,
  SecurityTransform,
  User,
  type RateLimit,
  type StoreFailurePolicy,
  type ThrottleStore,
} from '../../src/index.js';
import { securityDirectives } from '../../src/graphql/index.js';
import { withSecurity } from '../../src/node/index.js';
import { authenticated, rateLimited, type UserContext } from '../../src/trpc/index.js';
import { closeAll, instance, keysWithTtl, observer, type Instance } from '../redis/instances.js';
import { recordEvents } from '../support/events.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { listen, type TestServer } from '../support/server.js';
import { statuses } from './support.js';

const PREFIX = 'rl-test:';
const events = recordEvents();
let redis: TestRedis;
let a: Instance;
let b: Instance;

const apiLimit = (store: ThrottleStore, onStoreFailure?: StoreFailurePolicy): RateLimit =>
  rateLimit({
    name: 'api',
    window: '1m',
    max: 5,
    by: 'address',
    store,
    storeTimeoutMs: 500,
    events: events.events,
    ...(onStoreFailure === undefined ? {} : { onStoreFailure }),
  });

async function serve(limit: RateLimit): Promise<TestServer> {
  const transform = new SecurityTransform().configAuthorizer(() =>
    AuthorizationManager.requestMatcher()
      .rateLimit('/api/**', limit)
      .anyRequest(Access.permitAll()),
  );
  return listen(
    withSecurity(transform, (_req, res) => {
      res.end('ok');
    }),
  );
}

let one: TestServer;
let two: TestServer;
let open: TestServer;

beforeAll(async () => {
  redis = await startRedis();
  a = await instance(redis.url, { prefix: PREFIX, timeoutMs: 300 });
  b = await instance(redis.url, { prefix: PREFIX, timeoutMs: 300 });
  one = await serve(apiLimit(a.stores.throttle));
  two = await serve(apiLimit(b.stores.throttle));
  open = await serve(apiLimit(b.stores.throttle, 'fail-open'));
});

afterAll(async () => {
  await Promise.all([one, two, open].map((server) => server.close()));
  closeAll(a, b);
  await redis.stop();
});

describe('rate-limit rules on Redis', () => {
  it('two instances share one counter, and every key has a TTL', async () => {
    const found = await statuses(7, (i) => fetch(`${(i % 2 === 0 ? one : two).origin}/api/items`));
    expect(found).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const client = await observer(redis.url);
    try {
      const keys = await keysWithTtl(client, PREFIX);
      expect(keys.size).toBeGreaterThan(0);
      for (const [key, ttl] of keys) {
        expect(ttl, key).toBeGreaterThan(0);
        expect(ttl, key).toBeLessThanOrEqual(60_000);
      }
    } finally {
      client.destroy();
    }
  });

  it('Redis stopped: 503 with Retry-After (fail-closed, the default), 200 with fail-open, an event each', async () => {
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    events.received.length = 0;
    const started = performance.now();
    const closed = await fetch(`${one.origin}/api/items`);
    expect(closed.status).toBe(503);
    expect(Number(closed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const passed = await fetch(`${open.origin}/api/items`);
    expect(passed.status).toBe(200);
    expect(await passed.text()).toBe('ok');
    // Bounded by the store deadlines, not a hang (generous: a busy machine).
    expect(performance.now() - started).toBeLessThan(5_000);
    const failures = events.received.filter((e) => e.type === 'throttle-store-failure');
    expect(failures).toMatchObject([
      { limiter: 'api', policy: 'fail-closed', request: { path: '/api/items' } },
      { limiter: 'api', policy: 'fail-open', request: { path: '/api/items' } },
    ]);
    for (const failure of failures) {
      expect((failure as { error: string }).error).toMatch(/^ERR_[A-Z_]+$/u);
    }
  });

  it('Redis stopped: a tRPC procedure answers SERVICE_UNAVAILABLE, a GraphQL field too', async () => {
    // By user: a server-side caller has no request, hence no address.
    const limit = rateLimit({ name: 'me', window: '1m', max: 5, store: a.stores.throttle });
    const t = initTRPC.context<UserContext>().create();
    const router = t.router({
      me: t.procedure
        .use(rateLimited(limit))
        .use(authenticated())
        .query(({ ctx }) => ctx.user.username),
    });
    const user = AuthenticatedUser.from(new User('alice', '', ['USER']));
    const error = await router
      .createCaller({ user })
      .me()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('SERVICE_UNAVAILABLE');

    const { typeDefs, transformer } = securityDirectives({ rateLimits: { api: limit } });
    const schema = transformer(
      makeExecutableSchema({
        typeDefs: [typeDefs, 'type Query { me: String @authenticated @rateLimit(limit: "api") }'],
        resolvers: { Query: { me: () => 'alice' } },
      }),
    );
    const answer = await graphql({ schema, source: '{ me }', contextValue: { user } });
    expect(answer.data).toEqual({ me: null });
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      http: { status: 503 },
    });
  });
});
