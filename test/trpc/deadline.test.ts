import { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthenticatedUser, compileExpression, User, type Authenticator } from '../../src/index.js';
import {
  authenticated,
  createTrpcContext,
  preAuthorize,
  securityResponseMeta,
} from '../../src/trpc/index.js';
import { t } from './fixture.js';

const never = <T>(): Promise<T> =>
  new Promise<T>(() => {
    // never settles
  });

const alice = AuthenticatedUser.from(new User('alice', '', ['USER']));

describe('tRPC: a dependency that never answers fails the call closed (SERVICE_UNAVAILABLE, 503)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an authenticator that never resolves: 503 after the authentication deadline, not 401, no hang', async () => {
    const router = t.router({
      me: t.procedure.use(authenticated()).query(({ ctx }) => ctx.user.username),
    });
    const hung: Authenticator = { getUser: () => never() };
    const createContext = createTrpcContext({ authenticator: hung });
    let settled = false;
    const response = fetchRequestHandler({
      endpoint: '/trpc',
      req: new Request('http://127.0.0.1/trpc/me'),
      router,
      createContext,
      responseMeta: securityResponseMeta(),
    }).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(9_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    const answer = await response;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    const body = (await answer.json()) as { error: { data: { code: string } } };
    expect(body.error.data.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('authenticationTimeoutMs sets the deadline (and is validated)', async () => {
    const router = t.router({
      me: t.procedure.use(authenticated()).query(({ ctx }) => ctx.user.username),
    });
    const hung: Authenticator = { getUser: () => never() };
    const createContext = createTrpcContext({
      authenticator: hung,
      authenticationTimeoutMs: 200,
    });
    let settled = false;
    const response = fetchRequestHandler({
      endpoint: '/trpc',
      req: new Request('http://127.0.0.1/trpc/me'),
      router,
      createContext,
    }).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(199);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await response).status).toBe(503);
    expect(() => createTrpcContext({ authenticator: hung, authenticationTimeoutMs: 0 })).toThrow(
      expect.objectContaining({ option: 'authenticationTimeoutMs' }),
    );
  });

  it('an async expression function that never settles: SERVICE_UNAVAILABLE, not FORBIDDEN', async () => {
    const rule = compileExpression('onCall()', {
      functions: {
        onCall: { params: [], async: true, timeoutMs: 50, call: () => never<boolean>() },
      },
    });
    const router = t.router({ pager: t.procedure.use(preAuthorize(rule)).query(() => 'ok') });
    const call = router.createCaller({ user: alice }).pager();
    const failure = call.then(
      () => undefined,
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(50);
    const error = await failure;
    expect(error).toBeInstanceOf(TRPCError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect((error as TRPCError).cause).toMatchObject({ code: 'ERR_DEADLINE_EXCEEDED' });
  });
});
