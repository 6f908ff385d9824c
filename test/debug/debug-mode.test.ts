/**
 * Debug mode: decision events explain themselves (the rule, the requirement, the term
 * that failed, how authentication ended), only when it is on, and it cannot be turned
 * on in a process started with NODE_ENV=production.
 */
import { initTRPC } from '@trpc/server';
import {
  Access,
  AuthorizationManager,
  ConfigurationError,
  SecurityEvents,
  SecurityTransform,
  createSecurityRequest,
  type AccessDeniedEvent,
  type Authenticator,
  type Authorizer,
  type SecurityEvent,
} from 'portcullis';
import { securityDirectives } from 'portcullis/graphql';
import { createGuards } from 'portcullis/trpc';
import { createTrpcCallerAs, mockUser } from 'portcullis/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADMIN, ALICE, run, secureSchema } from '../graphql/schema.js';

const reader = mockUser('reader', { roles: ['USER'], authorities: ['posts:read'] });

function recorder(): { events: SecurityEvents; received: SecurityEvent[] } {
  const events = new SecurityEvents();
  const received: SecurityEvent[] = [];
  events.on('*', (event) => {
    received.push(event);
  });
  return { events, received };
}

/** The user of the `x-user` header (`reader`), `failed` for `x-user: bad`, else anonymous. */
const authenticator: Authenticator = {
  authenticationMethod: 'test',
  getUser: () => null,
  attempt: (request) => {
    const name = request.header('x-user');
    if (name === 'reader') return { kind: 'authenticated', user: reader };
    if (name === 'bad') return { kind: 'failed', reason: 'invalid-token' };
    return { kind: 'anonymous' };
  },
};

const rules = () =>
  AuthorizationManager.requestMatcher()
    .requestMatchers('/', Access.permitAll())
    .requestMatchers('/posts', new Access().roles(['USER']).authorities(['posts:write']), {
      methods: ['POST'],
    })
    .requestMatchers('/posts', new Access().roles(['USER']));

function request(method: string, url: string, user?: string) {
  return createSecurityRequest({
    method,
    url,
    header: (name) => (name === 'x-user' ? user : undefined),
  });
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the HTTP transform in debug mode', () => {
  function transform(debug: boolean) {
    const { events, received } = recorder();
    const t = new SecurityTransform({ authenticator, authorizer: rules(), events, debug });
    return { t, received };
  }

  it('explains a denial: requirement, failing term, authentication', async () => {
    const { t, received } = transform(true);
    const outcome = await t.handle(request('POST', '/posts', 'reader'));
    expect(outcome.proceed).toBe(false);
    expect(!outcome.proceed && outcome.response.status).toBe(403);
    expect(received).toContainEqual({
      type: 'access-denied',
      username: 'reader',
      rule: "/posts [POST] → hasAnyRole('USER') and hasAnyAuthority('posts:write')",
      request: { method: 'POST', path: '/posts', clientAddress: undefined },
      expression: "hasAnyRole('USER') and hasAnyAuthority('posts:write')",
      failingTerm: "hasAnyAuthority('posts:write')",
      authentication: 'authenticated (mock)',
    });
  });

  it("carries the authenticator's reason when a credential was refused", async () => {
    const { t, received } = transform(true);
    const outcome = await t.handle(request('GET', '/posts', 'bad'));
    expect(!outcome.proceed && outcome.response.status).toBe(401);
    const denied = received.find((e): e is AccessDeniedEvent => e.type === 'access-denied');
    expect(denied?.authentication).toBe('failed: invalid-token');
    expect(denied?.failingTerm).toBe("hasAnyRole('USER')");
  });

  it('publishes access-granted with the rule that let the request through', async () => {
    const { t, received } = transform(true);
    expect((await t.handle(request('GET', '/posts', 'reader'))).proceed).toBe(true);
    expect(received).toContainEqual({
      type: 'access-granted',
      username: 'reader',
      rule: "/posts → hasAnyRole('USER')",
      expression: "hasAnyRole('USER')",
      term: "hasAnyRole('USER')",
      authentication: 'authenticated (mock)',
      request: { method: 'GET', path: '/posts', clientAddress: undefined },
    });
  });

  it('explains the transform without an authorizer (deny by default)', async () => {
    const { events, received } = recorder();
    const t = new SecurityTransform({ events, debug: true });
    await t.handle(request('GET', '/x'));
    expect(received).toContainEqual(
      expect.objectContaining({ type: 'access-denied', failingTerm: 'isAuthenticated()' }),
    );
  });

  it('does not wait past the authorization deadline for an explanation that never comes', async () => {
    const { events, received } = recorder();
    const hung: Authorizer = {
      authorize: () => ({ granted: false, reason: 'forbidden', rule: 'hung rule' }),
      explain: () => new Promise<never>(() => undefined),
    };
    const t = new SecurityTransform({
      authenticator,
      authorizer: hung,
      events,
      debug: true,
      deadlines: { authorizationMs: 50 },
    });
    const outcome = await t.handle(request('GET', '/posts', 'reader'));
    expect(!outcome.proceed && outcome.response.status).toBe(403);
    expect(received).toEqual([
      expect.objectContaining({
        type: 'access-denied',
        rule: 'hung rule',
        authentication: 'authenticated (mock)',
      }),
    ]);
    expect(received[0]).not.toHaveProperty('failingTerm');
  });

  it('says nothing more when it is off: no explanation, no access-granted', async () => {
    const { t, received } = transform(false);
    await t.handle(request('POST', '/posts', 'reader'));
    await t.handle(request('GET', '/posts', 'reader'));
    expect(received.map((e) => e.type)).toEqual(['access-denied']);
    expect(Object.keys(received[0] ?? {}).sort()).toEqual(['request', 'rule', 'type', 'username']);
  });

  it('is switched on and off with configDebug', async () => {
    const { events, received } = recorder();
    const t = new SecurityTransform({ authorizer: rules(), events }).configDebug(true);
    await t.handle(request('GET', '/'));
    expect(received.map((e) => e.type)).toEqual(['access-granted']);
    t.configDebug(false);
    await t.handle(request('GET', '/'));
    expect(received).toHaveLength(1);
  });
});

describe('debug mode is refused with NODE_ENV=production', () => {
  it('by the transform, the tRPC guards and the GraphQL directives, with a ConfigurationError', () => {
    vi.stubEnv('NODE_ENV', 'production');
    const attempts = [
      () => new SecurityTransform({ debug: true }),
      () => new SecurityTransform().configDebug(true),
      () => createGuards({ debug: true }),
      () => securityDirectives({ debug: true }),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow(ConfigurationError);
      expect(attempt).toThrow(/NODE_ENV=production/u);
    }
    // Off stays allowed.
    expect(() => new SecurityTransform({ debug: false })).not.toThrow();
    expect(() => createGuards({ debug: false })).not.toThrow();
  });

  it('refuses a debug option that is not a boolean', () => {
    expect(() => new SecurityTransform({ debug: 'yes' as unknown as boolean })).toThrow(
      ConfigurationError,
    );
  });
});

describe('the tRPC guards and GraphQL directives in debug mode', () => {
  it('tRPC: the access-denied event carries the expression and its failing term', async () => {
    const { events, received } = recorder();
    const t = initTRPC.context<{ user: unknown }>().create();
    const { preAuthorize } = createGuards({ debug: true, events });
    const router = t.router({
      edit: t.procedure
        .input((value) => value as { owner: string })
        .use(
          preAuthorize(
            "hasRole('USER') and (args.owner == principal.username or hasRole('ADMIN'))",
          ),
        )
        .mutation(() => 'ok'),
    });
    const caller = createTrpcCallerAs(router, reader);
    await expect(caller.edit({ owner: 'someone' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await vi.waitFor(() => {
      expect(received).toHaveLength(1);
    });
    expect(received[0]).toMatchObject({
      type: 'access-denied',
      expression: "hasRole('USER') and (args.owner == principal.username or hasRole('ADMIN'))",
      failingTerm: "args.owner == principal.username or hasRole('ADMIN')",
    });
  });

  it('tRPC: without debug the event has no explanation', async () => {
    const { events, received } = recorder();
    const t = initTRPC.context<{ user: unknown }>().create();
    const { secured } = createGuards({ events });
    const router = t.router({ admin: t.procedure.use(secured('ADMIN')).query(() => 'ok') });
    await expect(createTrpcCallerAs(router, reader).admin()).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(received).toHaveLength(1);
    expect(received[0]).not.toHaveProperty('failingTerm');
  });

  it('GraphQL: the access-denied event carries the failing term with the field arguments', async () => {
    const { events, received } = recorder();
    const schema = secureSchema(
      `type Query { post(author: String!): String @preAuthorize(expr: "hasRole('ADMIN') or args.author == principal.username") admin: String @preAuthorize(expr: "hasRole('USER') and hasRole('ADMIN')") }`,
      { Query: { post: () => 'p', admin: () => 'a' } },
      { debug: true, events },
    );
    const result = await run(schema, '{ post(author: "bob") admin }', ALICE);
    expect(result.errors).toHaveLength(2);
    await vi.waitFor(() => {
      expect(received).toHaveLength(2);
    });
    const terms = received.map((e) => (e as AccessDeniedEvent).failingTerm).sort();
    expect(terms).toEqual([
      "hasRole('ADMIN')",
      "hasRole('ADMIN') or args.author == principal.username",
    ]);
    const granted = await run(schema, '{ post(author: "admin") }', ADMIN);
    expect(granted.errors).toBeUndefined();
  });
});
