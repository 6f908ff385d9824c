import { describe, expect, it } from 'vitest';
import { ConfigurationError, PortcullisError, User } from '../../src/index.js';
import {
  JwtConfig,
  JwtError,
  JwtTokenService,
  MemoryRefreshTokenStore,
  RefreshStoreFullError,
  type RefreshRotation,
} from '../../src/jwt/index.js';

const T0 = Date.UTC(2030, 0, 1, 12);
const HOUR = 3_600_000;

function rotation(family: string, jti: string, nextJti: string, nowMs = T0): RefreshRotation {
  return { family, jti, nextJti, expiresAtMs: nowMs + HOUR, nowMs };
}

describe('MemoryRefreshTokenStore: rotation', () => {
  it('rotates a family from its login token along its chain', async () => {
    const store = new MemoryRefreshTokenStore();
    expect(await store.rotate(rotation('f', 'a', 'b'))).toEqual({ status: 'rotated' });
    expect(await store.rotate(rotation('f', 'b', 'c', T0 + 5))).toEqual({ status: 'rotated' });
    expect(await store.rotate(rotation('f', 'b', 'x', T0 + 9))).toEqual({
      status: 'reused',
      spentAtMs: T0 + 5,
    });
    expect(await store.rotate(rotation('f', 'a', 'x', T0 + 9))).toEqual({
      status: 'reused',
      spentAtMs: undefined,
    });
    expect(await store.rotate(rotation('f', 'c', 'd', T0 + 9))).toEqual({ status: 'rotated' });
  });

  it('lets exactly one of two concurrent rotations of a token win', async () => {
    const store = new MemoryRefreshTokenStore();
    await store.rotate(rotation('f', 'a', 'b'));
    const outcomes = await Promise.all([
      store.rotate(rotation('f', 'b', 'c1')),
      store.rotate(rotation('f', 'b', 'c2')),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['reused', 'rotated']);
  });

  it('refuses every rotation of a revoked family', async () => {
    const store = new MemoryRefreshTokenStore();
    await store.rotate(rotation('f', 'a', 'b'));
    await store.revokeFamily('f', T0 + HOUR, T0);
    expect(await store.rotate(rotation('f', 'b', 'c'))).toEqual({ status: 'revoked' });
    await store.revokeFamily('never-rotated', T0 + HOUR, T0);
    expect(await store.rotate(rotation('never-rotated', 'a', 'b'))).toEqual({ status: 'revoked' });
    expect(await store.revocationState('f', 'alice', T0)).toEqual({
      familyRevoked: true,
      userRevokedAtMs: undefined,
    });
  });

  it('keeps the latest user revocation', async () => {
    const store = new MemoryRefreshTokenStore();
    await store.revokeUser('alice', T0 + 10, T0 + HOUR);
    await store.revokeUser('alice', T0 + 5, T0 + HOUR);
    expect(await store.revocationState('f', 'alice', T0 + 20)).toEqual({
      familyRevoked: false,
      userRevokedAtMs: T0 + 10,
    });
    expect((await store.revocationState('f', 'bob', T0 + 20)).userRevokedAtMs).toBeUndefined();
  });

  it('drops records once their tokens have expired, and not before', async () => {
    const store = new MemoryRefreshTokenStore();
    await store.rotate(rotation('f', 'a', 'b'));
    await store.revokeFamily('g', T0 + HOUR, T0);
    await store.revokeUser('alice', T0, T0 + HOUR);
    const before = T0 + HOUR - 1;
    expect(await store.rotate(rotation('f', 'a', 'x', before))).toMatchObject({ status: 'reused' });
    expect(await store.revocationState('g', 'alice', before)).toEqual({
      familyRevoked: true,
      userRevokedAtMs: T0,
    });
    expect(await store.revocationState('g', 'alice', T0 + HOUR)).toEqual({
      familyRevoked: false,
      userRevokedAtMs: undefined,
    });
    expect(store.size).toBe(1);
  });

  it('keeps a rotated family at least as long as its newest token', async () => {
    const store = new MemoryRefreshTokenStore();
    await store.rotate({
      family: 'f',
      jti: 'a',
      nextJti: 'b',
      expiresAtMs: T0 + 2 * HOUR,
      nowMs: T0,
    });
    await store.rotate({ family: 'f', jti: 'b', nextJti: 'c', expiresAtMs: T0 + HOUR, nowMs: T0 });
    expect(await store.rotate(rotation('f', 'a', 'x', T0 + HOUR + 1))).toMatchObject({
      status: 'reused',
    });
  });
});

describe('MemoryRefreshTokenStore: bounds (fail closed)', () => {
  it('refuses a new record when full of live ones, and forgets no spent token', async () => {
    const store = new MemoryRefreshTokenStore({ maxEntries: 2 });
    await store.rotate(rotation('f1', 'a', 'b'));
    await store.rotate(rotation('f2', 'a', 'b'));
    const error: unknown = await store.rotate(rotation('f3', 'a', 'b')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RefreshStoreFullError);
    expect(error).toBeInstanceOf(PortcullisError);
    expect(error).toMatchObject({
      code: 'ERR_STORE_FULL',
      store: 'memory refresh-token store',
      maxEntries: 2,
    });
    await expect(store.revokeFamily('f3', T0 + HOUR, T0)).rejects.toBeInstanceOf(
      RefreshStoreFullError,
    );
    await expect(store.revokeUser('alice', T0, T0 + HOUR)).rejects.toBeInstanceOf(
      RefreshStoreFullError,
    );
    // The spent tokens are still known, and the known families still rotate and revoke.
    expect(await store.rotate(rotation('f1', 'a', 'x'))).toMatchObject({ status: 'reused' });
    expect(await store.rotate(rotation('f2', 'b', 'c'))).toEqual({ status: 'rotated' });
    await store.revokeFamily('f1', T0 + HOUR, T0);
    expect(await store.rotate(rotation('f1', 'b', 'c'))).toEqual({ status: 'revoked' });
    expect(store.size).toBe(2);
  });

  it('makes room once records expire', async () => {
    const store = new MemoryRefreshTokenStore({ maxEntries: 2 });
    await store.rotate(rotation('f1', 'a', 'b'));
    await store.rotate({
      family: 'f2',
      jti: 'a',
      nextJti: 'b',
      expiresAtMs: T0 + 3 * HOUR,
      nowMs: T0,
    });
    await expect(store.rotate(rotation('f3', 'a', 'b', T0 + HOUR - 1))).rejects.toBeInstanceOf(
      RefreshStoreFullError,
    );
    expect(await store.rotate(rotation('f3', 'a', 'b', T0 + HOUR))).toEqual({ status: 'rotated' });
    expect(await store.rotate(rotation('f2', 'a', 'x', T0 + HOUR))).toMatchObject({
      status: 'reused',
    });
    await expect(store.rotate(rotation('f4', 'a', 'b', T0 + HOUR))).rejects.toBeInstanceOf(
      RefreshStoreFullError,
    );
  });

  it('validates its options', () => {
    for (const maxEntries of [0, -1, 1.5, Number.NaN]) {
      expect(() => new MemoryRefreshTokenStore({ maxEntries })).toThrow(
        expect.objectContaining({ option: 'maxEntries' }),
      );
    }
    expect(() => new MemoryRefreshTokenStore({ maxEntry: 5 } as never)).toThrow(ConfigurationError);
  });
});

describe('JwtTokenService with a full store', () => {
  it('refuses the refresh (not a JwtError), issues nothing, and keeps reuse detection', async () => {
    const clock = { now: T0 };
    const config = new JwtConfig('token-service-test-secret-0123456789abcdef').clock(
      () => clock.now,
    );
    const store = new MemoryRefreshTokenStore({ maxEntries: 1 });
    const service = new JwtTokenService(config, { store });
    const alice = new User('alice', '', ['USER']);
    const loadUser = () => alice;
    const first = await service.generateRefreshToken(alice);
    const second = await service.generateRefreshToken(alice); // logins need no record
    await service.refresh(first, loadUser);
    const error: unknown = await service.refresh(second, loadUser).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RefreshStoreFullError);
    expect(error).not.toBeInstanceOf(JwtError);
    clock.now += 11_000;
    const reuse: unknown = await service.refresh(first, loadUser).catch((e: unknown) => e);
    expect(reuse).toMatchObject({ code: 'ERR_JWT_REFRESH_REUSED' });
  });
});
