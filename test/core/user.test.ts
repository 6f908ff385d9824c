import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { AuthenticatedUser, User } from '../../src/index.js';

const ENCODED = '{noop}hunter2-encoded';

describe('User', () => {
  it('keeps username, encoded password, roles and authorities', () => {
    const user = User.withEncodedPassword('alice', ENCODED)
      .withRoles(['USER', 'ADMIN'])
      .withAuthorities(['posts:read']);
    expect(user.username).toBe('alice');
    expect(user.password).toBe(ENCODED);
    expect([...user.roles]).toEqual(['USER', 'ADMIN']);
    expect([...user.authorities]).toEqual(['posts:read']);
  });

  it('supports roles only, authorities only, or both', () => {
    expect(new User('a', ENCODED).withRoles(['USER']).authorities.size).toBe(0);
    expect(new User('b', ENCODED).withAuthorities(['x:y']).roles.size).toBe(0);
  });

  it('is immutable: builders return new users and the sets cannot be changed', () => {
    const base = new User('alice', ENCODED);
    const withRoles = base.withRoles(['USER']);
    expect(withRoles).not.toBe(base);
    expect(base.roles.size).toBe(0);
    expect(() => {
      (withRoles.roles as Set<string>).add('ADMIN');
    }).toThrow(TypeError);
    expect(withRoles.roles.has('ADMIN')).toBe(false);
    expect(() => {
      (withRoles as { username: string }).username = 'mallory';
    }).toThrow(TypeError);
    expect(withRoles.username).toBe('alice');
  });

  it('never shows the password in JSON, inspect, spread or keys', () => {
    const user = new User('alice', 'SECRET-HASH').withRoles(['USER']);
    expect(JSON.stringify(user)).not.toContain('SECRET-HASH');
    expect(inspect(user, { showHidden: true, depth: 5 })).not.toContain('SECRET-HASH');
    // eslint-disable-next-line @typescript-eslint/no-misused-spread -- the attack being tested
    expect(JSON.stringify({ ...user })).not.toContain('SECRET-HASH');
    expect(Object.keys(user)).not.toContain('password');
    expect(JSON.parse(JSON.stringify(user))).toEqual({
      username: 'alice',
      roles: ['USER'],
      authorities: [],
    });
  });

  it('refuses empty names and control characters with ERR_INVALID_OPTION', () => {
    expect(() => new User('', ENCODED)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'username' }),
    );
    expect(() => new User('a\nb', ENCODED)).toThrow(
      expect.objectContaining({ option: 'username' }),
    );
    expect(() => new User('a', ENCODED).withRoles([''])).toThrow(
      expect.objectContaining({ option: 'roles' }),
    );
    expect(() => new User('a', ENCODED).withRoles('ADMIN')).toThrow(
      expect.objectContaining({ option: 'roles' }),
    );
  });
});

describe('AuthenticatedUser', () => {
  const user = new User('alice', 'SECRET-HASH').withRoles(['USER']).withAuthorities(['posts:read']);
  const authenticated = AuthenticatedUser.from(user, {
    authenticationMethod: 'basic',
    attributes: { tenant: 't1' },
  });

  it('exposes the SPEC accessors and checks', () => {
    expect(authenticated.getUsername()).toBe('alice');
    expect([...authenticated.getRoles()]).toEqual(['USER']);
    expect([...authenticated.getAuthorities()]).toEqual(['posts:read']);
    expect(authenticated.getPassword()).toBe('SECRET-HASH');
    expect(authenticated.authenticationMethod).toBe('basic');
    expect(authenticated.attributes['tenant']).toBe('t1');
    expect(authenticated.hasRole('USER')).toBe(true);
    expect(authenticated.hasRole('user')).toBe(false);
    expect(authenticated.hasRole('ROLE_USER')).toBe(false);
    expect(authenticated.hasAnyRole('ADMIN', 'USER')).toBe(true);
    expect(authenticated.hasAnyRole('ADMIN')).toBe(false);
    expect(authenticated.hasAuthority('posts:read')).toBe(true);
    expect(authenticated.hasAuthority('posts:write')).toBe(false);
    expect(authenticated.hasAnyAuthority('posts:write', 'posts:read')).toBe(true);
    expect(authenticated.hasAnyAuthority()).toBe(false);
  });

  it('keeps roles and authorities separate', () => {
    const roleOnly = AuthenticatedUser.from(new User('r', 'x').withRoles(['posts:read']));
    expect(roleOnly.hasAuthority('posts:read')).toBe(false);
  });

  it('never shows the password and has frozen attributes without a prototype', () => {
    expect(JSON.stringify(authenticated)).not.toContain('SECRET-HASH');
    expect(inspect(authenticated, { showHidden: true })).not.toContain('SECRET-HASH');
    expect(Object.isFrozen(authenticated.attributes)).toBe(true);
    expect(Object.getPrototypeOf(authenticated.attributes)).toBeNull();
    expect(authenticated.attributes['constructor']).toBeUndefined();
    expect(AuthenticatedUser.from(user).authenticationMethod).toBe('custom');
  });
});
