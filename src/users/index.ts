/**
 * Where users come from: the `UserRepository` interface (Spring's
 * `UserDetailsService`), users in memory, and users in a SQL database.
 *
 * @module portcullis
 */
export type { ManagedUserRepository, UserRepository } from './repository.js';
export { UserRepositoryError, type UserRepositoryErrorCode } from './errors.js';
export {
  MemoryUserRepository,
  type MemoryUserRepositoryOptions,
} from './memory-user-repository.js';
export {
  SqlUserRepository,
  type SqlQuery,
  type SqlUserRepositoryOptions,
} from './sql-user-repository.js';
export { SQL_USER_SCHEMA, sqlUserSchema, type SqlUserTables } from './sql-user-schema.js';
export {
  CachingUserRepository,
  type CachingUserRepositoryOptions,
} from './caching-user-repository.js';
