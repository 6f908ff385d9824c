/**
 * Where users come from: the `UserRepository` interface (Spring's
 * `UserDetailsService`), users in memory, and users in a SQL database.
 *
 * @module portcullis
 */
export type { ManagedUserRepository, UserRepository } from './repository.js';
export { UserRepositoryError, type UserRepositoryErrorReason } from './errors.js';
export {
  MemoryUserRepository,
  type MemoryUserRepositoryOptions,
} from './memory-user-repository.js';
