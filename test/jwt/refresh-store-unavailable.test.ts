import { describe, expect, it } from 'vitest';
import { StoreUnavailableError, UnavailableError, User } from '../../src/index.js';
import {
  JwtConfig,
  JwtTokenService,
  MemoryRefreshTokenStore,
  RefreshStoreFullError,
  type RefreshTokenStore,
} from '../../src/jwt/index.js';
import { SECRET, recordEvents, testClock } from './support.js';

const ALICE = new User('alice', '', ['USER'], []);

/** A memory store whose every method first goes through `gate` (a failure or a hang). */
function gated(gate: () => Promise<void>): RefreshTokenStore {
  const memory = new MemoryRefreshTokenStore();
  return {
    rotate: (rotation) => gate().then(() => memory.rotate(rotation)),
    revokeFamily: (family, until, now) =>
      gate().then(() => memory.revokeFamily(family, until, now)),
    revokeUser: (name, at, until) => gate().then(() => memory.revokeUser(name, at, until)),
    revocationState: (family, name, now) =>
      gate().then(() => memory.revocationState(family, name, now)),
  };
}

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('a refresh-token store that cannot answer fails closed', () => {
  it('a rejecting store: StoreUnavailableError (503) on refresh, revokeFamily and revokeUser', async () => {
    const store = gated(() => Promise.reject(new Error('ECONNRESET')));
    const service = new JwtTokenService(new JwtConfig(SECRET).clock(testClock()), { store });
    const pair = await service.generateTokenPair(ALICE);
    for (const run of [
      () => service.refresh(pair.refreshToken, () => ALICE),
      () => service.revokeFamily(pair.refreshToken),
      () => service.revokeUser('alice'),
    ]) {
      const error = await failureOf(run);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ store: 'refresh-token' });
    }
  });

  it('a hung store: DeadlineExceededError past storeTimeoutMs and a deadline event', async () => {
    const { events, received } = recordEvents();
    const store = gated(() => new Promise<void>(() => undefined));
    const service = new JwtTokenService(new JwtConfig(SECRET).clock(testClock()), {
      store,
      events,
      storeTimeoutMs: 50,
    });
    const pair = await service.generateTokenPair(ALICE);
    const error = await failureOf(() => service.refresh(pair.refreshToken, () => ALICE));
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({
      code: 'ERR_DEADLINE_EXCEEDED',
      operation: 'refresh-revocation-check',
      timeoutMs: 50,
    });
    expect(received).toContainEqual(
      expect.objectContaining({ type: 'deadline-exceeded', operation: 'refresh-revocation-check' }),
    );
  });

  it('a hung rotation (after the revocation check answered): DeadlineExceededError', async () => {
    let hang = false;
    const store = gated(() => (hang ? new Promise<void>(() => undefined) : Promise.resolve()));
    const memory = store.revocationState.bind(store);
    store.revocationState = (family, name, now) => {
      const answer = memory(family, name, now);
      hang = true;
      return answer;
    };
    const service = new JwtTokenService(new JwtConfig(SECRET).clock(testClock()), {
      store,
      storeTimeoutMs: 50,
    });
    const pair = await service.generateTokenPair(ALICE);
    const error = await failureOf(() => service.refresh(pair.refreshToken, () => ALICE));
    expect(error).toMatchObject({ code: 'ERR_DEADLINE_EXCEEDED', operation: 'refresh-rotation' });
  });

  it('a full memory store is an UnavailableError (503), not a bad token', async () => {
    const store = new MemoryRefreshTokenStore({ maxEntries: 1 });
    const service = new JwtTokenService(new JwtConfig(SECRET).clock(testClock()), { store });
    const first = await service.generateTokenPair(ALICE);
    const second = await service.generateTokenPair(ALICE);
    await service.refresh(first.refreshToken, () => ALICE);
    const error = await failureOf(() => service.refresh(second.refreshToken, () => ALICE));
    expect(error).toBeInstanceOf(RefreshStoreFullError);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).retryAfter).toBeGreaterThanOrEqual(1);
  });
});
