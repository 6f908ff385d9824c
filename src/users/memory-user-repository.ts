import { User } from '../core/user.js';
import { announceUserChange } from '../stores/memory-user-changes.js';
import type { UserChangeNotifier } from '../stores/types.js';
import { UserRepositoryError } from './errors.js';
import type { ManagedUserRepository } from './repository.js';

/** Options of {@link MemoryUserRepository}. */
export interface MemoryUserRepositoryOptions {
  /**
   * Told of every change made through `updateUser`, `deleteUser` and
   * `changePassword`, so authenticators sharing it drop what they cached of the
   * user. Give it the authenticator's notifier.
   * @defaultValue none: call `authenticator.userChanged(username)` after a change
   */
  readonly userChanges?: UserChangeNotifier;
}

/**
 * Users held in memory, as a {@link ManagedUserRepository} (Spring's
 * `InMemoryUserDetailsManager`): the repository of `MemoryAuthenticator`, and the
 * embedded default for an application that manages a few users itself. Usernames
 * are compared exactly (no case folding, no Unicode normalization). Every method
 * answers synchronously.
 *
 * @example
 * ```ts
 * import { MemoryUserRepository, RepositoryAuthenticator, User } from 'portcullis';
 * const users = new MemoryUserRepository([User.withEncodedPassword('alice', hash)]);
 * const auth = new RepositoryAuthenticator({ users, passwordEncoder: encoder });
 * users.updateUser(users.findByUsername('alice')!.withAccountState({ locked: true }));
 * auth.userChanged('alice');
 * ```
 */
export class MemoryUserRepository implements ManagedUserRepository {
  readonly #users = new Map<string, User>();
  readonly #userChanges: UserChangeNotifier | undefined;

  /**
   * @param users - the initial users (unique usernames)
   * @param options - see {@link MemoryUserRepositoryOptions}
   */
  constructor(users: Iterable<User> = [], options: MemoryUserRepositoryOptions = {}) {
    this.#userChanges = options.userChanges;
    for (const user of users) this.createUser(user);
  }

  /** How many users are held. */
  get size(): number {
    return this.#users.size;
  }

  /** The user with exactly this username, or `null`. */
  findByUsername(username: string): User | null {
    if (typeof username !== 'string') return null;
    return this.#users.get(username) ?? null;
  }

  /**
   * Replaces the password of `user` only while `user` is still the very object held
   * (compare and set); answers the updated user, or `null` when it was changed or
   * removed meanwhile.
   */
  updatePassword(user: User, newEncodedPassword: string): User | null {
    if (!(user instanceof User) || this.#users.get(user.username) !== user) return null;
    const updated = user.withEncodedPassword(newEncodedPassword);
    this.#users.set(user.username, updated);
    return updated;
  }

  /** Adds a user; throws a `UserRepositoryError` (`ERR_USER_EXISTS`) when the name is taken. */
  createUser(user: User): void {
    requireUser(user);
    if (this.#users.has(user.username)) {
      throw new UserRepositoryError('ERR_USER_EXISTS', user.username);
    }
    this.#users.set(user.username, user);
  }

  /** Replaces the user of the same username; throws `ERR_USER_NOT_FOUND` when there is none. */
  updateUser(user: User): void {
    requireUser(user);
    if (!this.#users.has(user.username)) {
      throw new UserRepositoryError('ERR_USER_NOT_FOUND', user.username);
    }
    this.#users.set(user.username, user);
    this.#announce(user.username);
  }

  /** Removes a user; answers whether there was one. */
  deleteUser(username: string): boolean {
    if (typeof username !== 'string' || !this.#users.delete(username)) return false;
    this.#announce(username);
    return true;
  }

  /** Sets a user's encoded password (an administrator's reset); answers whether the user exists. */
  changePassword(username: string, newEncodedPassword: string): boolean {
    const user = this.findByUsername(username);
    if (user === null) return false;
    this.#users.set(username, user.withEncodedPassword(newEncodedPassword));
    this.#announce(username);
    return true;
  }

  /** Whether a user with exactly this username exists. */
  userExists(username: string): boolean {
    return typeof username === 'string' && this.#users.has(username);
  }

  /** The users held, in insertion order. */
  users(): IterableIterator<User> {
    return this.#users.values();
  }

  #announce(username: string): void {
    if (this.#userChanges !== undefined) announceUserChange(this.#userChanges, username);
  }
}

function requireUser(user: unknown): asserts user is User {
  if (!(user instanceof User)) throw new TypeError('user: must be a User');
}
