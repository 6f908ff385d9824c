import { describe, expect, it } from 'vitest';
import { Access } from '../../src/authorization/index.js';
import { ConfigurationError } from '../../src/core/index.js';
import { thrown, user } from './helpers.js';

describe('Access', () => {
  it('requires an authenticated user by default', () => {
    const access = new Access();
    expect(access.check(null)).toBe('unauthenticated');
    expect(access.check(user())).toBe('granted');
    expect(String(access)).toBe('isAuthenticated()');
    expect(String(Access.authenticated())).toBe('isAuthenticated()');
    expect(new Access().authenticated().check(null)).toBe('unauthenticated');
  });

  it('permitAll grants everyone, anonymous users too', () => {
    for (const access of [new Access().permitAll(), Access.permitAll()]) {
      expect(access.check(null)).toBe('granted');
      expect(access.check(user())).toBe('granted');
      expect(String(access)).toBe('permitAll');
    }
  });

  it('denyAll sends anonymous users to the entry point and forbids authenticated ones', () => {
    for (const access of [new Access().denyAll(), Access.denyAll()]) {
      expect(access.check(null)).toBe('unauthenticated');
      expect(access.check(user(['ADMIN'], ['everything']))).toBe('forbidden');
      expect(String(access)).toBe('denyAll');
    }
  });

  it('roles requires any one of the roles, exactly and case-sensitively', () => {
    const access = new Access().roles(['ADMIN', 'OPS']);
    expect(access.check(null)).toBe('unauthenticated');
    expect(access.check(user(['OPS']))).toBe('granted');
    expect(access.check(user(['ADMIN']))).toBe('granted');
    expect(access.check(user(['USER']))).toBe('forbidden');
    expect(access.check(user(['admin']))).toBe('forbidden');
    expect(access.check(user(['ROLE_ADMIN']))).toBe('forbidden');
    expect(access.check(user([], ['ADMIN']))).toBe('forbidden');
    expect(String(access)).toBe("hasAnyRole('ADMIN', 'OPS')");
    expect(String(Access.roles(['X']))).toBe("hasAnyRole('X')");
  });

  it('authorities requires any one of the authorities', () => {
    const access = Access.authorities(['users:read', 'users:write']);
    expect(access.check(user([], ['users:write']))).toBe('granted');
    expect(access.check(user(['users:write']))).toBe('forbidden');
    expect(access.check(null)).toBe('unauthenticated');
    expect(String(access)).toBe("hasAnyAuthority('users:read', 'users:write')");
  });

  it('roles and authorities together require both', () => {
    const access = new Access().roles(['ADMIN']).authorities(['users:write']);
    expect(access.check(user(['ADMIN'], ['users:write']))).toBe('granted');
    expect(access.check(user(['ADMIN']))).toBe('forbidden');
    expect(access.check(user([], ['users:write']))).toBe('forbidden');
    expect(String(access)).toBe("hasAnyRole('ADMIN') and hasAnyAuthority('users:write')");
    const reversed = new Access().authorities(['users:write']).roles(['ADMIN']);
    expect(String(reversed)).toBe(String(access));
    expect(new Access().roles(['ADMIN']).authenticated().check(user())).toBe('forbidden');
  });

  it('is immutable: a shared Access cannot be changed by another caller', () => {
    const shared = new Access();
    const admins = shared.roles(['ADMIN']);
    const open = shared.permitAll();
    expect(shared.check(user())).toBe('granted');
    expect(shared.check(null)).toBe('unauthenticated');
    expect(admins.check(user())).toBe('forbidden');
    expect(open.check(null)).toBe('granted');
    expect(admins).not.toBe(shared);
    expect(Object.isFrozen(shared)).toBe(true);
    expect(() => {
      (shared as unknown as { check: unknown }).check = () => 'granted';
    }).toThrow(TypeError);
    expect(shared.check(null)).toBe('unauthenticated');
  });

  it('keeps its own copy of the role list', () => {
    const roles = ['ADMIN'];
    const access = new Access().roles(roles);
    roles.push('USER');
    expect(access.check(user(['USER']))).toBe('forbidden');
  });

  it('rejects empty and invalid lists with ERR_INVALID_OPTION', () => {
    for (const [fn, option] of [
      [() => new Access().roles([]), 'roles'],
      [() => new Access().authorities([]), 'authorities'],
      [() => new Access().roles(['']), 'roles'],
      [() => new Access().roles(['A\nB']), 'roles'],
      [() => new Access().roles('ADMIN'), 'roles'],
    ] as const) {
      const error = thrown(fn);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.code).toBe('ERR_INVALID_OPTION');
      expect(error.option).toBe(option);
    }
  });

  it('rejects contradictory combinations', () => {
    const cases: [() => unknown, string][] = [
      [() => new Access().permitAll().roles(['A']), 'roles'],
      [() => new Access().denyAll().authorities(['a']), 'authorities'],
      [() => new Access().roles(['A']).permitAll(), 'permitAll'],
      [() => new Access().roles(['A']).denyAll(), 'denyAll'],
      [() => new Access().permitAll().denyAll(), 'denyAll'],
      [() => new Access().denyAll().permitAll(), 'permitAll'],
      [() => new Access().permitAll().authenticated(), 'authenticated'],
      [() => new Access().roles(['A']).roles(['B']), 'roles'],
      [() => new Access().authorities(['a']).authorities(['b']), 'authorities'],
    ];
    for (const [fn, option] of cases) {
      const error = thrown(fn);
      expect(error.code).toBe('ERR_INVALID_OPTION');
      expect(error.option).toBe(option);
    }
  });

  it('escapes quotes in descriptions', () => {
    expect(String(new Access().roles(["it's"]))).toBe("hasAnyRole('it\\'s')");
  });
});
