import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { parse, subscribe } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticatedUser,
  ConfigurationError,
  rateLimit,
  User,
  type RateLimitOptions,
  type SecurityEvent,
} from '../../src/index.js';
import {
  checkSchemaSecurity,
  createGraphQLContext,
  rateLimitDirectiveTypeDefs,
  SchemaSecurityError,
  securityDirectives,
  type SecurityDirectivesOptions,
} from '../../src/graphql/index.js';
import { main } from '../../src/cli/check-schema.js';
import { testClock } from '../support/clock.js';
import { recordEvents } from '../support/events.js';
import { listen, type TestServer } from '../support/server.js';
import { login, testAuthenticator } from './support.js';

const SDL = /* GraphQL */ `
  type Query {
    search(q: String!): String @permitAll @rateLimit(limit: "search")
    secret: String @secured(roles: "ADMIN") @rateLimit(limit: "search")
    open: String @permitAll @rateLimit(limit: "byAddress")
    forwarded: String @permitAll @rateLimit(limit: "forwarded")
  }
  type Mutation {
    vote(id: ID!): Boolean @authenticated @rateLimit(limit: "votes") @rateLimit(limit: "burst")
  }
`;

const clock = testClock();
const events = recordEvents();
const limit = (options: Partial<RateLimitOptions> & { name: string }) =>
  rateLimit({ window: '1m', max: 3, clock: clock.now, events: events.events, ...options });
const LIMITS = {
  search: limit({ name: 'search', by: 'user' }),
  votes: limit({ name: 'votes', max: 2, by: 'user' }),
  burst: limit({ name: 'burst', max: 10, by: 'address' }),
  byAddress: limit({ name: 'by-address', max: 2, by: 'address' }),
  forwarded: limit({ name: 'forwarded', max: 2, by: 'address', trustedProxies: ['loopback'] }),
};

function build(sdl = SDL, options: SecurityDirectivesOptions = { rateLimits: LIMITS }) {
  const { typeDefs, transformer } = securityDirectives(options);
  const reply = (_: unknown, args: { q?: string }) => `result ${args.q ?? ''}`;
  return transformer(
    makeExecutableSchema({
      typeDefs: [typeDefs, sdl],
      resolvers: {
        Query: { search: reply, secret: reply, open: reply, forwarded: reply },
        Mutation: { vote: () => true },
      },
      resolverValidationOptions: { requireResolversToMatchSchema: 'ignore' },
    }),
  );
}

interface Answer {
  status: number;
  retryAfter: string | null;
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
}

describe('GraphQL: @rateLimit on fields, over HTTP (GraphQL Yoga)', () => {
  let server: TestServer;
  beforeAll(async () => {
    const security = createGraphQLContext({ authenticator: testAuthenticator() });
    const yoga = createYoga({
      schema: build(),
      context: (initial) => security(initial),
      logging: false,
    });
    server = await listen(createServer(yoga.requestListener));
  });
  afterAll(() => server.close());

  async function post(query: string, user?: string, headers: Record<string, string> = {}) {
    const response = await fetch(`${server.origin}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(user === undefined ? {} : { authorization: login(user) }),
        ...headers,
      },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as Omit<Answer, 'status' | 'retryAfter'>;
    return { status: response.status, retryAfter: response.headers.get('retry-after'), ...body };
  }
  const codes = async (count: number, send: () => Promise<Answer>) => {
    const found: unknown[] = [];
    for (let i = 0; i < count; i++) {
      const answer = await send();
      found.push(answer.errors?.[0]?.extensions?.['code'] ?? 'OK');
    }
    return found;
  };

  it('lets max resolutions through, then TOO_MANY_REQUESTS (429, Retry-After); the window resets', async () => {
    expect(await codes(3, () => post('{ search(q: "a") }', 'alice'))).toEqual(['OK', 'OK', 'OK']);
    const refused = await post('{ search(q: "a") }', 'alice');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('60');
    expect(refused.data).toEqual({ search: null });
    expect(refused.errors).toEqual([
      {
        message: 'Too many requests, try again later',
        path: ['search'],
        locations: [{ line: 1, column: 3 }],
        extensions: { code: 'TOO_MANY_REQUESTS' },
      },
    ]);
    clock.advance(60_000);
    const reset = await post('{ search(q: "a") }', 'alice');
    expect(reset).toMatchObject({ status: 200, data: { search: 'result a' } });
    clock.advance(60_000);
  });

  it('counts each alias: one request cannot batch past the limit', async () => {
    const answer = await post(
      '{ a: search(q: "1") b: search(q: "2") c: search(q: "3") d: search(q: "4") }',
      'bob',
    );
    expect(answer.data).toEqual({ a: 'result 1', b: 'result 2', c: 'result 3', d: null });
    expect(answer.errors?.map((e) => [e.path, e.extensions?.['code']])).toEqual([
      [['d'], 'TOO_MANY_REQUESTS'],
    ]);
    clock.advance(60_000);
  });

  it("by: 'user' counts users apart and anonymous callers by address; refused resolutions count", async () => {
    expect(await codes(4, () => post('{ search(q: "x") }', 'alice'))).toEqual([
      'OK',
      'OK',
      'OK',
      'TOO_MANY_REQUESTS',
    ]);
    expect(await codes(1, () => post('{ search(q: "x") }', 'bob'))).toEqual(['OK']);
    // Anonymous (by address) on a field they may not read: denied three times, then limited.
    expect(await codes(4, () => post('{ secret }'))).toEqual([
      'UNAUTHENTICATED',
      'UNAUTHENTICATED',
      'UNAUTHENTICATED',
      'TOO_MANY_REQUESTS',
    ]);
    clock.advance(60_000);
  });

  it('limits mutations, each of several limits on a field counting', async () => {
    const vote = 'mutation { vote(id: "1") }';
    expect(await codes(3, () => post(vote, 'alice'))).toEqual(['OK', 'OK', 'TOO_MANY_REQUESTS']);
    const throttled = events.received.filter(
      (e): e is Extract<SecurityEvent, { type: 'throttled' }> => e.type === 'throttled',
    );
    expect(throttled.at(-1)).toEqual({
      type: 'throttled',
      limiter: 'votes',
      scope: 'user',
      username: 'alice',
      retryAfter: 60,
      request: { method: 'POST', path: '/graphql', clientAddress: '127.0.0.1' },
    });
    clock.advance(60_000);
  });

  it("by: 'address' ignores a forged X-Forwarded-For without trustedProxies, honours it with them", async () => {
    const forged = (i: number) => ({ 'x-forwarded-for': `192.0.2.${i}` });
    const rotating: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await post('{ open }', undefined, forged(i));
      rotating.push(answer.errors?.[0]?.extensions?.['code'] ?? 'OK');
    }
    expect(rotating).toEqual(['OK', 'OK', 'TOO_MANY_REQUESTS']);
    const apart: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await post('{ forwarded }', undefined, forged(i));
      apart.push(answer.errors?.[0]?.extensions?.['code'] ?? 'OK');
    }
    expect(apart).toEqual(['OK', 'OK', 'OK']);
    expect(await codes(3, () => post('{ forwarded }', undefined, forged(9)))).toEqual([
      'OK',
      'OK',
      'TOO_MANY_REQUESTS',
    ]);
    clock.advance(60_000);
  });
});

describe('GraphQL: @rateLimit at schema build', () => {
  it('refuses a limit name the rateLimits option does not define, with the others', () => {
    const sdl = `type Query {
      a: String @permitAll @rateLimit(limit: "serch")
      b: String @permitAll @rateLimit(limit: "nope")
    }`;
    let thrown: unknown;
    try {
      build(sdl);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SchemaSecurityError);
    expect((thrown as SchemaSecurityError).problems).toMatchObject([
      {
        coordinate: 'Query.a',
        directive: '@rateLimit',
        code: 'ERR_GRAPHQL_UNKNOWN_RATE_LIMIT',
        message: expect.stringContaining('did you mean "search"') as unknown,
        location: { line: 2, column: 28 },
      },
      { coordinate: 'Query.b', code: 'ERR_GRAPHQL_UNKNOWN_RATE_LIMIT' },
    ]);
  });

  it('checkSchemaSecurity reports the same problems', () => {
    const { typeDefs } = securityDirectives({ rateLimits: LIMITS });
    const schema = makeExecutableSchema({
      typeDefs: [typeDefs, 'type Query { a: String @permitAll @rateLimit(limit: "votez") }'],
    });
    expect(checkSchemaSecurity(schema, { rateLimits: LIMITS })).toMatchObject([
      { coordinate: 'Query.a', code: 'ERR_GRAPHQL_UNKNOWN_RATE_LIMIT' },
    ]);
  });

  it('refuses a schema defining @rateLimit otherwise, and a rateLimits option that is not limits', () => {
    const other = `directive @rateLimit(max: Int) on FIELD_DEFINITION
      type Query { a: String @permitAll @rateLimit(max: 1) }`;
    const schema = makeExecutableSchema({
      typeDefs: [securityDirectives().typeDefs, other],
    });
    expect(checkSchemaSecurity(schema, { rateLimits: LIMITS })).toMatchObject([
      { coordinate: '@rateLimit', code: 'ERR_GRAPHQL_DIRECTIVE_DEFINITION' },
    ]);
    // Without the rateLimits option another library's @rateLimit is left alone.
    expect(checkSchemaSecurity(schema)).toEqual([]);
    expect(() => securityDirectives({ rateLimits: { a: { max: 1 } } as never })).toThrow(
      expect.objectContaining({ option: 'rateLimits' }),
    );
    expect(() => securityDirectives({ rateLimits: [] as never })).toThrow(ConfigurationError);
  });

  it('defines @rateLimit in typeDefs only with rateLimits; the SDL file is the same text', () => {
    expect(securityDirectives().typeDefs).not.toContain('@rateLimit');
    expect(securityDirectives({ rateLimits: LIMITS }).typeDefs).toContain(
      rateLimitDirectiveTypeDefs,
    );
    const file = join(import.meta.dirname, '../../schema-directives/rate-limit.graphql');
    expect(readFileSync(file, 'utf8')).toBe(rateLimitDirectiveTypeDefs);
  });
});

describe('GraphQL: @rateLimit on a subscription', () => {
  it('counts each subscription once, when it starts, not each event', async () => {
    const ticks = limit({ name: 'ticks', max: 2, by: 'user' });
    const { typeDefs, transformer } = securityDirectives({ rateLimits: { ticks } });
    const schema = transformer(
      makeExecutableSchema({
        typeDefs: [
          typeDefs,
          `type Query { ok: String @permitAll }
           type Subscription { tick: Int @authenticated @rateLimit(limit: "ticks") }`,
        ],
        resolvers: {
          Subscription: {
            tick: {
              subscribe: async function* () {
                for (let i = 0; i < 5; i++) {
                  await Promise.resolve();
                  yield { tick: i };
                }
              },
            },
          },
        },
      }),
    );
    const user = AuthenticatedUser.from(new User('sub', '', ['USER']));
    const start = () =>
      subscribe({ schema, document: parse('subscription { tick }'), contextValue: { user } });
    for (let round = 0; round < 2; round++) {
      const stream = await start();
      const seen: unknown[] = [];
      for await (const event of stream as AsyncIterable<{ data?: unknown }>) seen.push(event.data);
      expect(seen).toHaveLength(5);
    }
    const refused = (await start()) as { errors?: { extensions?: Record<string, unknown> }[] };
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('TOO_MANY_REQUESTS');
    clock.advance(60_000);
  });
});

describe('GraphQL: portcullis check-schema and @rateLimit', () => {
  it('reads a schema using @rateLimit, adding its definition (the names live in code)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portcullis-rl-'));
    try {
      const path = join(dir, 'schema.graphql');
      await writeFile(path, 'type Query { a: Int @authenticated @rateLimit(limit: "search") }');
      const out: string[] = [];
      const err: string[] = [];
      const status = await main(['check-schema', path], {
        out: (t) => out.push(t),
        err: (t) => err.push(t),
      });
      expect(err.join('\n')).toBe('');
      expect(status).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
