import { decodeJwt } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { SecurityEvents, User, type SecurityEvent } from '../../src/index.js';
import {
  JwtConfig,
  JwtError,
  JwtTokenService,
  MemoryRefreshTokenStore,
  type JwtTokenServiceOptions,
  type RefreshTokenStore,
} from '../../src/jwt/index.js';
import { GraceMemo } from '../../src/jwt/grace-memo.js';

const SECRET = 'token-service-test-secret-0123456789abcdef';
const T0 = Date.UTC(2030, 0, 1, 12);

function setup(options: JwtTokenServiceOptions = {}) {
  const clock = { now: T0 };
  const config = new JwtConfig(SECRET).clock(() => clock.now);
  const seen: SecurityEvent[] = [];
  const events = new SecurityEvents();
  events.on('*', (event) => {
    seen.push(event);
  });
  const service = new JwtTokenService(config, { events, ...options });
  const users = new Map([
    ['alice', new User('alice', '', ['USER'])],
    ['bob', new User('bob', '', ['USER'])],
  ]);
  const loadUser = vi.fn((name: string) => users.get(name) ?? null);
  const alice = users.get('alice') as User;
  const bob = users.get('bob') as User;
  return { clock, config, service, loadUser, alice, bob, events: seen };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JwtError);
  return (error as JwtError).code;
}

/** A promise resolved from outside. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('refresh-token rotation: reuse detection', () => {
  it('a spent token presented after the grace window revokes the whole family', async () => {
    const { service, clock, loadUser, alice, events } = setup();
    const login = await service.generateRefreshToken(alice);
    const first = await service.refresh(login, loadUser);
    const second = await service.refresh(first.refreshToken, loadUser);
    clock.now += 11_000;
    expect(await codeOf(service.refresh(login, loadUser))).toBe('ERR_JWT_REFRESH_REUSED');
    // The newest token of the family is refused too: the thief and the owner are both out.
    expect(await codeOf(service.refresh(second.refreshToken, loadUser))).toBe('ERR_JWT_REVOKED');
    expect(await codeOf(service.refresh(first.refreshToken, loadUser))).toBe('ERR_JWT_REVOKED');
    expect(events).toContainEqual({
      type: 'authentication-failure',
      username: 'alice',
      authenticationMethod: 'jwt-refresh',
      reason: 'token-reused',
      request: undefined,
    });
  });

  it('the thief refreshing first makes the owner trip the detection', async () => {
    const { service, clock, loadUser, alice } = setup();
    const stolen = await service.generateRefreshToken(alice);
    const thief = await service.refresh(stolen, loadUser);
    clock.now += 60_000;
    expect(await codeOf(service.refresh(stolen, loadUser))).toBe('ERR_JWT_REFRESH_REUSED'); // the owner
    expect(await codeOf(service.refresh(thief.refreshToken, loadUser))).toBe('ERR_JWT_REVOKED');
  });

  it('with graceSeconds 0 the second use of a token is reuse, however soon', async () => {
    const { service, loadUser, alice } = setup({ graceSeconds: 0 });
    const login = await service.generateRefreshToken(alice);
    const next = await service.refresh(login, loadUser);
    expect(await codeOf(service.refresh(login, loadUser))).toBe('ERR_JWT_REFRESH_REUSED');
    expect(await codeOf(service.refresh(next.refreshToken, loadUser))).toBe('ERR_JWT_REVOKED');
  });

  it('with graceSeconds 0, of two concurrent refreshes one wins and the family is revoked', async () => {
    const { service, loadUser, alice } = setup({ graceSeconds: 0 });
    const login = await service.generateRefreshToken(alice);
    const results = await Promise.allSettled([
      service.refresh(login, loadUser),
      service.refresh(login, loadUser),
    ]);
    const codes = results.map((r) =>
      r.status === 'rejected' ? (r.reason as JwtError).code : 'ok',
    );
    expect(codes.sort()).toEqual(['ERR_JWT_REFRESH_REUSED', 'ok']);
  });

  it('a token two rotations old is reuse even within the grace window', async () => {
    const { service, clock, loadUser, alice } = setup();
    const login = await service.generateRefreshToken(alice);
    const first = await service.refresh(login, loadUser);
    clock.now += 11_000;
    const second = await service.refresh(first.refreshToken, loadUser);
    expect(await codeOf(service.refresh(login, loadUser))).toBe('ERR_JWT_REFRESH_REUSED');
    expect(await codeOf(service.refresh(second.refreshToken, loadUser))).toBe('ERR_JWT_REVOKED');
  });

  it('a revoked family leaves the other families of the user alone', async () => {
    const { service, clock, loadUser, alice } = setup();
    const laptop = await service.generateRefreshToken(alice);
    const phone = await service.generateRefreshToken(alice);
    await service.refresh(laptop, loadUser);
    clock.now += 11_000;
    expect(await codeOf(service.refresh(laptop, loadUser))).toBe('ERR_JWT_REFRESH_REUSED');
    await expect(service.refresh(phone, loadUser)).resolves.toMatchObject({ tokenType: 'Bearer' });
  });
});

describe('refresh-token rotation: grace window', () => {
  it('two concurrent refreshes of one token get the same pair', async () => {
    const { service, loadUser, alice } = setup();
    const login = await service.generateRefreshToken(alice);
    const [a, b] = await Promise.all([
      service.refresh(login, loadUser),
      service.refresh(login, loadUser),
    ]);
    expect(b).toBe(a);
    expect(loadUser).toHaveBeenCalledTimes(1);
    await expect(service.refresh(a.refreshToken, loadUser)).resolves.toBeTruthy(); // not revoked
  });

  it('a refresh joins one still being computed', async () => {
    const { service, alice } = setup();
    const login = await service.generateRefreshToken(alice);
    const slow = gate();
    const loadUser = vi.fn(async (name: string) => {
      await slow.promise;
      return new User(name, '', ['USER']);
    });
    const lookups = vi.spyOn(GraceMemo.prototype, 'get');
    const first = service.refresh(login, loadUser);
    await vi.waitFor(() => {
      expect(loadUser).toHaveBeenCalledTimes(1);
    });
    const second = service.refresh(login, loadUser);
    await vi.waitFor(() => {
      expect(lookups).toHaveBeenCalledTimes(2); // the second refresh found the first in flight
    });
    slow.open();
    const [a, b] = await Promise.all([first, second]);
    expect(b).toBe(a);
    expect(loadUser).toHaveBeenCalledTimes(1);
    lookups.mockRestore();
  });

  it('a retry within the window gets the same pair; at the end of the window it is reuse', async () => {
    const { service, clock, loadUser, alice } = setup({ graceSeconds: 10 });
    const login = await service.generateRefreshToken(alice);
    const pair = await service.refresh(login, loadUser);
    clock.now += 9_999;
    expect(await service.refresh(login, loadUser)).toBe(pair);
    clock.now += 1;
    expect(await codeOf(service.refresh(login, loadUser))).toBe('ERR_JWT_REFRESH_REUSED');
    expect(await codeOf(service.refresh(pair.refreshToken, loadUser))).toBe('ERR_JWT_REVOKED');
  });

  it('a joined refresh is refused once the family was revoked', async () => {
    const { service, loadUser, alice } = setup();
    const login = await service.generateRefreshToken(alice);
    const pair = await service.refresh(login, loadUser);
    await service.revokeFamily(pair.refreshToken);
    expect(await codeOf(service.refresh(login, loadUser))).toBe('ERR_JWT_REVOKED');
  });

  it('joiners of a failed refresh get its error, and the failure is not remembered', async () => {
    const { service, loadUser, alice } = setup();
    const login = await service.generateRefreshToken(alice);
    const slow = gate();
    let calls = 0;
    const flaky = async (name: string) => {
      calls++;
      if (calls > 1) return loadUser(name);
      await slow.promise;
      throw new Error('database down');
    };
    const lookups = vi.spyOn(GraceMemo.prototype, 'get');
    const results = Promise.allSettled([
      service.refresh(login, flaky),
      service.refresh(login, flaky),
    ]);
    await vi.waitFor(() => {
      expect(lookups).toHaveBeenCalledTimes(2);
    });
    lookups.mockRestore();
    slow.open();
    expect((await results).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    await expect(service.refresh(login, flaky)).resolves.toMatchObject({ tokenType: 'Bearer' });
  });

  it('across processes sharing a store: refused within the window without revoking, reuse after it', async () => {
    const store = new MemoryRefreshTokenStore();
    const one = setup({ store });
    const clock = one.clock;
    const config = new JwtConfig(SECRET).clock(() => clock.now);
    const other = new JwtTokenService(config, { store }); // another process, same store
    const login = await one.service.generateRefreshToken(one.alice);
    const pair = await one.service.refresh(login, one.loadUser);
    const { fam } = decodeJwt(login) as { fam: string };
    clock.now += 5_000;
    expect(await codeOf(other.refresh(login, one.loadUser))).toBe('ERR_JWT_REFRESH_REUSED');
    expect(await store.revocationState(fam, 'alice', clock.now)).toMatchObject({
      familyRevoked: false, // a benign race: the family is kept
    });
    clock.now += 5_000;
    expect(await codeOf(other.refresh(login, one.loadUser))).toBe('ERR_JWT_REFRESH_REUSED');
    expect(await codeOf(one.service.refresh(pair.refreshToken, one.loadUser))).toBe(
      'ERR_JWT_REVOKED',
    );
  });
});

describe('revocation', () => {
  it('revokeFamily (logout) refuses every token of the family, newest included', async () => {
    const { service, loadUser, alice, bob } = setup();
    const login = await service.generateRefreshToken(alice);
    const pair = await service.refresh(login, loadUser);
    const other = await service.generateRefreshToken(bob);
    await service.revokeFamily(login);
    expect(await codeOf(service.refresh(pair.refreshToken, loadUser))).toBe('ERR_JWT_REVOKED');
    await expect(service.refresh(other, loadUser)).resolves.toBeTruthy();
  });

  it('revokeFamily needs a valid refresh token', async () => {
    const { service, alice } = setup();
    const access = await service.generateToken(alice);
    expect(await codeOf(service.revokeFamily(access))).toBe('ERR_JWT_WRONG_TYPE');
    expect(await codeOf(service.revokeFamily('not.a.token'))).toBe('ERR_JWT_MALFORMED');
  });

  it('revokeUser (logout everywhere) refuses the families started before it', async () => {
    const { service, clock, loadUser, alice, bob } = setup();
    const laptop = await service.generateRefreshToken(alice);
    clock.now += 60_000;
    const phone = await service.refresh(await service.generateRefreshToken(alice), loadUser);
    const bobs = await service.generateRefreshToken(bob);
    clock.now += 1;
    await service.revokeUser('alice');
    const sameInstant = await service.generateRefreshToken(alice);
    clock.now += 1_000;
    const later = await service.generateRefreshToken(alice);
    expect(await codeOf(service.refresh(laptop, loadUser))).toBe('ERR_JWT_REVOKED');
    expect(await codeOf(service.refresh(phone.refreshToken, loadUser))).toBe('ERR_JWT_REVOKED');
    await expect(service.refresh(bobs, loadUser)).resolves.toBeTruthy();
    await expect(service.refresh(sameInstant, loadUser)).resolves.toBeTruthy();
    const next = await service.refresh(later, loadUser);
    await expect(service.refresh(next.refreshToken, loadUser)).resolves.toBeTruthy();
    await expect(service.revokeUser('')).rejects.toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION' }),
    );
  });
});

describe('the store', () => {
  it('receives ids, usernames and times, never a token', async () => {
    const inner = new MemoryRefreshTokenStore();
    const calls: unknown[][] = [];
    const store: RefreshTokenStore = {
      rotate: (r) => (calls.push([r]), inner.rotate(r)),
      revokeFamily: (...a) => (calls.push(a), inner.revokeFamily(...a)),
      revokeUser: (...a) => (calls.push(a), inner.revokeUser(...a)),
      revocationState: (...a) => (calls.push(a), inner.revocationState(...a)),
    };
    const { service, clock, loadUser, alice } = setup({ store });
    const login = await service.generateRefreshToken(alice);
    const pair = await service.refresh(login, loadUser);
    clock.now += 11_000;
    await service.refresh(login, loadUser).catch(() => undefined);
    await service.revokeUser('alice');
    const text = JSON.stringify(calls);
    for (const part of [...login.split('.'), ...pair.refreshToken.split('.')]) {
      expect(text).not.toContain(part);
    }
    const { fam, jti } = decodeJwt(login) as { fam: string; jti: string };
    expect(calls).toContainEqual([expect.objectContaining({ family: fam, jti, nowMs: T0 })]);
  });

  it('keeps one record per family however often it rotates', async () => {
    const store = new MemoryRefreshTokenStore();
    const { service, clock, loadUser, alice } = setup({ store });
    let token = await service.generateRefreshToken(alice);
    expect(store.size).toBe(0);
    for (let i = 0; i < 20; i++) {
      clock.now += 60_000;
      token = (await service.refresh(token, loadUser)).refreshToken;
    }
    expect(store.size).toBe(1);
  });
});
