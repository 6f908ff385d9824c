import { isPromiseLike } from '../lib/promise.js';
import type { UserChangeListener, UserChangeNotifier } from './types.js';

/**
 * A {@link UserChangeNotifier} for one process: `publish` calls every subscribed
 * listener at once, synchronously, before it returns. The default of an
 * authenticator that is given none. Share one between authenticators of the same
 * process (a Basic authenticator and a form login over the same users); for several
 * instances use the Redis notifier of `portcullis/redis`, which reaches them all.
 *
 * A listener that throws never stops the others: the failure is reported as a
 * process warning (by error name only).
 *
 * @example
 * ```ts
 * import { MemoryUserChangeNotifier, RepositoryAuthenticator } from 'portcullis';
 * const userChanges = new MemoryUserChangeNotifier();
 * const basic = new RepositoryAuthenticator({ users, passwordEncoder, userChanges });
 * userChanges.publish('alice'); // every authenticator forgets alice's cached credentials
 * ```
 */
export class MemoryUserChangeNotifier implements UserChangeNotifier {
  readonly #listeners = new Set<UserChangeListener>();

  /** Calls every listener with `username`, synchronously. */
  publish(username: string): void {
    if (typeof username !== 'string') throw new TypeError('username: must be a string');
    for (const listener of [...this.#listeners]) {
      try {
        listener(username);
      } catch (error) {
        const name = error instanceof Error ? error.name : typeof error;
        process.emitWarning(`portcullis: a user-change listener failed (${name})`, {
          code: 'PORTCULLIS_USER_CHANGES',
        });
      }
    }
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: UserChangeListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('listener: must be a function');
    const own = (username: string): void => {
      listener(username);
    };
    this.#listeners.add(own);
    return () => {
      this.#listeners.delete(own);
    };
  }
}

/**
 * Publishes a change without waiting for it: a notifier that throws or rejects (the
 * other instances cannot be reached) is reported as a process warning, by error name
 * only, and the caller goes on. What is not announced stays stale on the other
 * instances for at most their cache's time to live.
 *
 * @internal
 */
export function announceUserChange(notifier: UserChangeNotifier, username: string): void {
  const warn = (error: unknown): void => {
    const name = error instanceof Error ? error.name : typeof error;
    process.emitWarning(`portcullis: a user change could not be announced (${name})`, {
      code: 'PORTCULLIS_USER_CHANGES',
    });
  };
  try {
    const published = notifier.publish(username);
    if (isPromiseLike(published)) published.then(undefined, warn);
  } catch (error) {
    warn(error);
  }
}
