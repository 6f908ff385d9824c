import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  StoreUnavailableError,
  type AuthenticationOutcome,
  type CredentialsAuthenticator,
  type User,
} from '../../src/index.js';
import { MemoryRefreshTokenStore } from '../../src/jwt/index.js';
import {
  ADAPTERS,
  bodyOf,
  endpointsOf,
  json,
  makeFixture,
  mount,
  tokensOf,
  type Fixture,
  type Harness,
} from './support.js';

const never = <T>(): Promise<T> =>
  new Promise<T>(() => {
    // never settles
  });

/** An authenticator over a user database that is down: every check fails unchecked. */
const databaseDown: CredentialsAuthenticator = {
  attemptCredentials: () => Promise.reject(new StoreUnavailableError('postgres', 'find-user', 3)),
};

/** An authenticator whose database never answers. */
const databaseHung: CredentialsAuthenticator = {
  attemptCredentials: () => never<AuthenticationOutcome>(),
};

describe.each(ADAPTERS)('token endpoints when a dependency fails (%s)', (kind) => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  const expectUnavailable = (
    reply: { status: number; headers: Record<string, string>; body: string },
    retryAfter: string,
  ) => {
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe(retryAfter);
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(bodyOf({ ...reply })).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'Try again later',
    });
  };

  it('an authenticator rejecting with UnavailableError gives 503 with Retry-After', async () => {
    harness = await mount(kind, endpointsOf(makeFixture(), { authenticator: databaseDown }));
    const reply = await harness.send(
      '/auth/login',
      json({ username: 'alice', password: 'alice-pw' }),
    );
    expectUnavailable(reply, '3');
    expect(reply.body).not.toContain('postgres');
  });

  it('a hung authenticator gives 503 at timeoutMs, with a deadline-exceeded event', async () => {
    const fixture = makeFixture();
    harness = await mount(
      kind,
      endpointsOf(fixture, { authenticator: databaseHung, timeoutMs: 100 }),
    );
    const reply = await harness.send(
      '/auth/login',
      json({ username: 'alice', password: 'alice-pw' }),
    );
    expectUnavailable(reply, '5');
    expect(fixture.received).toContainEqual(
      expect.objectContaining({
        type: 'deadline-exceeded',
        operation: 'token-login',
        timeoutMs: 100,
      }),
    );
  });

  it('a user repository that is down or hangs fails the refresh closed; the token stays good', async () => {
    const fixture = makeFixture();
    let state: 'down' | 'broken' | 'hung' | 'up' = 'up';
    const repository = {
      findByUsername: (name: string): User | null | Promise<User | null> => {
        if (state === 'down')
          return Promise.reject(new StoreUnavailableError('postgres', 'find-user'));
        if (state === 'broken')
          return Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:5432'));
        if (state === 'hung') return never();
        return fixture.users.get(name) ?? null;
      },
    };
    harness = await mount(kind, endpointsOf(fixture, { users: repository, timeoutMs: 1000 }));
    const { refresh_token } = tokensOf(
      await harness.send('/auth/login', json({ username: 'alice', password: 'alice-pw' })),
    );
    state = 'down';
    expectUnavailable(await harness.send('/auth/refresh', json({ refresh_token })), '1');
    state = 'broken';
    const broken = await harness.send('/auth/refresh', json({ refresh_token }));
    expectUnavailable(broken, '5');
    expect(broken.body).not.toContain('ECONNREFUSED');
    state = 'hung';
    expectUnavailable(await harness.send('/auth/refresh', json({ refresh_token })), '5');
    expect(fixture.received).toContainEqual(
      expect.objectContaining({ type: 'deadline-exceeded', operation: 'token-refresh' }),
    );
    // Nothing was spent while the repository was away: the same token refreshes now.
    state = 'up';
    fixture.clock.advance(60_000);
    expect((await harness.send('/auth/refresh', json({ refresh_token }))).status).toBe(200);
  });

  it('a full refresh store gives 503, not a 500', async () => {
    const fixture = makeFixture({ store: new MemoryRefreshTokenStore({ maxEntries: 1 }) });
    harness = await mount(kind, endpointsOf(fixture));
    const login = () =>
      harness!.send('/auth/login', json({ username: 'alice', password: 'alice-pw' }));
    const first = tokensOf(await login());
    const second = tokensOf(await login());
    expect(
      (await harness.send('/auth/refresh', json({ refresh_token: first.refresh_token }))).status,
    ).toBe(200);
    const full = await harness.send('/auth/refresh', json({ refresh_token: second.refresh_token }));
    expectUnavailable(full, '5');
  });
});

describe('a signing key that fails', () => {
  let fixture: Fixture;
  let harness: Harness;
  beforeAll(async () => {
    fixture = makeFixture();
    const failing = {
      generateTokenPair: () => Promise.reject(new Error('HSM unavailable: key=secret')),
      refresh: () => Promise.reject(new Error('HSM unavailable: key=secret')),
    };
    harness = await mount('node', endpointsOf(fixture, { tokens: failing }));
  });
  afterAll(() => harness.close());

  it('is a 500 in plain text without the cause (a server fault, not the client input)', async () => {
    const reply = await harness.send(
      '/auth/login',
      json({ username: 'alice', password: 'alice-pw' }),
    );
    expect(reply.status).toBe(500);
    expect(reply.headers['content-type']).toMatch(/^text\/plain/u);
    expect(reply.body).not.toContain('secret');
    // Bad credentials are answered before any token is made.
    const bad = await harness.send('/auth/login', json({ username: 'alice', password: 'nope' }));
    expect(bad.status).toBe(400);
  });
});
