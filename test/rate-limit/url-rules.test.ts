import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  ConfigurationError,
  MemoryThrottleStore,
  RequestMatcherAuthorizer,
  SecurityTransform,
  rateLimit,
  type RateLimitOptions,
  type SecurityEvent,
} from '../../src/index.js';
import { withSecurity } from '../../src/node/index.js';
import { recordEvents } from '../support/events.js';
import { testClock, type TestClock } from '../support/clock.js';
import { listen, type TestServer } from '../support/server.js';
import { login, statuses, testAuthenticator } from './support.js';

/** A server whose authorizer is `configure(matcher)`, answering `ok <user>`. */
async function serve(
  configure: (
    matcher: ReturnType<typeof AuthorizationManager.requestMatcher>,
  ) => ReturnType<typeof AuthorizationManager.requestMatcher>,
  events = recordEvents(),
): Promise<TestServer & { received: SecurityEvent[] }> {
  const transform = new SecurityTransform({ events: events.events })
    .configAuthenticator(testAuthenticator)
    .configAuthorizer(() => configure(AuthorizationManager.requestMatcher().httpBasic()));
  const server = await listen(
    withSecurity(transform, (req, res) => {
      res.end(`ok ${req.user?.username ?? 'anonymous'}`);
    }),
  );
  return Object.assign(server, { received: events.received });
}

describe('URL rules: requestMatcher().rateLimit(pattern, limit)', () => {
  let clock: TestClock;
  let server: TestServer & { received: SecurityEvent[] };
  const events = recordEvents();
  const limit = (options: Partial<RateLimitOptions> & { name: string }) =>
    rateLimit({ window: '1m', max: 3, clock: clock.now, events: events.events, ...options });

  beforeAll(async () => {
    clock = testClock();
    server = await serve(
      (m) =>
        m
          .rateLimit('/api/**', limit({ name: 'api', by: 'user' }))
          .rateLimit('/api/search', limit({ name: 'search', max: 2, by: 'user' }))
          .rateLimit('/upload', limit({ name: 'upload', max: 1 }), { methods: ['POST'] })
          .requestMatchers('/api/public/**', Access.permitAll())
          .requestMatchers('/api/admin/**', new Access().roles(['ADMIN']))
          .anyRequest(Access.authenticated()),
      events,
    );
  });
  afterAll(() => server.close());

  const get = (path: string, user?: string, init: RequestInit = {}) =>
    fetch(`${server.origin}${path}`, {
      ...init,
      headers: user === undefined ? {} : { authorization: login(user) },
    });

  it('lets max requests through, then answers 429 with Retry-After; the window resets', async () => {
    expect(await statuses(3, () => get('/api/items', 'alice'))).toEqual([200, 200, 200]);
    const refused = await get('/api/items', 'alice');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.text()).not.toContain('alice');
    clock.advance(30_000);
    const later = await get('/api/items', 'alice');
    expect(later.status).toBe(429);
    expect(later.headers.get('retry-after')).toBe('30');
    clock.advance(30_000);
    const reset = await get('/api/items', 'alice');
    expect(reset.status).toBe(200);
    expect(await reset.text()).toBe('ok alice');
    clock.advance(60_000);
  });

  it("by: 'user' counts users apart, and anonymous requests by their address", async () => {
    expect(await statuses(4, () => get('/api/items', 'bob'))).toEqual([200, 200, 200, 429]);
    expect((await get('/api/items', 'admin')).status).toBe(200);
    // Anonymous: one address (127.0.0.1), whatever the path under /api.
    expect(await statuses(4, () => get('/api/public/x'))).toEqual([200, 200, 200, 429]);
    // A user from that same address has a counter of their own.
    expect((await get('/api/public/x', 'alice')).status).toBe(200);
    clock.advance(60_000);
  });

  it('counts denied requests too (the limit runs before the access rules)', async () => {
    // Anonymous guesses at a protected path: 401, 401, 401, then 429.
    expect(await statuses(4, () => get('/api/admin/stats'))).toEqual([401, 401, 401, 429]);
    // alice lacks ADMIN: 403 ×3, then 429, and a permitted path is refused as well.
    expect(await statuses(3, () => get('/api/admin/stats', 'alice'))).toEqual([403, 403, 403]);
    expect((await get('/api/items', 'alice')).status).toBe(429);
    clock.advance(60_000);
  });

  it('every matching rule counts the request (not the first match only)', async () => {
    events.received.length = 0;
    // search: max 2; api: max 3, and searches count against it too.
    expect(await statuses(3, () => get('/api/search', 'alice'))).toEqual([200, 200, 429]);
    const throttled = events.received.filter((e) => e.type === 'throttled');
    expect(throttled).toMatchObject([{ limiter: 'search', scope: 'user', username: 'alice' }]);
    // The api rule, added first, counted all three searches: its limit is reached too.
    expect(await statuses(1, () => get('/api/items', 'alice'))).toEqual([429]);
    const last = events.received.filter((e) => e.type === 'throttled').at(-1);
    expect(last).toMatchObject({ limiter: 'api', scope: 'user', username: 'alice' });
    clock.advance(60_000);
  });

  it('counts only the methods given', async () => {
    expect(await statuses(3, () => get('/upload', 'alice'))).toEqual([200, 200, 200]);
    const posts = await statuses(2, () => get('/upload', 'alice', { method: 'POST' }));
    expect(posts).toEqual([200, 429]);
    clock.advance(60_000);
  });

  it('publishes a throttled event: the limit, the scope, the user and the request, no credential', async () => {
    events.received.length = 0;
    await statuses(4, () => get('/api/items', 'bob'));
    const throttled = events.received.filter((e) => e.type === 'throttled');
    expect(throttled).toEqual([
      {
        type: 'throttled',
        limiter: 'api',
        scope: 'user',
        username: 'bob',
        retryAfter: 60,
        request: { method: 'GET', path: '/api/items', clientAddress: '127.0.0.1' },
      },
    ]);
    expect(JSON.stringify(throttled)).not.toContain('bob-pw');
    expect(JSON.stringify(throttled)).not.toContain(login('bob').slice(6));
    clock.advance(60_000);
  });
});

describe("URL rules: by 'address' and forwarded headers", () => {
  const forged = (i: number) => ({ 'x-forwarded-for': `203.0.113.${i}` });

  it('ignores a forged X-Forwarded-For without trustedProxies', async () => {
    const server = await serve((m) =>
      m
        .rateLimit('/**', rateLimit({ name: 'addr', window: '1m', max: 2, by: 'address' }))
        .anyRequest(Access.permitAll()),
    );
    try {
      // A client rotating its claimed address is still one client (the socket's).
      const found = await statuses(3, (i) => fetch(server.origin, { headers: forged(i) }));
      expect(found).toEqual([200, 200, 429]);
    } finally {
      await server.close();
    }
  });

  it('honours X-Forwarded-For from a trusted proxy', async () => {
    const server = await serve((m) =>
      m
        .rateLimit(
          '/**',
          rateLimit({
            name: 'addr',
            window: '1m',
            max: 2,
            by: 'address',
            trustedProxies: ['loopback'],
          }),
        )
        .anyRequest(Access.permitAll()),
    );
    try {
      // Each forwarded client has its own counter ...
      const apart = await statuses(3, (i) => fetch(server.origin, { headers: forged(i) }));
      expect(apart).toEqual([200, 200, 200]);
      // ... and one client is refused after max.
      const one = await statuses(3, () => fetch(server.origin, { headers: forged(7) }));
      expect(one).toEqual([200, 200, 429]);
    } finally {
      await server.close();
    }
  });

  it('counts an IPv6 client rotating within its /64 as one', async () => {
    const server = await serve((m) =>
      m
        .rateLimit(
          '/**',
          rateLimit({ window: '1m', max: 2, by: 'address', trustedProxies: ['loopback'] }),
        )
        .anyRequest(Access.permitAll()),
    );
    try {
      const from = (address: string) => () =>
        fetch(server.origin, { headers: { 'x-forwarded-for': address } });
      expect([
        ...(await statuses(1, from('2001:db8:1:2::1'))),
        ...(await statuses(1, from('2001:db8:1:2:ffff:1:2:3'))),
        ...(await statuses(1, from('2001:db8:1:2:abcd::9'))),
      ]).toEqual([200, 200, 429]);
      // The next /64 is another client.
      expect(await statuses(1, from('2001:db8:1:3::1'))).toEqual([200]);
    } finally {
      await server.close();
    }
  });

  it('counts by a custom key; a request without one is not counted', async () => {
    const server = await serve((m) =>
      m
        .rateLimit(
          '/**',
          rateLimit({
            name: 'tenant',
            window: '1m',
            max: 1,
            by: ({ request }) => request?.header('x-tenant') ?? null,
          }),
        )
        .anyRequest(Access.permitAll()),
    );
    try {
      const tenant = (name: string) => () =>
        fetch(server.origin, { headers: { 'x-tenant': name } });
      expect(await statuses(2, tenant('a'))).toEqual([200, 429]);
      expect(await statuses(1, tenant('b'))).toEqual([200]);
      expect(await statuses(3, () => fetch(server.origin))).toEqual([200, 200, 200]);
    } finally {
      await server.close();
    }
  });
});

describe('URL rules: configuration', () => {
  const limit = rateLimit({ window: '1m', max: 1 });

  it('compiles the patterns when the rule is added', () => {
    const m = () => AuthorizationManager.requestMatcher();
    expect(() => m().rateLimit('/api/{', limit)).toThrow(ConfigurationError);
    expect(() => m().rateLimit([], limit)).toThrow(ConfigurationError);
    // A regex that looks like a glob, one that cannot match a path, one that backtracks.
    expect(() => m().rateLimit(/\/api\/*/u, limit)).toThrow(ConfigurationError);
    expect(() => m().rateLimit(/api\/.*/u, limit)).toThrow(ConfigurationError);
    expect(() => m().rateLimit(/\/(a+)+b/u, limit)).toThrow(ConfigurationError);
    expect(() => m().rateLimit('/api/**', limit, { methods: ['not a method'] })).toThrow(
      ConfigurationError,
    );
    expect(() => m().rateLimit('/api/**', { max: 1 } as never)).toThrow(
      expect.objectContaining({ option: 'limit' }),
    );
    expect(() => m().rateLimit('/api/**', limit).caseSensitive()).toThrow(
      expect.objectContaining({ option: 'caseSensitive' }),
    );
    expect(() =>
      m()
        .rateLimit(/\/api\/.*/u, limit)
        .rateLimit(['/a', '/b/**'], limit),
    ).not.toThrow();
  });

  it('a RegExp rule counts as addMatcher matches, case-insensitively by default', async () => {
    const store = new MemoryThrottleStore();
    const transform = new SecurityTransform().configAuthorizer(() =>
      AuthorizationManager.requestMatcher()
        .rateLimit(/\/files\/.*\.pdf/u, rateLimit({ window: '1m', max: 1, by: 'address', store }))
        .anyRequest(Access.permitAll()),
    );
    const server = await listen(
      withSecurity(transform, (_req, res) => {
        res.end('ok');
      }),
    );
    try {
      expect(await statuses(2, () => fetch(`${server.origin}/files/a.pdf`))).toEqual([200, 429]);
      expect(await statuses(1, () => fetch(`${server.origin}/FILES/b.PDF`))).toEqual([429]);
      expect(await statuses(2, () => fetch(`${server.origin}/files/a.txt`))).toEqual([200, 200]);
    } finally {
      await server.close();
    }
  });

  it('the options form (rateLimits) counts as the builder does, and refuses malformed entries', async () => {
    const store = new MemoryThrottleStore();
    const limit = rateLimit({ name: 'opts', window: '1m', max: 1, by: 'address', store });
    const transform = new SecurityTransform().configAuthorizer(
      () =>
        new RequestMatcherAuthorizer({
          rateLimits: [{ paths: '/upload/**', limit, methods: 'POST' }],
          anyRequest: 'permitAll',
        }),
    );
    const server = await listen(
      withSecurity(transform, (_req, res) => {
        res.end('ok');
      }),
    );
    try {
      const post = () => fetch(`${server.origin}/upload/x`, { method: 'POST' });
      expect(await statuses(2, post)).toEqual([200, 429]);
      expect(await statuses(2, () => fetch(`${server.origin}/upload/x`))).toEqual([200, 200]);
    } finally {
      await server.close();
    }
    const make = (rateLimits: unknown) => () =>
      new RequestMatcherAuthorizer({ rateLimits } as never);
    expect(make({ paths: '/a', limit })).toThrow(expect.objectContaining({ option: 'rateLimits' }));
    expect(make([{ paths: '/a', limit: { max: 1 } }])).toThrow(
      expect.objectContaining({ option: 'rateLimits[].limit' }),
    );
    expect(make([{ limit }])).toThrow(expect.objectContaining({ option: 'rateLimits[].paths' }));
    expect(make([{ paths: '/a', limit, metods: 'GET' }])).toThrow(/did you mean "methods"/u);
  });
});
