import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthenticatedUser, ConfigurationError, SecurityContext, User } from '../../src/index.js';
import { JwtConfig } from '../../src/jwt/index.js';
import { MemoryRevocationStore } from '../../src/stores/index.js';
import {
  executeAs,
  manualClock,
  mockUser,
  runAs,
  sessionCookieFor,
  testJwt,
} from '../../src/testing/index.js';

describe('mockUser', () => {
  it("is 'user' with the role USER by default, as Spring's @WithMockUser", () => {
    const user = mockUser();
    expect(user).toBeInstanceOf(AuthenticatedUser);
    expect(user.toJSON()).toEqual({
      username: 'user',
      roles: ['USER'],
      authorities: [],
      authenticationMethod: 'mock',
    });
    expect(user.getPassword()).toBe('');
    expect(Object.isFrozen(user)).toBe(true);
  });

  it('takes roles, authorities, attributes and the authentication method', () => {
    const user = mockUser('ann', {
      roles: ['ADMIN'],
      authorities: ['users:write'],
      attributes: { tenant: 't1' },
      authenticationMethod: 'jwt',
    });
    expect(user.hasRole('ADMIN')).toBe(true);
    expect(user.hasRole('USER')).toBe(false);
    expect(user.hasAuthority('users:write')).toBe(true);
    expect(user.attributes['tenant']).toBe('t1');
    expect(user.authenticationMethod).toBe('jwt');
    expect(mockUser('nobody', { roles: [] }).roles.size).toBe(0);
  });

  it('refuses what a User refuses, with the same errors', () => {
    const same = (make: () => unknown, real: () => unknown) => {
      let expected: unknown;
      try {
        real();
      } catch (error) {
        expected = error;
      }
      expect(expected).toBeInstanceOf(ConfigurationError);
      expect(make).toThrow((expected as Error).message);
    };
    same(
      () => mockUser('ann', { roles: [''] }),
      () => new User('ann', '', ['']),
    );
    same(
      () => mockUser('ann', { roles: 'ADMIN' as never }),
      () => new User('ann', '', 'ADMIN' as never),
    );
    same(
      () => mockUser('ann', { authorities: ['a\nb'] }),
      () => new User('ann', '', [], ['a\nb']),
    );
    same(
      () => mockUser(''),
      () => new User('', ''),
    );
  });

  it('refuses an unknown option instead of ignoring it', () => {
    expect(() => mockUser('ann', { role: ['ADMIN'] } as never)).toThrow(/did you mean "roles"/u);
  });
});

describe('runAs', () => {
  it('runs sync and async code with the user in the SecurityContext', async () => {
    const ann = mockUser('ann');
    expect(runAs(ann, () => SecurityContext.requireUser())).toBe(ann);
    const name = await runAs(ann, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return SecurityContext.requireUser().username;
    });
    expect(name).toBe('ann');
    expect(runAs(null, () => SecurityContext.getUser())).toBeNull();
    expect(SecurityContext.getUser()).toBeNull();
  });

  it('refuses a User, which is an account and not an authenticated user', () => {
    const fn = vi.fn(() => undefined);
    expect(() => {
      runAs(new User('ann', '', ['ADMIN']) as never, fn);
    }).toThrow(/AuthenticatedUser\.from\(user\).*mockUser\(\)/u);
    expect(fn).not.toHaveBeenCalled();
  });
});

describe('manualClock', () => {
  it('is a clock function that the test sets and advances', () => {
    const clock = manualClock(1_000);
    expect(clock()).toBe(1_000);
    expect(clock.now()).toBe(1_000);
    clock.advance(500);
    expect(clock()).toBe(1_500);
    clock.advance('2m');
    expect(clock.now()).toBe(121_500);
    clock.advance(-1_500);
    expect(clock()).toBe(120_000);
    clock.set(new Date(5_000));
    expect(clock()).toBe(5_000);
    clock.set(7);
    expect(clock()).toBe(7);
  });

  it('starts at the real time by default', () => {
    const before = Date.now();
    const now = manualClock()();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('refuses times and steps that are not whole milliseconds', () => {
    const clock = manualClock(0);
    expect(() => {
      clock.set(1.5);
    }).toThrow(ConfigurationError);
    expect(() => {
      clock.set(new Date(Number.NaN));
    }).toThrow(ConfigurationError);
    expect(() => {
      clock.advance('soon' as never);
    }).toThrow(/'15m'/u);
    expect(() => {
      clock.advance(-1);
    }).toThrow(ConfigurationError);
    expect(clock()).toBe(0);
  });

  it('is accepted where portcullis takes a clock', () => {
    const clock = manualClock(10_000);
    expect(() => new JwtConfig('a-secret-of-at-least-32-bytes-long!!').clock(clock)).not.toThrow();
    const store = new MemoryRevocationStore({ clock });
    store.revoke('jti-1', 20_000);
    expect(store.isRevoked('jti-1', undefined, 0)).toBe('id');
    clock.advance(10_000);
    expect(store.isRevoked('jti-1', undefined, 0)).toBe(false);
  });
});

describe('with NODE_ENV=production', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('refuses every helper that makes a user or a credential; the clock still works', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    const refused = /refuses to run with NODE_ENV=production/u;
    expect(() => mockUser()).toThrow(refused);
    expect(() => runAs(null, () => 1)).toThrow(refused);
    await expect(testJwt()).rejects.toThrow(refused);
    const user = AuthenticatedUser.from(new User('ann', ''));
    await expect(sessionCookieFor(user, { passwords: { 1: 'x'.repeat(32) } })).rejects.toThrow(
      refused,
    );
    await expect(executeAs({ schema: null as never, source: '{a}', user })).rejects.toThrow(
      refused,
    );
    expect(manualClock(5)()).toBe(5);
    vi.stubEnv('NODE_ENV', 'test');
    expect(mockUser().username).toBe('user');
  });
});
