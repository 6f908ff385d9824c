import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  Access,
  AuthenticationManager,
  AuthorizationManager,
  ConfigurationError,
  DeadlineExceededError,
  SecurityTransform,
  UnavailableError,
  User,
  compileExpression,
  createSecurityRequest,
  type Authenticator,
  type SecurityOutcome,
} from '../../src/index.js';
import { recordEvents } from '../support/events.js';

const request = (url: string, headers: Record<string, string> = {}) =>
  createSecurityRequest({
    method: 'GET',
    url,
    header: (name) => headers[name],
    clientAddress: '203.0.113.9',
  });

const never = <T>(): Promise<T> =>
  new Promise<T>(() => {
    // never settles
  });

const bob = new User('bob', 'x').withRoles(['USER']);

/** Tracks whether a promise settled, so a hang fails an assertion instead of the test timeout. */
function track<T>(value: T | Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let settled = false;
  const result = Promise.resolve(value).finally(() => {
    settled = true;
  });
  return { settled: () => settled, result };
}

const failedClosed = (outcome: SecurityOutcome) => {
  if (outcome.proceed) throw new Error('expected the request to be refused');
  return outcome.response;
};

describe('SecurityTransform deadlines (a hung dependency fails closed)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers 503 with Retry-After when a custom authenticator never resolves, not 401 and no hang', async () => {
    const { events, received } = recordEvents();
    const hung: Authenticator = { getUser: () => never() };
    const transform = new SecurityTransform({ events, deadlines: { authenticationMs: 2_000 } })
      .configAuthenticator(() => hung)
      .configAuthorizer(() =>
        AuthorizationManager.requestMatcher()
          .httpBasic()
          .addMatcher('/api/.*', Access.authenticated()),
      );
    const outcome = track(transform.handle(request('/api/x', { accept: 'application/json' })));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(outcome.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.settled()).toBe(true);
    const response = failedClosed(await outcome.result);
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(response.body)).toEqual({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
    });
    expect(received).toEqual([
      {
        type: 'deadline-exceeded',
        operation: 'authentication',
        timeoutMs: 2_000,
        request: { method: 'GET', path: '/api/x', clientAddress: '203.0.113.9' },
      },
    ]);
  });

  it('uses a default deadline of 10 seconds for the whole authentication', async () => {
    const transform = new SecurityTransform().configAuthenticator(() => ({
      getUser: () => never(),
    }));
    const outcome = track(transform.handle(request('/')));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(outcome.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(failedClosed(await outcome.result).status).toBe(503);
  });

  it('fails closed on an UnavailableError from an authenticator instead of going on as anonymous', async () => {
    const { events, received } = recordEvents();
    const down: Authenticator = {
      getUser: () => Promise.reject(new UnavailableError('store down', 30)),
    };
    const outcome = await new SecurityTransform({ events })
      .configAuthenticator(() => down)
      .handle(request('/'));
    const response = failedClosed(outcome);
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('30');
    expect(response.body).toBe('Service Unavailable');
    expect(received.some((e) => e.type === 'authentication-failure')).toBe(false);
  });

  it('fails closed when a synchronous authenticator throws a DeadlineExceededError', () => {
    const outcome = new SecurityTransform()
      .configAuthenticator(() => ({
        getUser: () => {
          throw new DeadlineExceededError('user-store', 50);
        },
      }))
      .handle(request('/'));
    expect(failedClosed(outcome as SecurityOutcome).status).toBe(503);
  });

  it('answers 503 when an asynchronous expression function never settles (no 403, no grant, no hang)', async () => {
    const { events, received } = recordEvents();
    const onCall = compileExpression("onCall('ops')", {
      functions: { onCall: { params: ['string'], async: true, call: () => never<boolean>() } },
      events,
    });
    const transform = new SecurityTransform({ events })
      .configAuthenticator(() => ({ getUser: () => bob }))
      .configAuthorizer(() =>
        AuthorizationManager.requestMatcher().addMatcher('/pager', Access.expression(onCall)),
      );
    const outcome = track(transform.handle(request('/pager')));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(outcome.settled()).toBe(true);
    const response = failedClosed(await outcome.result);
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(received).toContainEqual({
      type: 'deadline-exceeded',
      operation: 'expression-function:onCall',
      timeoutMs: 5_000,
      request: undefined,
    });
    expect(received.some((e) => e.type === 'access-denied')).toBe(false);
  });

  it("honours a function's own timeoutMs and the transform's authorization deadline", async () => {
    const slow = compileExpression("slow('x')", {
      functions: {
        slow: { params: ['string'], async: true, timeoutMs: 100, call: () => never<boolean>() },
      },
    });
    const transform = new SecurityTransform()
      .configAuthenticator(() => ({ getUser: () => bob }))
      .configAuthorizer(() =>
        AuthorizationManager.requestMatcher().addMatcher('/x', Access.expression(slow)),
      );
    const own = track(transform.handle(request('/x')));
    await vi.advanceTimersByTimeAsync(100);
    expect(failedClosed(await own.result).status).toBe(503);

    const { events, received } = recordEvents();
    const hungAuthorizer = new SecurityTransform({
      events,
      deadlines: { authorizationMs: 300 },
    }).configAuthorizer(() => ({ authorize: () => never() }));
    const whole = track(hungAuthorizer.handle(request('/y')));
    await vi.advanceTimersByTimeAsync(300);
    expect(failedClosed(await whole.result).status).toBe(503);
    expect(received.map((e) => e.type === 'deadline-exceeded' && e.operation)).toEqual([
      'authorization',
    ]);
  });

  it('leaves the synchronous path synchronous (no timer, no promise)', () => {
    const outcome = new SecurityTransform()
      .configAuthenticator(() => ({ getUser: () => bob }))
      .handle(request('/'));
    expect(outcome).not.toBeInstanceOf(Promise);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('clears its timer when the authentication settles in time', async () => {
    const outcome = await new SecurityTransform()
      .configAuthenticator(() => ({ getUser: () => Promise.resolve(bob) }))
      .handle(request('/'));
    expect(outcome.proceed && outcome.user?.username).toBe('bob');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails closed through anyOf when no other authenticator finds a user', async () => {
    const hung: Authenticator = {
      getUser: () => Promise.reject(new DeadlineExceededError('jwks', 100)),
    };
    const other: Authenticator = { getUser: () => null };
    const transform = new SecurityTransform().configAuthenticator(() =>
      AuthenticationManager.anyOf(hung, other),
    );
    expect(failedClosed(await transform.handle(request('/'))).status).toBe(503);
    const found = await new SecurityTransform()
      .configAuthenticator(() => AuthenticationManager.anyOf(hung, { getUser: () => bob }))
      .handle(request('/'));
    expect(found.proceed && found.user?.username).toBe('bob');
  });
});

describe('SecurityTransform deadline options', () => {
  it('refuses deadlines that are not whole milliseconds in range, and unknown names', () => {
    for (const bad of [0, -1, 1.5, 600_001, Number.NaN]) {
      expect(() => new SecurityTransform({ deadlines: { authenticationMs: bad } })).toThrow(
        ConfigurationError,
      );
    }
    expect(() => new SecurityTransform().configDeadlines({ authorizationMs: 0 })).toThrow(
      /deadlines\.authorizationMs/u,
    );
    expect(
      () => new SecurityTransform({ deadlines: { authenticationTimeout: 5 } as never }),
    ).toThrow(/authenticationTimeout/u);
    expect(() =>
      compileExpression("f('x')", {
        functions: { f: { params: ['string'], call: () => true, timeoutMs: 5 } as never },
      }),
    ).toThrow(ConfigurationError);
  });
});
