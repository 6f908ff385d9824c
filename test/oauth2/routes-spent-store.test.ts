import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError, SecurityEvents } from '../../src/index.js';
import { oauth2Login } from '../../src/oauth2/index.js';
import type { SecurityRoutes } from '../../src/index.js';
import { MemorySpentIdStore, type SpentIdStore } from '../../src/stores/index.js';
import {
  callback,
  CookieJar,
  fetchHarness,
  type Fixture,
  GOOD_CODE,
  type Harness,
  HARNESS_KINDS,
  harnessOf,
  makeFixture,
  refusedCheck,
  sessionUser,
  setCookieOf,
  startLogin,
} from './routes-support.js';

/** A second instance of the routes over the same clients, sessions and clock as `fixture`. */
function secondInstance(fixture: Fixture, spentTransactions?: SpentIdStore): SecurityRoutes {
  return oauth2Login({
    clients: [fixture.google, fixture.github],
    sessions: fixture.sessions,
    events: new SecurityEvents(),
    clock: fixture.clock.now,
    ...(spentTransactions === undefined ? {} : { spentTransactions }),
  });
}

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

describe.each(HARNESS_KINDS)('a shared spent-transaction store (%s)', (kind) => {
  const closedAfter = async (login: SecurityRoutes): Promise<Harness> => {
    const harness = await harnessOf(kind, login);
    harnesses.push(harness);
    return harness;
  };

  it('a callback replayed with a copied transaction cookie on another instance is refused', async () => {
    const shared = new MemorySpentIdStore();
    const fixture = makeFixture({ spentTransactions: shared });
    const a = await closedAfter(fixture.login);
    const b = await closedAfter(secondInstance(fixture, shared));
    let jar = new CookieJar();
    const { state } = await startLogin(a, jar);
    const copy = jar.copy();
    const ok = await callback(a, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    expect(ok.location).toBe('/');
    expect(await sessionUser(fixture.sessions, jar)).toBe('google:google-subject');

    jar = copy;
    const before = fixture.received.length;
    const replay = await callback(b, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    expect(replay.status).toBe(303);
    expect(replay.location).toBe('/login?error=oauth2');
    expect(setCookieOf(replay, '__Host-session')).toBeUndefined();
    expect(await sessionUser(fixture.sessions, jar)).toBeNull();
    // The client (the provider's code exchange) is never reached by the replay.
    expect(fixture.google.calls).toHaveLength(1);
    // B publishes to its own events; A's saw nothing more.
    expect(fixture.received.length).toBe(before);
  });

  it('the other way round, and the first spend wins whichever instance it was on', async () => {
    const shared = new MemorySpentIdStore();
    const fixture = makeFixture({ spentTransactions: shared });
    const a = await closedAfter(fixture.login);
    const b = await closedAfter(secondInstance(fixture, shared));
    let jar = new CookieJar();
    const { state } = await startLogin(a, jar);
    const copy = jar.copy();
    expect((await callback(b, jar, 'google', `code=${GOOD_CODE}&state=${state}`)).location).toBe(
      '/',
    );
    jar = copy;
    const before = fixture.received.length;
    const replay = await callback(a, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    await refusedCheck(fixture, jar, replay, 'ERR_OAUTH2_TRANSACTION', before);
  });

  it('an asynchronous store works the same', async () => {
    const memory = new MemorySpentIdStore();
    const remote: SpentIdStore = {
      spend: (id, until) =>
        new Promise((resolve) => {
          setImmediate(() => {
            resolve(memory.spend(id, until));
          });
        }),
    };
    const fixture = makeFixture({ spentTransactions: remote });
    const a = await closedAfter(fixture.login);
    const b = await closedAfter(secondInstance(fixture, remote));
    let jar = new CookieJar();
    const { state } = await startLogin(a, jar);
    const copy = jar.copy();
    expect((await callback(a, jar, 'google', `code=${GOOD_CODE}&state=${state}`)).location).toBe(
      '/',
    );
    jar = copy;
    const replay = await callback(b, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    expect(replay.location).toBe('/login?error=oauth2');
    expect(fixture.google.calls).toHaveLength(1);
  });
});

describe('a spent-transaction store that cannot answer fails closed', () => {
  const cases: Record<string, { store: SpentIdStore; timeoutMs?: number }> = {
    rejecting: { store: { spend: () => Promise.reject(new Error('ECONNREFUSED')) } },
    throwing: {
      store: {
        spend: () => {
          throw new Error('ECONNREFUSED');
        },
      },
    },
    hung: { store: { spend: () => new Promise<boolean>(() => undefined) }, timeoutMs: 50 },
    'answering garbage': { store: { spend: () => 'yes' as unknown as boolean } },
    full: { store: new MemorySpentIdStore({ maxEntries: 1, clock: () => 0 }) },
  };

  for (const [name, { store, timeoutMs }] of Object.entries(cases)) {
    it(`${name}: 503 with Retry-After, nobody logged in, the provider never called`, async () => {
      if (name === 'full') await store.spend('taken', Number.MAX_SAFE_INTEGER);
      const fixture = makeFixture({
        spentTransactions: store,
        ...(timeoutMs === undefined ? {} : { storeTimeoutMs: timeoutMs }),
      });
      const harness = fetchHarness(fixture.login);
      harnesses.push(harness);
      const jar = new CookieJar();
      const { state } = await startLogin(harness, jar);
      const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
      expect(reply.status).toBe(503);
      expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(setCookieOf(reply, '__Host-session')).toBeUndefined();
      expect(await sessionUser(fixture.sessions, jar)).toBeNull();
      expect(fixture.google.calls).toHaveLength(0);
    });
  }
});

describe('spentTransactions options', () => {
  it('refuses what is not a store, and maxSpentTransactions beside a given store', () => {
    expect(() => makeFixture({ spentTransactions: {} as SpentIdStore })).toThrow(
      expect.objectContaining({ option: 'spentTransactions' }),
    );
    expect(() =>
      makeFixture({ spentTransactions: new MemorySpentIdStore(), maxSpentTransactions: 500 }),
    ).toThrow(ConfigurationError);
    expect(() => makeFixture({ storeTimeoutMs: 0 })).toThrow(
      expect.objectContaining({ option: 'storeTimeoutMs' }),
    );
  });
});
