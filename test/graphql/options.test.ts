import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  execute,
  GraphQLError,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  graphql,
  parse,
  type ExecutionResult,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  SecurityContext,
  SecurityEvents,
  type SecurityEvent,
} from '../../src/index.js';
import { securityDirectives } from '../../src/graphql/index.js';
import { ADMIN, ALICE, denials, run, secureSchema } from './schema.js';

const SDL = `type Query {
  health: String
  admin: String @secured(roles: "ADMIN")
  mine(authorId: String!, limit: Int = 10): String
    @preAuthorize(expr: "args.authorId == principal.username and args.limit == 10")
}`;

const resolvers = {
  Query: {
    health: () => 'ok',
    admin: () => SecurityContext.getUser()?.username ?? 'nobody',
    mine: (_: unknown, args: { authorId: string }) => args.authorId,
  },
};

describe('where the user comes from', () => {
  it('reads context.user by default', async () => {
    const schema = secureSchema(SDL, resolvers);
    expect((await run(schema, '{ admin }', ADMIN)).data).toEqual({ admin: 'admin' });
  });

  it('treats a forged plain object in context.user as anonymous', async () => {
    const schema = secureSchema(SDL, resolvers);
    const forged = { username: 'admin', roles: new Set(['ADMIN']), hasRole: () => true };
    const result = await graphql({ schema, source: '{ admin }', contextValue: { user: forged } });
    expect(denials(result)).toEqual({ admin: 'UNAUTHENTICATED' });
  });

  it('takes a user getter, which may return a promise', async () => {
    const sync = secureSchema(SDL, resolvers, {
      user: (ctx) => (ctx as { auth: { who: typeof ADMIN } }).auth.who,
    });
    const result = await graphql({
      schema: sync,
      source: '{ admin }',
      contextValue: { auth: { who: ADMIN } },
    });
    expect(result.data).toEqual({ admin: 'admin' });

    const lazy = secureSchema(SDL, resolvers, {
      user: (ctx) => Promise.resolve((ctx as { who: unknown }).who as typeof ADMIN),
    });
    for (const [who, expected] of [
      [ADMIN, { data: { admin: 'admin' } }],
      [ALICE, { admin: 'FORBIDDEN' }],
      [{ username: 'admin' }, { admin: 'UNAUTHENTICATED' }],
    ] as const) {
      const r = await graphql({ schema: lazy, source: '{ admin }', contextValue: { who } });
      expect('data' in expected ? r : denials(r)).toEqual(expected);
    }
  });

  it('runs a guarded resolver with the user in the SecurityContext', async () => {
    const schema = secureSchema(SDL, resolvers);
    expect(SecurityContext.getUser()).toBeNull();
    expect((await run(schema, '{ admin }', ADMIN)).data).toEqual({ admin: 'admin' });
  });

  it('with securityContext: false, runs the resolver as it is: the rule still applies, SecurityContext stays empty', async () => {
    const schema = secureSchema(SDL, resolvers, { securityContext: false });
    expect((await run(schema, '{ admin }', ADMIN)).data).toEqual({ admin: 'nobody' });
    expect(denials(await run(schema, '{ admin }', ALICE))).toEqual({ admin: 'FORBIDDEN' });
    expect(denials(await run(schema, '{ admin }', null))).toEqual({ admin: 'UNAUTHENTICATED' });
    // What the HTTP adapter put there is what the resolver sees.
    const seen = await SecurityContext.run(ALICE, () => run(schema, '{ health admin }', ADMIN));
    expect(seen.data).toEqual({ health: 'ok', admin: 'alice' });
  });

  it('refuses a securityContext that is not a boolean', () => {
    expect(() =>
      secureSchema(SDL, resolvers, { securityContext: 'no' as unknown as boolean }),
    ).toThrow(ConfigurationError);
  });
});

describe('field arguments as args', () => {
  const schema = secureSchema(SDL, resolvers);

  it('sees literal arguments, variables and argument defaults', async () => {
    expect((await run(schema, '{ mine(authorId: "alice") }', ALICE)).data).toEqual({
      mine: 'alice',
    });
    const byVariable = await run(schema, 'query($a: String!) { mine(authorId: $a) }', ALICE, {
      a: 'alice',
    });
    expect(byVariable.data).toEqual({ mine: 'alice' });
  });

  it("refuses another user's argument (ownership)", async () => {
    const result = await run(schema, 'query($a: String!) { mine(authorId: $a) }', ALICE, {
      a: 'bob',
    });
    expect(denials(result)).toEqual({ mine: 'FORBIDDEN' });
    const changedDefault = await run(schema, '{ mine(authorId: "alice", limit: 11) }', ALICE);
    expect(denials(changedDefault)).toEqual({ mine: 'FORBIDDEN' });
  });
});

describe('cost', () => {
  it('leaves fields without a rule with their own resolver', () => {
    const base = makeExecutableSchema({
      typeDefs: [securityDirectives().typeDefs, SDL],
      resolvers,
    });
    // `health` has no directive: open only because this schema opts out of deny-by-default.
    const secured = securityDirectives({ defaultPolicy: 'permitAll' }).transformer(base);
    const before = base.getQueryType()!.getFields();
    const after = secured.getQueryType()!.getFields();
    expect(after['health']!.resolve).toBe(before['health']!.resolve);
    expect(after['admin']!.resolve).not.toBe(before['admin']!.resolve);
  });

  it('keeps a query of synchronous rules and resolvers synchronous', () => {
    const schema = secureSchema(SDL, resolvers);
    for (const user of [ADMIN, ALICE, null]) {
      const result = execute({
        schema,
        document: parse('{ health admin mine(authorId: "alice") }'),
        contextValue: { user },
      });
      expect(result).not.toBeInstanceOf(Promise);
      expect((result as ExecutionResult).data?.['health']).toBe('ok');
    }
  });
});

describe('custom functions', () => {
  it('calls synchronous and asynchronous functions from @preAuthorize', async () => {
    const owners = new Map([['p1', 'alice']]);
    const schema = secureSchema(
      `type Query {
         post(id: ID!): String @preAuthorize(expr: "isOwner(args.id) or hasRole('ADMIN')")
         slow(id: ID!): String @preAuthorize(expr: "ownsAsync(args.id)")
       }`,
      { Query: { post: () => 'post', slow: () => 'slow' } },
      {
        functions: {
          isOwner: {
            params: ['reference'],
            call: (user, id) => owners.get(String(id)) === user?.username,
          },
          ownsAsync: {
            params: ['reference'],
            async: true,
            call: (user, id) => Promise.resolve(owners.get(String(id)) === user?.username),
          },
        },
      },
    );
    expect((await run(schema, '{ post(id: "p1") slow(id: "p1") }', ALICE)).data).toEqual({
      post: 'post',
      slow: 'slow',
    });
    expect(denials(await run(schema, '{ post(id: "p2") slow(id: "p2") }', ALICE))).toEqual({
      post: 'FORBIDDEN',
      slow: 'FORBIDDEN',
    });
    expect((await run(schema, '{ post(id: "p2") }', ADMIN)).data).toEqual({ post: 'post' });
  });

  it('denies when a custom function throws', async () => {
    const schema = secureSchema(
      'type Query { a: String @preAuthorize(expr: "boom()") }',
      { Query: { a: () => 'a' } },
      {
        functions: {
          boom: {
            params: [],
            call: () => {
              throw new Error('database down');
            },
          },
        },
        events: new SecurityEvents(),
      },
    );
    const result = await run(schema, '{ a }', ADMIN);
    expect(denials(result)).toEqual({ a: 'FORBIDDEN' });
    expect(JSON.stringify(result)).not.toContain('database down');
  });
});

describe('denial errors and events', () => {
  it('names the rule only in debug mode', async () => {
    const quiet = await run(secureSchema(SDL, resolvers), '{ admin }', ALICE);
    expect(quiet.errors?.[0]?.message).toBe('Access is denied');
    const debug = await run(secureSchema(SDL, resolvers, { debug: true }), '{ admin }', ALICE);
    expect(debug.errors?.[0]?.message).toBe("Access is denied by hasRole('ADMIN')");
  });

  it('builds errors with createError, and falls back when it fails', async () => {
    const seen: unknown[] = [];
    const custom = secureSchema(SDL, resolvers, {
      createError: (denial) => {
        seen.push(denial);
        return new GraphQLError('nope', { extensions: { code: `X_${denial.code}` } });
      },
    });
    const result = await run(custom, '{ admin }', null);
    expect(result.errors?.[0]?.message).toBe('nope');
    expect(denials(result)).toEqual({ admin: 'X_UNAUTHENTICATED' });
    expect(seen).toEqual([
      {
        code: 'UNAUTHENTICATED',
        status: 401,
        coordinate: 'Query.admin',
        rule: "hasRole('ADMIN')",
        path: ['admin'],
        message: 'Authentication is required',
      },
    ]);
    for (const createError of [
      () => {
        throw new Error('bug');
      },
      () => 'not an error' as unknown as Error,
    ]) {
      const fallback = await run(secureSchema(SDL, resolvers, { createError }), '{ admin }', ALICE);
      expect(denials(fallback)).toEqual({ admin: 'FORBIDDEN' });
    }
  });

  it('publishes access-denied events with the coordinate and no credential', async () => {
    const events = new SecurityEvents();
    const seen: SecurityEvent[] = [];
    events.on('access-denied', (e) => {
      seen.push(e);
    });
    const schema = secureSchema(SDL, resolvers, { events });
    await run(schema, '{ admin }', ALICE);
    await run(schema, '{ admin }', null);
    expect(seen).toEqual([
      {
        type: 'access-denied',
        username: 'alice',
        rule: "Query.admin → hasRole('ADMIN')",
        // The client's address: run() makes the context as createGraphQLContext does for a request.
        request: { method: 'GRAPHQL', path: 'Query.admin', clientAddress: '127.0.0.1' },
      },
      expect.objectContaining({ type: 'access-denied', username: null }),
    ]);
  });

  it('still denies when the event publisher throws', async () => {
    const broken = {
      hasListeners: true,
      publish: () => {
        throw new Error('publisher failure');
      },
    } as unknown as SecurityEvents;
    const result = await run(secureSchema(SDL, resolvers, { events: broken }), '{ admin }', ALICE);
    expect(denials(result)).toEqual({ admin: 'FORBIDDEN' });
  });
});

describe('configuration', () => {
  it('refuses unknown and malformed options', () => {
    const bad: unknown[] = [
      { defaultPolicy: 'denyall' },
      { defaultPolicys: 'denyAll' },
      { user: 'user' },
      { debug: 'yes' },
      { events: {} },
      { createError: 'x' },
      { functions: 1 },
      null,
    ];
    for (const options of bad) {
      expect(() => securityDirectives(options as never)).toThrow(ConfigurationError);
    }
    try {
      securityDirectives({ defaultPolicys: 'denyAll' } as never);
    } catch (error) {
      expect((error as ConfigurationError).code).toBe('ERR_INVALID_OPTION');
      expect((error as Error).message).toContain('defaultPolicy');
    }
  });

  it("names 'denyAll' for tRPC's former 'deny' policy", () => {
    expect(() => securityDirectives({ defaultPolicy: 'deny' } as never)).toThrow(
      expect.objectContaining({
        option: 'defaultPolicy',
        message: expect.stringContaining('(did you mean "denyAll"?)') as unknown,
      }),
    );
  });

  it('refuses a value that is not a schema, and a schema transformed twice', () => {
    const { transformer } = securityDirectives();
    expect(() => transformer({} as unknown as GraphQLSchema)).toThrow(ConfigurationError);
    const once = secureSchema(SDL, resolvers);
    expect(() => transformer(once)).toThrow(/already went through/u);
  });

  it('reads directives that code-first schemas put in extensions.directives', async () => {
    const query = new GraphQLObjectType({
      name: 'Query',
      fields: {
        open: { type: GraphQLString, resolve: () => 'open' },
        admin: {
          type: GraphQLString,
          resolve: () => 'admin',
          extensions: { directives: { secured: { roles: ['ADMIN'] } } },
        },
      },
    });
    const schema = securityDirectives().transformer(new GraphQLSchema({ query }));
    const result = await run(schema, '{ open admin }', ALICE);
    expect(result.data).toEqual({ open: 'open', admin: null });
    expect(denials(result)).toEqual({ admin: 'FORBIDDEN' });
  });
});
