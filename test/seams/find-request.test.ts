/**
 * "Which kind of request is this?" answered once (`findRequest`), for the tRPC and
 * GraphQL context factories, the session operations and the Fastify plugin: every
 * shape each accepted before, every refusal kept. And a graphql-ws operation is
 * authenticated each time, even on an upgrade request the pipeline let through.
 */
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  ConfigurationError,
  SecurityTransform,
  User,
  type Authenticator,
} from '../../src/index.js';
import { createGraphQLContext as graphqlContext } from '../../src/graphql/index.js';
import { findRequest, viewOf } from '../../src/http/find-request.js';
import { nodeRequestView } from '../../src/http/request-views.js';
import { toRequest } from '../../src/session/request.js';

/** A real node request with the given URL and header lines. */
function nodeRequest(url: string, headers: Record<string, string> = {}): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.url = url;
  req.method = 'GET';
  for (const [name, value] of Object.entries(headers)) {
    req.headers[name] = value;
    req.rawHeaders.push(name, value);
  }
  return req;
}

const fetchRequest = new Request('https://api.test/graphql', { headers: { 'x-a': '1' } });

describe('findRequest', () => {
  it('finds a Fetch Request and a node request directly', () => {
    expect(findRequest(fetchRequest, { holders: false })).toEqual({
      kind: 'fetch',
      request: fetchRequest,
    });
    const req = nodeRequest('/a');
    expect(findRequest(req, { holders: false })).toEqual({ kind: 'node', request: req });
  });

  it("reads a Fastify-like request through its raw node request (the client's URL)", () => {
    const raw = nodeRequest('/api/items');
    const fastifyLike = { headers: {}, socket: raw.socket, url: '/items', raw };
    const found = findRequest(fastifyLike, { holders: false });
    expect(found?.request).toBe(raw);
    expect(viewOf(found!).path).toBe('/api/items');
  });

  it('looks through req, raw and request holders, three deep, only when asked', () => {
    const req = nodeRequest('/deep');
    expect(findRequest({ req }, { holders: false })).toBeUndefined();
    expect(findRequest({ req }, { holders: true })?.request).toBe(req);
    expect(findRequest({ raw: { request: fetchRequest } }, { holders: true })?.request).toBe(
      fetchRequest,
    );
    expect(findRequest({ req: { raw: { request: req } } }, { holders: true })?.request).toBe(req);
    expect(findRequest({ req: { raw: { request: { req } } } }, { holders: true })).toBeUndefined();
  });

  it("takes graphql-ws's upgrade request with the holder of its connectionParams", () => {
    const req = nodeRequest('/graphql', { upgrade: 'websocket' });
    const context = { extra: { request: req }, connectionParams: { authorization: 'Bearer x' } };
    const found = findRequest(context, { holders: true });
    expect(found).toEqual({ kind: 'node', request: req, params: context });
  });

  it('finds nothing in what is no request', () => {
    for (const input of [null, undefined, 'GET /', 42, {}, { req: 'x' }, { headers: {} }]) {
      expect(findRequest(input, { holders: true })).toBeUndefined();
    }
  });
});

describe('the refusals are kept', () => {
  it('the session operations refuse a holder and anything else but a request', () => {
    const error = (() => {
      try {
        toRequest({ req: nodeRequest('/') } as never);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).option).toBe('request');
    const view = nodeRequestView(nodeRequest('/x'));
    expect(toRequest(view)).toBe(view);
    expect(toRequest(fetchRequest).url).toBe('https://api.test/graphql');
  });

  it('the GraphQL context factory refuses what holds no request', async () => {
    const security = graphqlContext({ authenticator: { getUser: () => null } });
    await expect(security({ body: {} } as never)).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe('graphql-ws operations', () => {
  it('are authenticated each time, even when the pipeline passed the upgrade request', async () => {
    let calls = 0;
    const authenticator: Authenticator = {
      getUser: (request) => {
        calls += 1;
        return request.header('authorization') === 'Bearer ok' ? new User('alice', 'x') : null;
      },
    };
    const transform = new SecurityTransform()
      .configAuthenticator(() => authenticator)
      .configAuthorizer(() => AuthorizationManager.requestMatcher().anyRequest(Access.permitAll()));
    const req = nodeRequest('/graphql', { upgrade: 'websocket', authorization: 'Bearer ok' });
    expect(transform.handle(nodeRequestView(req))).toMatchObject({ proceed: true });
    expect(calls).toBe(1);
    const security = graphqlContext({ authenticator });
    const context = { extra: { request: req }, connectionParams: {} };
    expect((await security(context)).user?.username).toBe('alice');
    expect((await security(context)).user?.username).toBe('alice');
    expect(calls).toBe(3);
  });
});
