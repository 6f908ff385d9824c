import {
  ConfigurationError,
  DeadlineExceededError,
  StoreUnavailableError,
  UnavailableError,
} from '../core/errors.js';
import { User } from '../core/user.js';
import { withDeadline } from '../lib/deadline.js';
import { isPromiseLike } from '../lib/promise.js';
import type { UserRepository } from '../users/repository.js';

/** The `operation` of the deadline of a user repository call. @internal */
export const REPOSITORY_OPERATION = 'user-repository';

/**
 * Calls of a {@link UserRepository} that fail closed: a call that throws or rejects
 * gives a `StoreUnavailableError` (store `user-repository`; the repository's own
 * error is its `cause`, never in the message), a call that does not settle within
 * `timeoutMs` a `DeadlineExceededError` (operation `user-repository`). An
 * `UnavailableError` of the repository's own is passed on as it is.
 *
 * @internal
 */
export class RepositoryCalls {
  readonly #users: UserRepository;
  readonly #timeoutMs: number;

  constructor(users: UserRepository, timeoutMs: number) {
    this.#users = users;
    this.#timeoutMs = timeoutMs;
  }

  /** Whether the repository can store upgraded passwords. */
  get canUpdatePassword(): boolean {
    return typeof this.#users.updatePassword === 'function';
  }

  /**
   * The user of this exact username, or `null`; `undefined` from the repository
   * counts as `null`. Synchronous when the repository answers synchronously (memory).
   */
  findByUsername(username: string): User | null | Promise<User | null> {
    const found = this.#call('find-by-username', () => this.#users.findByUsername(username));
    return isPromiseLike(found) ? found.then(requireUserOrNull) : requireUserOrNull(found);
  }

  /** Stores an upgraded password: the updated user, or `null` when the stored one changed meanwhile. */
  async updatePassword(user: User, encoded: string): Promise<User | null> {
    const users = this.#users;
    if (typeof users.updatePassword !== 'function') return null;
    const updated = await this.#call('update-password', () =>
      users.updatePassword?.(user, encoded),
    );
    return updated instanceof User ? updated : null;
  }

  /** Calls the repository: a synchronous answer stays synchronous, a promise gets the deadline. */
  #call<T>(operation: string, call: () => T | Promise<T>): T | Promise<T> {
    let result: T | Promise<T>;
    try {
      result = call();
    } catch (error) {
      throw unavailable(operation, error);
    }
    if (!isPromiseLike(result)) return result;
    return withDeadline(
      result,
      this.#timeoutMs,
      () => new DeadlineExceededError(REPOSITORY_OPERATION, this.#timeoutMs),
    ).catch((error: unknown) => {
      throw unavailable(operation, error);
    });
  }
}

/** The repository's own `UnavailableError` as it is; anything else as a `StoreUnavailableError`. */
function unavailable(operation: string, error: unknown): UnavailableError {
  if (error instanceof UnavailableError) return error;
  return new StoreUnavailableError('user-repository', operation, 1, { cause: error });
}

function requireUserOrNull(found: unknown): User | null {
  if (found === null || found === undefined) return null;
  if (found instanceof User) return found;
  throw new StoreUnavailableError('user-repository', 'find-by-username', 1, {
    cause: new TypeError('findByUsername() must answer a User or null'),
  });
}

/** Validates a user repository option. @internal */
export function requireRepository<R extends UserRepository>(users: R): R {
  const candidate = users as Partial<Record<keyof UserRepository, unknown>> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.findByUsername !== 'function'
  ) {
    throw new ConfigurationError('users', 'must be a UserRepository (with findByUsername)');
  }
  if (candidate.updatePassword !== undefined && typeof candidate.updatePassword !== 'function') {
    throw new ConfigurationError('users', 'updatePassword must be a function when present');
  }
  return users;
}
