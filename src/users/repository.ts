import type { User } from '../core/user.js';

/**
 * Where users come from: Spring Security's `UserDetailsService` (and, with
 * `updatePassword`, its `UserDetailsPasswordService`). Implement it over your
 * database, or use `MemoryUserRepository` or `SqlUserRepository`.
 *
 * The repository only looks users up; the repository-backed authenticator checks the
 * password (against a dummy hash when the user is unknown, so both cost the same),
 * the account state, the cache and the concurrency bounds.
 *
 * @example
 * ```ts
 * const users: UserRepository = {
 *   async findByUsername(username) {
 *     const row = await db.users.findUnique({ where: { username } });
 *     return row ? new User(row.username, row.passwordHash, row.roles, row.authorities) : null;
 *   },
 * };
 * ```
 */
export interface UserRepository {
  /**
   * The user with exactly this username, or `null` when there is none. Usernames are
   * compared exactly (no case folding) unless the repository documents otherwise.
   * A rejection (the database is down) fails the request closed with 503.
   */
  findByUsername(username: string): User | null | Promise<User | null>;
  /**
   * Stores a re-encoded password after a successful login whose stored hash the
   * encoder wants upgraded (`upgradeEncoding`); returns the updated user. A
   * compare-and-set: it replaces the password only while the stored one is still
   * `user.password`, and answers `null` (nothing changed) when the user was changed
   * or deleted meanwhile. Optional: without it, hashes are not upgraded.
   */
  updatePassword?(user: User, newEncodedPassword: string): User | null | Promise<User | null>;
}

/**
 * A {@link UserRepository} that an application can also manage users through
 * (Spring's `UserDetailsManager`): `MemoryUserRepository` and `SqlUserRepository`
 * implement it. A change made here does not reach the verified-credential cache of
 * an authenticator by itself: give the repository the same `userChanges` notifier
 * as the authenticator, or call `authenticator.userChanged(username)` after it.
 */
export interface ManagedUserRepository extends UserRepository {
  /** Adds a user; fails when the username is taken. */
  createUser(user: User): void | Promise<void>;
  /** Replaces a user (its password, roles, authorities and state); fails when there is none. */
  updateUser(user: User): void | Promise<void>;
  /** Removes a user; answers whether there was one. */
  deleteUser(username: string): boolean | Promise<boolean>;
  /** Sets a user's encoded password; answers whether there was such a user. */
  changePassword(username: string, newEncodedPassword: string): boolean | Promise<boolean>;
  /** Whether a user with exactly this username exists. */
  userExists(username: string): boolean | Promise<boolean>;
}
