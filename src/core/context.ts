import { AsyncLocalStorage } from 'node:async_hooks';
import { AuthenticatedUser } from './authenticated-user.js';
import { User } from './user.js';
import { AuthenticationRequiredError } from './errors.js';

interface SecurityStore {
  readonly user: AuthenticatedUser | null;
}

const storage = new AsyncLocalStorage<SecurityStore>();

/**
 * The current request's user, from anywhere in the code that runs for the request,
 * across `await`s, on `AsyncLocalStorage`. Every adapter fills it for the whole
 * request; tests and jobs can fill it with {@link SecurityContext.run}.
 *
 * @example
 * ```ts
 * import { SecurityContext } from 'portcullis';
 * async function audit(action: string) {
 *   const user = SecurityContext.getUser(); // null when anonymous
 *   log.info({ action, user: user?.username });
 * }
 * ```
 */
export const SecurityContext = {
  /** The current user, or `null` when the request is anonymous or outside any request. */
  getUser(): AuthenticatedUser | null {
    return storage.getStore()?.user ?? null;
  },

  /** The current user; throws {@link AuthenticationRequiredError} when there is none. */
  requireUser(): AuthenticatedUser {
    const user = storage.getStore()?.user;
    if (!user) throw new AuthenticationRequiredError();
    return user;
  },

  /**
   * Runs `fn` (and everything it awaits) with `user` as the current user.
   *
   * @throws TypeError when `user` is neither an {@link AuthenticatedUser} nor `null`
   * (a `User` of a store, a `{ username, roles }` object): `fn` does not run.
   * Accepted, such a value would be the current user without the methods and the
   * checks of one, and fail (or pass) later, far from the mistake.
   */
  run<R>(user: AuthenticatedUser | null, fn: () => R): R {
    if (user !== null && !(user instanceof AuthenticatedUser)) throw notAuthenticated(user);
    return storage.run({ user }, fn);
  },
} as const;

function notAuthenticated(value: unknown): TypeError {
  const got =
    value instanceof User
      ? 'a User (an account, not an authenticated user)'
      : value === undefined
        ? 'undefined (pass null for an anonymous run)'
        : typeof value === 'object'
          ? 'a plain object'
          : `a ${typeof value}`;
  return new TypeError(
    `SecurityContext.run: the user must be an AuthenticatedUser or null, got ${got}. ` +
      "Wrap a User with AuthenticatedUser.from(user); in tests, mockUser() from 'portcullis/testing' builds one.",
  );
}
