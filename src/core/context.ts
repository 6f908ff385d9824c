import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuthenticatedUser } from './authenticated-user.js';
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

  /** Runs `fn` (and everything it awaits) with `user` as the current user. */
  run<R>(user: AuthenticatedUser | null, fn: () => R): R {
    return storage.run({ user }, fn);
  },
} as const;
