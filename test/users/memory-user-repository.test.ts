import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { MemoryUserChangeNotifier, User } from '../../src/index.js';
import { MemoryUserRepository, UserRepositoryError } from '../../src/users/index.js';

const alice = () => new User('alice', '{test}hash', ['USER']);

describe('User account state', () => {
  it('is active by default, and each builder keeps the state', () => {
    const user = alice();
    expect(user.accountState).toEqual({
      enabled: true,
      locked: false,
      accountExpired: false,
      credentialsExpired: false,
    });
    const locked = user.withAccountState({ locked: true, credentialsExpired: true });
    expect(user.locked).toBe(false);
    expect(locked).not.toBe(user);
    for (const derived of [
      locked.withRoles(['ADMIN']),
      locked.withAuthorities(['x:y']),
      locked.withEncodedPassword('{test}other'),
    ]) {
      expect(derived.accountState).toEqual({
        enabled: true,
        locked: true,
        accountExpired: false,
        credentialsExpired: true,
      });
    }
    expect(locked.withAccountState({ enabled: false }).accountState).toMatchObject({
      enabled: false,
      locked: true,
    });
  });

  it('is immutable and refuses non-booleans', () => {
    const user = alice().withAccountState({ enabled: false });
    expect(() => {
      (user as { enabled: boolean }).enabled = true;
    }).toThrow(TypeError);
    expect(() => alice().withAccountState({ locked: 'yes' as never })).toThrow(TypeError);
    expect(() => alice().withAccountState(null as never)).toThrow(TypeError);
  });

  it('shows the state but never the password in inspect', () => {
    const text = inspect(alice().withAccountState({ locked: true }));
    expect(text).toContain('locked: true');
    expect(text).not.toContain('{test}hash');
  });
});

describe('MemoryUserRepository', () => {
  it('finds users by exact name, and none by prototype names', () => {
    const users = new MemoryUserRepository([alice()]);
    expect(users.findByUsername('alice')?.username).toBe('alice');
    expect(users.findByUsername('Alice')).toBeNull();
    for (const name of ['__proto__', 'constructor', 'toString']) {
      expect(users.findByUsername(name)).toBeNull();
      expect(users.userExists(name)).toBe(false);
    }
    expect(users.findByUsername(undefined as never)).toBeNull();
  });

  it('updatePassword is a compare-and-set on the very user object', () => {
    const users = new MemoryUserRepository([alice()]);
    const current = users.findByUsername('alice') as User;
    const updated = users.updatePassword(current, '{test}new');
    expect(updated?.password).toBe('{test}new');
    expect(updated?.roles.has('USER')).toBe(true);
    expect(users.findByUsername('alice')).toBe(updated);
    // The old object again, or an equal copy: refused, nothing changes.
    expect(users.updatePassword(current, '{test}other')).toBeNull();
    expect(users.updatePassword(alice(), '{test}other')).toBeNull();
    expect(users.findByUsername('alice')?.password).toBe('{test}new');
  });

  it('manages users like InMemoryUserDetailsManager, announcing each change', () => {
    const userChanges = new MemoryUserChangeNotifier();
    const announced: string[] = [];
    userChanges.subscribe((name) => announced.push(name));
    const users = new MemoryUserRepository([], { userChanges });
    users.createUser(alice());
    expect(() => {
      users.createUser(alice());
    }).toThrow(expect.objectContaining({ code: 'ERR_USER_EXISTS' }));
    users.updateUser(alice().withAccountState({ locked: true }));
    expect(users.findByUsername('alice')?.locked).toBe(true);
    expect(() => {
      users.updateUser(new User('bob', 'x'));
    }).toThrow(UserRepositoryError);
    expect(users.changePassword('alice', '{test}reset')).toBe(true);
    expect(users.findByUsername('alice')?.password).toBe('{test}reset');
    expect(users.findByUsername('alice')?.locked).toBe(true);
    expect(users.changePassword('bob', 'x')).toBe(false);
    expect(users.deleteUser('alice')).toBe(true);
    expect(users.deleteUser('alice')).toBe(false);
    expect(users.size).toBe(0);
    expect(announced).toEqual(['alice', 'alice', 'alice']);
    expect(() => {
      users.createUser({ username: 'x' } as never);
    }).toThrow(TypeError);
  });
});

describe('MemoryUserChangeNotifier', () => {
  it('calls every listener synchronously until it unsubscribes', () => {
    const notifier = new MemoryUserChangeNotifier();
    const first = vi.fn();
    const second = vi.fn();
    const stop = notifier.subscribe(first);
    notifier.subscribe(second);
    notifier.publish('alice');
    expect(first).toHaveBeenCalledWith('alice');
    stop();
    notifier.publish('bob');
    expect(first).toHaveBeenCalledTimes(1);
    expect(second.mock.calls).toEqual([['alice'], ['bob']]);
  });

  it('keeps calling the others when a listener throws', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const notifier = new MemoryUserChangeNotifier();
      const after = vi.fn();
      notifier.subscribe(() => {
        throw new Error('listener bug');
      });
      notifier.subscribe(after);
      notifier.publish('alice');
      expect(after).toHaveBeenCalledWith('alice');
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });
});
