import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { AuthenticatedUser, SecurityContext, User } from '../../src/index.js';

const userNamed = (name: string) => AuthenticatedUser.from(new User(name, 'x'));

describe('SecurityContext', () => {
  it('is empty outside a request', () => {
    expect(SecurityContext.getUser()).toBeNull();
    expect(() => SecurityContext.requireUser()).toThrow(
      expect.objectContaining({ code: 'ERR_AUTHENTICATION_REQUIRED' }),
    );
  });

  it('keeps each run its own user across awaits, under concurrency', async () => {
    const seen = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        SecurityContext.run(userNamed(`user${i}`), async () => {
          const names: string[] = [];
          for (let step = 0; step < 5; step++) {
            await sleep((i * 7 + step * 3) % 5);
            names.push(SecurityContext.requireUser().username);
          }
          return names;
        }),
      ),
    );
    seen.forEach((names, i) => {
      expect(names).toEqual(Array(5).fill(`user${i}`));
    });
  });

  it('runs anonymously with null', () => {
    expect(SecurityContext.run(null, () => SecurityContext.getUser())).toBeNull();
  });

  // It used to accept them: getUser()/requireUser() then answered the account (or the
  // object) as the current user; `username` read fine, while `hasRole('ADMIN')` threw
  // "is not a function" wherever the code first asked, far from the mistake, and
  // `authenticationMethod`/`attributes` were silently undefined.
  it('refuses a User or a plain object, naming AuthenticatedUser.from and mockUser', () => {
    const fn = vi.fn(() => SecurityContext.requireUser());
    const account = new User('alice', 'x', ['ADMIN']);
    expect(() => SecurityContext.run(account as never, fn)).toThrow(
      new TypeError(
        'SecurityContext.run: the user must be an AuthenticatedUser or null, got a User (an account, not an authenticated user). ' +
          "Wrap a User with AuthenticatedUser.from(user); in tests, mockUser() from 'portcullis/testing' builds one.",
      ),
    );
    expect(() =>
      SecurityContext.run({ username: 'mallory', roles: new Set(['ADMIN']) } as never, fn),
    ).toThrow(/got a plain object\. Wrap a User with AuthenticatedUser\.from\(user\)/u);
    expect(() => SecurityContext.run(undefined as never, fn)).toThrow(/pass null/u);
    expect(() => SecurityContext.run('alice' as never, fn)).toThrow(/got a string/u);
    expect(fn).not.toHaveBeenCalled();
    expect(SecurityContext.run(AuthenticatedUser.from(account), fn).hasRole('ADMIN')).toBe(true);
  });
});
