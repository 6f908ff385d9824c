import { describe, expect, it } from 'vitest';
import {
  AuthenticatedUser,
  ConfigurationError,
  SecurityEvents,
  User,
  type Authenticator,
  type SecurityEvent,
} from '../../src/index.js';
import { createGraphQLContext } from '../../src/graphql/index.js';
import { run, secureSchema } from './schema.js';

const tokens: Authenticator = {
  authenticationMethod: 'token',
  getUser: (request) => {
    return request.header('authorization') === 'Token good'
      ? new User('alice', 'unused').withRoles(['USER'])
      : null;
  },
};

const nodeRequest = (headers: Record<string, string>) => ({
  method: 'POST',
  url: '/graphql',
  headers,
  socket: { remoteAddress: '127.0.0.9' },
});

describe('createGraphQLContext', () => {
  const security = createGraphQLContext({ authenticator: tokens });

  it('finds the request however the server hands it over', async () => {
    const good = { authorization: 'Token good' };
    const fetchRequest = new Request('http://127.0.0.1/graphql', { headers: good });
    const inputs: unknown[] = [
      nodeRequest(good), // graphql-http's req.raw, Apollo's req, Express
      fetchRequest, // Fetch servers
      { req: nodeRequest(good) }, // Apollo Server's context argument
      { raw: nodeRequest(good), headers: {}, context: {} }, // graphql-http's request
      { request: fetchRequest, params: {} }, // GraphQL Yoga's initial context
      { request: fetchRequest, req: nodeRequest(good) }, // Yoga on node: req has the address
    ];
    for (const input of inputs) {
      const context = await security(input as never);
      expect(context.user).toBeInstanceOf(AuthenticatedUser);
      expect(context.user?.username).toBe('alice');
      expect(context.user?.authenticationMethod).toBe('token');
    }
  });

  it('gives user null for a missing or bad credential', async () => {
    expect((await security(nodeRequest({}) as never)).user).toBeNull();
    expect((await security(nodeRequest({ authorization: 'Token bad' }) as never)).user).toBeNull();
  });

  it('reads graphql-ws connectionParams only from a WebSocket context', async () => {
    const ws = {
      extra: { request: nodeRequest({}) },
      connectionParams: { authorization: 'Token good' },
    };
    expect((await security(ws as never)).user?.username).toBe('alice');
    // The upgrade request's own header wins over connectionParams.
    const both = {
      extra: { request: nodeRequest({ authorization: 'Token bad' }) },
      connectionParams: { authorization: 'Token good' },
    };
    expect((await security(both as never)).user).toBeNull();
    // connectionParams next to a plain HTTP request are not read.
    const http = { req: nodeRequest({}), connectionParams: { authorization: 'Token good' } };
    expect((await security(http as never)).user).toBeNull();
    const none = createGraphQLContext({ authenticator: tokens, connectionParams: false });
    expect((await none(ws as never)).user).toBeNull();
  });

  it('records the client address for access-denied events', async () => {
    const events = new SecurityEvents();
    const denied: SecurityEvent[] = [];
    events.on('access-denied', (e) => {
      denied.push(e);
    });
    const schema = secureSchema(
      'type Query { a: Int @secured(roles: "ADMIN") }',
      { Query: { a: () => 1 } },
      { events },
    );
    const context = await security(nodeRequest({ authorization: 'Token good' }) as never);
    const { graphql } = await import('graphql');
    await graphql({ schema, source: '{ a }', contextValue: { ...context, extra: 1 } });
    expect(denied).toEqual([
      expect.objectContaining({
        username: 'alice',
        request: { method: 'GRAPHQL', path: 'Query.a', clientAddress: '127.0.0.9' },
      }),
    ]);
    expect((await run(schema, '{ a }', null)).errors).toHaveLength(1);
  });

  it('counts an authenticator that throws as a failed authentication', async () => {
    const events = new SecurityEvents();
    const failures: SecurityEvent[] = [];
    events.on('authentication-failure', (e) => {
      failures.push(e);
    });
    const throwing = createGraphQLContext({
      authenticator: {
        getUser: () => {
          throw new Error('token service down: secret=abc');
        },
      },
      events,
    });
    expect((await throwing(nodeRequest({}) as never)).user).toBeNull();
    expect(failures).toHaveLength(1);
    expect(JSON.stringify(failures)).not.toContain('secret=abc');
    const misconfigured = createGraphQLContext({
      authenticator: {
        getUser: () => {
          throw new ConfigurationError('passwordEncoder', 'is not set');
        },
      },
    });
    await expect(misconfigured(nodeRequest({}) as never)).rejects.toThrow(ConfigurationError);
  });

  it('refuses input without a request, and bad options', async () => {
    await expect(security({ nothing: true } as never)).rejects.toThrow(ConfigurationError);
    await expect(security(null as never)).rejects.toThrow(ConfigurationError);
    for (const options of [
      {},
      { authenticator: {} },
      { authenticator: tokens, events: {} },
      { authenticator: tokens, connectionParams: [''] },
      { authenticator: tokens, extra: 1 },
      null,
    ]) {
      expect(() => createGraphQLContext(options as never)).toThrow(ConfigurationError);
    }
    expect(() => createGraphQLContext({ authenticator: tokens, challenge: [] } as never)).toThrow(
      'challenge: is not an option of createGraphQLContext (did you mean "challenges"?)',
    );
    expect(() => createGraphQLContext({ authenticator: tokens, challenges: ['a\nb'] })).toThrow(
      expect.objectContaining({ name: 'ConfigurationError', option: 'challenges[0]' }),
    );
    expect(() =>
      createGraphQLContext({ authenticator: tokens, authenticationTimeoutMs: 0 }),
    ).toThrow(expect.objectContaining({ option: 'authenticationTimeoutMs' }));
    // tRPC's own options are not GraphQL's.
    expect(() => createGraphQLContext({ authenticator: tokens, router: {} } as never)).toThrow(
      expect.objectContaining({ option: 'router' }),
    );
    await expect(security({ nothing: true } as never)).rejects.toThrow(
      'createGraphQLContext: found no request',
    );
  });
});
