/**
 * The all-or-nothing operation check over HTTP: graphql-http with
 * `withOperationCheck(execute)`, Yoga with `useOperationCheck()`, Apollo with a
 * plugin calling `checkOperation` in `didResolveOperation`. An operation that
 * reaches one denied field gets no data, only the denials, and no resolver runs.
 */
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkOperation, type GraphQLUserContext } from '../../src/graphql/index.js';
import {
  calls,
  closeAll,
  codes,
  createSchema,
  headersOf,
  post,
  SERVERS,
  startServers,
  type Answer,
  type GraphQLServer,
  type ServerName,
} from './support.js';

const U = 'UNAUTHENTICATED';
const F = 'FORBIDDEN';

/**
 * The status of a refused operation: graphql-http answers 200 to any execution
 * result (application/json); Yoga uses `extensions.http.status`; the Apollo plugin
 * sets 401 or 403 itself.
 */
const REFUSED: Record<ServerName, { anonymous: number; user: number }> = {
  'graphql-http': { anonymous: 200, user: 200 },
  yoga: { anonymous: 401, user: 403 },
  apollo: { anonymous: 401, user: 403 },
};

/**
 * An Apollo Server plugin for the all-or-nothing check: `didResolveOperation`
 * checks every protected field the operation reaches; `responseForOperation`
 * then answers with all the denials instead of executing.
 */
function apolloOperationCheck(): ApolloServerPlugin<GraphQLUserContext> {
  return {
    requestDidStart: () => {
      let denied: readonly GraphQLFormattedError[] = [];
      let status = 200;
      return Promise.resolve({
        async didResolveOperation({ schema, document, request, operationName, contextValue }) {
          const errors = await checkOperation({
            schema,
            document,
            variableValues: request.variables,
            operationName,
            contextValue,
          });
          status = errors.some((e) => e.extensions['code'] === 'FORBIDDEN') ? 403 : 401;
          // The body keeps `code`; the status goes in the HTTP head, as Apollo does.
          denied = errors.map((error) => ({
            ...error.toJSON(),
            extensions: Object.fromEntries(
              Object.entries(error.extensions).filter(([key]) => key !== 'http'),
            ),
          }));
        },
        responseForOperation: () =>
          Promise.resolve(
            denied.length === 0
              ? null
              : {
                  http: { status, headers: new HeaderMap() },
                  body: { kind: 'single' as const, singleResult: { errors: denied } },
                },
          ),
      });
    },
  };
}

let servers: readonly GraphQLServer[] = [];
beforeAll(async () => {
  servers = await startServers(createSchema(), apolloOperationCheck());
});
afterAll(() => closeAll(servers));
beforeEach(() => {
  calls.clear();
});

describe.each(SERVERS)('%s', (name) => {
  const url = (): string => servers.find((s) => s.name === name)!.url;

  it('refuses a query with one denied field as a whole: no data, no resolver', async () => {
    const answer = await post(url(), '{ open securedOne rolesAllowed securedList }', {
      who: 'user',
    });
    expect(answer.status).toBe(REFUSED[name].user);
    expect(answer).not.toHaveProperty('data');
    expect(codes(answer)).toEqual({ securedList: F });
    expect(answer.errors?.[0]?.locations).toEqual([{ line: 1, column: 32 }]);
    expect(calls.size).toBe(0);
  });

  it('lists every denial, with aliases and paths, for an anonymous caller', async () => {
    const answer = await post(url(), '{ open a: securedOne b: denyAll posts { secret } }');
    expect(answer.status).toBe(REFUSED[name].anonymous);
    expect(answer).not.toHaveProperty('data');
    expect(codes(answer)).toEqual({ a: U, b: U, 'posts.secret': U });
    expect(calls.size).toBe(0);
  });

  it('refuses a mutation whose selection reaches a denied field before it runs', async () => {
    const answer = await post(url(), 'mutation { createPost(title: "t") { id secret } }', {
      who: 'writer',
    });
    expect(answer).not.toHaveProperty('data');
    expect(codes(answer)).toEqual({ 'createPost.secret': F });
    expect(calls.get('createPost')).toBeUndefined();
  });

  it('sees denied fields behind fragments and interfaces', async () => {
    const query = `{ open nodes { ...N } } fragment N on Node { ... on Article { internal } }`;
    const answer = await post(url(), query, { who: 'writer' });
    expect(answer).not.toHaveProperty('data');
    expect(codes(answer)).toEqual({ 'nodes.internal': F });
    expect(calls.size).toBe(0);
  });

  it('checks ownership arguments from the variables', async () => {
    const rename = 'mutation ($a: String!) { renamePost(authorId: $a, title: "t") }';
    const denied = await post(url(), rename, { who: 'writer', variables: { a: 'user' } });
    expect(denied).not.toHaveProperty('data');
    expect(codes(denied)).toEqual({ renamePost: F });
    expect(calls.get('renamePost')).toBeUndefined();
    const allowed = await post(url(), rename, { who: 'writer', variables: { a: 'writer' } });
    expect(allowed.data).toEqual({ renamePost: "writer renamed writer's post to t" });
    expect(calls.get('renamePost')).toBe(1);
  });

  it('follows @skip and @include: a skipped denied field does not refuse the operation', async () => {
    const query = 'query ($admin: Boolean!) { open securedList @include(if: $admin) }';
    const skipped = await post(url(), query, { who: 'user', variables: { admin: false } });
    expect(skipped.status).toBe(200);
    expect(skipped.data).toEqual({ open: 'user' });
    const included = await post(url(), query, { who: 'user', variables: { admin: true } });
    expect(included).not.toHaveProperty('data');
    expect(codes(included)).toEqual({ securedList: F });
    expect(calls.get('open')).toBe(1);
  });

  it('checks each alias of one field with its own arguments', async () => {
    const query = '{ mine: postsBy(authorId: "user") theirs: postsBy(authorId: "writer") }';
    const answer = await post(url(), query, { who: 'user' });
    expect(answer).not.toHaveProperty('data');
    expect(codes(answer)).toEqual({ theirs: F });
  });

  it('checks only the operation the request names', async () => {
    const document = 'query Mine { open } query Theirs { open securedList }';
    const mine = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headersOf('user') },
      body: JSON.stringify({ query: document, operationName: 'Mine' }),
    });
    expect(await mine.json()).toEqual({ data: { open: 'user' } });
    const theirs = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headersOf('user') },
      body: JSON.stringify({ query: document, operationName: 'Theirs' }),
    });
    expect(codes((await theirs.json()) as Answer)).toEqual({ securedList: F });
    expect(calls.get('open')).toBe(1);
  });

  it('runs an operation that is allowed as a whole', async () => {
    const answer = await post(url(), '{ open securedList posts { secret } }', { who: 'admin' });
    expect(answer.status).toBe(200);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      open: 'admin',
      securedList: 'admin',
      posts: [{ secret: 'secret p1' }, { secret: 'secret p2' }],
    });
  });
});
