import { describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import { checkOperation, createGraphQLContext } from '../../src/graphql/index.js';
import { DeadlineExceededError, type Authenticator } from '../../src/index.js';
import { ALICE, run, secureSchema } from './schema.js';

const never = <T>(): Promise<T> =>
  new Promise<T>(() => {
    // never settles
  });

const hungSchema = () =>
  secureSchema(
    'type Query { pager: String @preAuthorize(expr: "onCall()") open: String @permitAll }',
    { Query: { pager: () => 'paged', open: () => 'open' } },
    {
      functions: {
        onCall: { params: [], async: true, timeoutMs: 50, call: () => never<boolean>() },
      },
    },
  );

describe('GraphQL: a dependency that never answers fails closed (SERVICE_UNAVAILABLE, 503)', () => {
  it('an async @preAuthorize function that never settles: the field fails with SERVICE_UNAVAILABLE, no hang', async () => {
    const result = await run(hungSchema(), '{ pager open }', ALICE);
    expect(result.data).toEqual({ pager: null, open: 'open' });
    expect(result.errors).toHaveLength(1);
    const [error] = result.errors ?? [];
    expect(error?.message).toBe('The service is unavailable, try again later');
    const { code, http } = error?.extensions as unknown as {
      code: string;
      http: { status: number; headers: Map<string, string> };
    };
    expect(code).toBe('SERVICE_UNAVAILABLE');
    expect(http.status).toBe(503);
    // A Map for Apollo Server, with own properties for GraphQL Yoga.
    expect(http.headers).toBeInstanceOf(Map);
    expect(http.headers.get('retry-after')).toBe('5');
    expect(Object.assign({}, http.headers)).toEqual({ 'retry-after': '5' });
    expect(error?.path).toEqual(['pager']);
  });

  it('checkOperation answers the same error instead of rejecting', async () => {
    const errors = await checkOperation({
      schema: hungSchema(),
      document: parse('{ pager }'),
      contextValue: { user: ALICE },
    });
    expect(errors.map((e) => e.extensions['code'])).toEqual(['SERVICE_UNAVAILABLE']);
  });

  it('createGraphQLContext: an UnavailableError from the authenticator is a 503 GraphQLError, not anonymous', async () => {
    const down: Authenticator = {
      getUser: () => Promise.reject(new DeadlineExceededError('user-store', 100)),
    };
    const security = createGraphQLContext({ authenticator: down });
    const request = new Request('http://127.0.0.1/graphql');
    await expect(security(request)).rejects.toMatchObject({
      extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503 } },
    });
  });

  it('createGraphQLContext: an authenticator that never answers is cut at authenticationTimeoutMs', async () => {
    const hung: Authenticator = { getUser: () => never() };
    const security = createGraphQLContext({ authenticator: hung, authenticationTimeoutMs: 30 });
    const started = Date.now();
    await expect(security(new Request('http://127.0.0.1/graphql'))).rejects.toMatchObject({
      extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503 } },
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(() =>
      createGraphQLContext({ authenticator: hung, authenticationTimeoutMs: -1 }),
    ).toThrow(expect.objectContaining({ option: 'authenticationTimeoutMs' }));
  });
});
