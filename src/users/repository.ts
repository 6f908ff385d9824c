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
   * encoder wants upgraded (`upgradeEncoding`); returns the updated user. Optional:
   * without it, hashes are not upgraded.
   */
  updatePassword?(user: User, newEncodedPassword: string): User | Promise<User>;
}
