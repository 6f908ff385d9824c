import { initTRPC, TRPCError } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticatedUser,
  ConfigurationError,
  rateLimit,
  TooManyRequestsError,
  User,
  type RateLimitOptions,
} from '../../src/index.js';
import {
  assertSecured,
  authenticated,
  createTrpcContext,
  permitAll,
  rateLimited,
  securityMeta,
  securityResponseMeta,
  type SecurityMeta,
  type UserContext,
} from '../../src/trpc/index.js';
import { recordEvents } from '../support/events.js';
import { testClock } from '../support/clock.js';
import { listen, type TestServer } from '../support/server.js';
import { login, statuses, testAuthenticator } from './support.js';

const t = initTRPC.context<UserContext>().create();
const clock = testClock();
const events = recordEvents();
const limit = (options: Partial<RateLimitOptions> & { name: string }) =>
  rateLimit({ window: '1m', max: 3, clock: clock.now, events: events.events, ...options });

const perUser = limit({ name: 'per-user', by: 'user' });
const forwarded = limit({ name: 'forwarded', by: 'address', max: 2, trustedProxies: 1 });
const direct = limit({ name: 'direct', by: 'address', max: 2 });

const router = t.router({
  // The limit before the guard: refused calls count too.
  search: t.procedure
    .use(rateLimited(perUser))
    .use(authenticated())
    .query(({ ctx }) => `found for ${ctx.user.username}`),
  // The limit after the guard: ctx.user stays narrowed.
  mine: t.procedure
    .use(authenticated())
    .use(rateLimited(perUser))
    .query(({ ctx }) => ctx.user.username),
  health: t.procedure
    .use(permitAll())
    .use(rateLimited(direct))
    .query(() => 'ok'),
  behindProxy: t.procedure
    .use(permitAll())
    .use(rateLimited(forwarded))
    .query(() => 'ok'),
});

describe('tRPC: rateLimited(limit) over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await listen(
      createHTTPServer({
        router,
        createContext: createTrpcContext({ authenticator: testAuthenticator(), router }),
        responseMeta: securityResponseMeta(),
      }),
    );
  });
  afterAll(() => server.close());

  const call = (path: string, user?: string, headers: Record<string, string> = {}) =>
    fetch(`${server.origin}/${path}`, {
      headers: user === undefined ? headers : { ...headers, authorization: login(user) },
    });

  it('lets max calls through, then TOO_MANY_REQUESTS (429, Retry-After); the window resets', async () => {
    expect(await statuses(3, () => call('search', 'alice'))).toEqual([200, 200, 200]);
    const refused = await call('search', 'alice');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    const body = (await refused.json()) as { error: { message: string; data: { code: string } } };
    expect(body.error.data.code).toBe('TOO_MANY_REQUESTS');
    expect(body.error.message).toBe('Too many requests, try again later');
    // The same limit on another procedure: one counter per user.
    expect((await call('mine', 'alice')).status).toBe(429);
    clock.advance(60_000);
    expect((await call('search', 'alice')).status).toBe(200);
    clock.advance(60_000);
  });

  it("by: 'user' counts users apart and anonymous callers by address; refused calls count", async () => {
    expect(await statuses(4, () => call('search', 'bob'))).toEqual([200, 200, 200, 429]);
    expect((await call('search', 'admin')).status).toBe(200);
    // Anonymous: UNAUTHORIZED three times, then refused before the guard runs.
    expect(await statuses(4, () => call('search'))).toEqual([401, 401, 401, 429]);
    clock.advance(60_000);
  });

  it('counts every call of a batch', async () => {
    const batch = await fetch(`${server.origin}/search,search,search,search?batch=1`, {
      headers: { authorization: login('bob') },
    });
    const results = (await batch.json()) as ({ result: unknown } | { error: unknown })[];
    expect(results.map((r) => 'error' in r)).toEqual([false, false, false, true]);
    clock.advance(60_000);
  });

  it("by: 'address' ignores X-Forwarded-For without trustedProxies, honours it with them", async () => {
    const forged = (i: number) => () =>
      call('health', undefined, { 'x-forwarded-for': `198.51.100.${i}` });
    expect([
      ...(await statuses(1, forged(1))),
      ...(await statuses(1, forged(2))),
      ...(await statuses(1, forged(3))),
    ]).toEqual([200, 200, 429]);
    // trustedProxies: 1 reads the address the proxy (the socket) appended.
    const proxied = (i: number) => () =>
      call('behindProxy', undefined, { 'x-forwarded-for': `198.51.100.${i}` });
    expect(await statuses(2, proxied(1))).toEqual([200, 200]);
    expect(await statuses(3, proxied(2))).toEqual([200, 200, 429]);
    const throttled = events.received.filter((e) => e.type === 'throttled').at(-1);
    expect(throttled).toMatchObject({
      limiter: 'forwarded',
      scope: 'address',
      username: undefined,
      request: { method: 'GET', path: '/behindProxy', clientAddress: '198.51.100.2' },
    });
    clock.advance(60_000);
  });
});

describe('tRPC: rateLimited() in process and at start-up', () => {
  it('counts a server-side caller by its user (a call without a request has no address)', async () => {
    const alice = AuthenticatedUser.from(new User('zoe', '', ['USER']));
    const caller = router.createCaller({ user: alice });
    for (let i = 0; i < 3; i++) await caller.search();
    const error = await caller.search().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('TOO_MANY_REQUESTS');
    expect((error as TRPCError).cause).toBeInstanceOf(TooManyRequestsError);
    expect((error as TRPCError).cause).toMatchObject({ limiter: 'per-user', scope: 'user' });
    clock.advance(60_000);
  });

  it('is not a guard: a procedure with only a rate limit is not secured', () => {
    const open = t.router({ open: t.procedure.use(rateLimited(perUser)).query(() => 'x') });
    expect(() => {
      assertSecured(open);
    }).toThrow(ConfigurationError);
    expect(() => rateLimited({ max: 1 } as never)).toThrow(
      expect.objectContaining({ option: 'limit' }),
    );
    expect(() => (rateLimited as (...l: unknown[]) => unknown)()).toThrow(ConfigurationError);
  });
});

describe('tRPC: meta.rateLimit with securityMeta()', () => {
  const m = initTRPC.context<UserContext>().meta<SecurityMeta>().create();
  const procedure = m.procedure.use(securityMeta());
  const votes = limit({ name: 'meta-votes', max: 2, by: 'user' });

  it('counts each call before meta.auth is checked', async () => {
    const metaRouter = m.router({
      vote: procedure
        .meta({ auth: { secured: 'ADMIN' }, rateLimit: [votes] })
        .mutation(({ ctx }) => ctx.user?.username),
    });
    assertSecured(metaRouter);
    const user = AuthenticatedUser.from(new User('yan', '', ['USER']));
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const error = await metaRouter
        .createCaller({ user })
        .vote()
        .catch((e: unknown) => e);
      codes.push((error as TRPCError).code);
    }
    // Denied twice (FORBIDDEN), then refused by the limit.
    expect(codes).toEqual(['FORBIDDEN', 'FORBIDDEN', 'TOO_MANY_REQUESTS']);
    clock.advance(60_000);
  });

  it('assertSecured refuses an invalid meta.rateLimit, or one securityMeta() does not read', () => {
    const bad = m.router({
      a: procedure.meta({ auth: { permitAll: true }, rateLimit: [] }).query(() => 'a'),
    });
    expect(() => {
      assertSecured(bad);
    }).toThrow(/invalid meta\.rateLimit/u);
    const unread = m.router({
      b: m.procedure
        .use(permitAll())
        .meta({ rateLimit: votes })
        .query(() => 'b'),
    });
    expect(() => {
      assertSecured(unread);
    }).toThrow(/securityMeta\(\) does not run/u);
  });
});
