import { ConfigurationError } from '../core/errors.js';
import { User } from '../core/user.js';
import { rejectUnknownOptions } from '../core/validate.js';
import type { UserChangeNotifier } from '../stores/types.js';
import { UserRepositoryError } from './errors.js';
import type { ManagedUserRepository } from './repository.js';
import { quoteTables, userStatements, type SqlUserTables } from './sql-user-schema.js';

/**
 * The application's own query function: runs one statement with `$1`, `$2`, …
 * parameters and answers its rows.
 *
 * - `pg`: `(sql, params) => pool.query(sql, params)`
 * - postgres.js: `async (sql, params) => ({ rows: await db.unsafe(sql, params) })`
 * - PGlite: `(sql, params) => db.query(sql, params)`
 */
export type SqlQuery = (
  sql: string,
  params: unknown[],
) => Promise<{ readonly rows: readonly Record<string, unknown>[] }>;

/** Options of {@link SqlUserRepository}. */
export interface SqlUserRepositoryOptions {
  /** Runs a statement (see {@link SqlQuery}). */
  readonly query: SqlQuery;
  /**
   * The table names, each a SQL identifier, optionally schema-qualified.
   * @defaultValue `{ users: 'users', roles: 'user_roles', authorities: 'user_authorities' }`
   */
  readonly tables?: SqlUserTables;
  /**
   * Told of every change made through `updateUser`, `deleteUser` and
   * `changePassword` (awaited), so every instance drops what it cached of the user.
   * Give it the authenticators' notifier.
   * @defaultValue none: call `authenticator.userChanged(username)` after a change
   */
  readonly userChanges?: UserChangeNotifier;
}

type Statements = ReturnType<typeof userStatements>;

/**
 * Users in a PostgreSQL database on the documented schema ({@link SQL_USER_SCHEMA};
 * Spring's `JdbcUserDetailsManager` is the model), through the application's own
 * query function, so it works with `pg`, postgres.js or PGlite. One query finds a
 * user with its roles and authorities; `updatePassword` is a compare-and-set on the
 * stored hash; every value is a parameter, and the only names put into statements
 * are the validated table names. Changes that touch several tables are one
 * statement each, so they are atomic without a transaction.
 *
 * A stored row that is not a valid user gives a `UserRepositoryError`
 * (`ERR_USER_RECORD_MALFORMED`, naming the column, never its value).
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { RepositoryAuthenticator, SqlUserRepository, SQL_USER_SCHEMA } from 'portcullis';
 * const pool = new pg.Pool();
 * await pool.query(SQL_USER_SCHEMA);
 * const users = new SqlUserRepository({ query: (sql, params) => pool.query(sql, params) });
 * const auth = new RepositoryAuthenticator({ users, passwordEncoder });
 * ```
 */
export class SqlUserRepository implements ManagedUserRepository {
  readonly #query: SqlQuery;
  readonly #sql: Statements;
  readonly #userChanges: UserChangeNotifier | undefined;

  /** @param options - see {@link SqlUserRepositoryOptions} */
  constructor(options: SqlUserRepositoryOptions) {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new ConfigurationError('options', 'must be an object');
    }
    rejectUnknownOptions('SqlUserRepository', options, ['query', 'tables', 'userChanges']);
    if (typeof options.query !== 'function') {
      throw new ConfigurationError(
        'query',
        'must be a function (sql, params) => Promise<{ rows }>',
      );
    }
    const { userChanges } = options;
    if (
      userChanges !== undefined &&
      (typeof userChanges.publish !== 'function' || typeof userChanges.subscribe !== 'function')
    ) {
      throw new ConfigurationError('userChanges', 'must be a UserChangeNotifier');
    }
    this.#query = options.query;
    this.#sql = userStatements(quoteTables(options.tables));
    this.#userChanges = userChanges;
  }

  /** The user with exactly this username, with its roles and authorities (one query), or `null`. */
  async findByUsername(username: string): Promise<User | null> {
    if (typeof username !== 'string') return null;
    const rows = await this.#rows(this.#sql.find, [username]);
    if (rows.length === 0) return null;
    if (rows.length > 1)
      throw new UserRepositoryError('ERR_USER_RECORD_MALFORMED', username, 'username');
    return toUser(rows[0] as Record<string, unknown>, username);
  }

  /**
   * Stores an upgraded password only while the stored one is still `user.password`
   * (`UPDATE … WHERE username = $1 AND password = $2`); answers the user as stored
   * now, or `null` when it was changed or deleted meanwhile.
   */
  async updatePassword(user: User, newEncodedPassword: string): Promise<User | null> {
    const rows = await this.#rows(this.#sql.updatePassword, [
      user.username,
      user.password,
      requirePassword(newEncodedPassword),
    ]);
    return rows.length === 0 ? null : this.findByUsername(user.username);
  }

  /** Adds a user with its roles and authorities; a taken name gives `ERR_USER_EXISTS`. */
  async createUser(user: User): Promise<void> {
    requireUser(user);
    try {
      await this.#rows(this.#sql.create, userParams(user));
    } catch (error) {
      if (sqlState(error) === '23505') {
        throw new UserRepositoryError('ERR_USER_EXISTS', user.username, undefined, {
          cause: error,
        });
      }
      throw error;
    }
  }

  /**
   * Replaces a user's password, state, roles and authorities; `ERR_USER_NOT_FOUND` when
   * there is none. An expiry time in the future is kept while the user is not
   * flagged expired.
   */
  async updateUser(user: User): Promise<void> {
    requireUser(user);
    const rows = await this.#rows(this.#sql.update, userParams(user));
    if (rows.length === 0) throw new UserRepositoryError('ERR_USER_NOT_FOUND', user.username);
    await this.#announce(user.username);
  }

  /** Removes a user (its roles and authorities go with it); answers whether there was one. */
  async deleteUser(username: string): Promise<boolean> {
    if (typeof username !== 'string') return false;
    const rows = await this.#rows(this.#sql.delete, [username]);
    if (rows.length > 0) await this.#announce(username);
    return rows.length > 0;
  }

  /** Sets a user's encoded password; answers whether there was such a user. */
  async changePassword(username: string, newEncodedPassword: string): Promise<boolean> {
    if (typeof username !== 'string') return false;
    const rows = await this.#rows(this.#sql.changePassword, [
      username,
      requirePassword(newEncodedPassword),
    ]);
    if (rows.length > 0) await this.#announce(username);
    return rows.length > 0;
  }

  /** Whether a user with exactly this username exists. */
  async userExists(username: string): Promise<boolean> {
    if (typeof username !== 'string') return false;
    return (await this.#rows(this.#sql.exists, [username])).length > 0;
  }

  async #rows(sql: string, params: unknown[]): Promise<readonly Record<string, unknown>[]> {
    const result = await this.#query(sql, params);
    const rows = (result as { rows?: unknown } | null | undefined)?.rows;
    if (!Array.isArray(rows)) throw new TypeError('query() must answer { rows: [...] }');
    return rows as Record<string, unknown>[];
  }

  async #announce(username: string): Promise<void> {
    await this.#userChanges?.publish(username);
  }
}

/** Builds a user from a row, checking every column; a bad one names the column, never the value. */
function toUser(row: Record<string, unknown>, asked: string): User {
  const username = row.username;
  if (typeof username !== 'string')
    throw new UserRepositoryError('ERR_USER_RECORD_MALFORMED', asked, 'username');
  const malformed = (field: string): UserRepositoryError =>
    new UserRepositoryError('ERR_USER_RECORD_MALFORMED', username, field);
  const { password, enabled, locked } = row;
  if (typeof password !== 'string' || password === '') throw malformed('password');
  const flags: Record<string, boolean> = {};
  for (const [column, value] of [
    ['enabled', enabled],
    ['locked', locked],
    ['account_expired', row.account_expired],
    ['credentials_expired', row.credentials_expired],
  ] as const) {
    if (typeof value !== 'boolean') throw malformed(column);
    flags[column] = value;
  }
  const roles = stringArray(row.roles);
  if (roles === undefined) throw malformed('roles');
  const authorities = stringArray(row.authorities);
  if (authorities === undefined) throw malformed('authorities');
  try {
    return new User(username, password, roles, authorities, {
      enabled: flags.enabled === true,
      locked: flags.locked === true,
      accountExpired: flags.account_expired === true,
      credentialsExpired: flags.credentials_expired === true,
    });
  } catch (error) {
    // A name with a control character, an empty role: the User's own checks.
    const option = (error as { option?: unknown }).option;
    throw new UserRepositoryError(
      'ERR_USER_RECORD_MALFORMED',
      asked,
      typeof option === 'string' ? option : 'record',
    );
  }
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
    ? value
    : undefined;
}

function userParams(user: User): unknown[] {
  return [
    user.username,
    requirePassword(user.password),
    user.enabled,
    user.locked,
    user.accountExpired,
    user.credentialsExpired,
    [...user.roles],
    [...user.authorities],
  ];
}

function requireUser(user: unknown): asserts user is User {
  if (!(user instanceof User)) throw new TypeError('user: must be a User');
}

function requirePassword(encoded: unknown): string {
  if (typeof encoded !== 'string' || encoded === '') {
    throw new TypeError('password: must be a non-empty encoded password');
  }
  return encoded;
}

function sqlState(error: unknown): unknown {
  return typeof error === 'object' && error !== null
    ? (error as { code?: unknown }).code
    : undefined;
}
