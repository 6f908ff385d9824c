import { ConfigurationError } from '../core/errors.js';
import { rejectUnknownOptions } from '../core/validate.js';

/** The table names of a `SqlUserRepository`; each `name` or `schema.name`. */
export interface SqlUserTables {
  /** @defaultValue `'users'` */
  readonly users?: string;
  /** @defaultValue `'user_roles'` */
  readonly roles?: string;
  /** @defaultValue `'user_authorities'` */
  readonly authorities?: string;
}

/** The quoted table names. @internal */
export interface QuotedTables {
  readonly users: string;
  readonly roles: string;
  readonly authorities: string;
}

/** A plain SQL identifier: a letter or `_`, then letters, digits or `_`, 63 at most (PostgreSQL's limit). */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/u;

/**
 * Validates the table names as SQL identifiers (optionally schema-qualified) and
 * quotes them, so nothing but a checked name is ever put into a statement: every
 * value goes as a parameter. Quoted names are matched exactly (case-sensitive).
 *
 * @throws ConfigurationError naming the option (`tables.users`, …)
 * @internal
 */
export function quoteTables(tables: SqlUserTables = {}): QuotedTables {
  if (typeof tables !== 'object' || (tables as unknown) === null) {
    throw new ConfigurationError('tables', 'must be an object');
  }
  rejectUnknownOptions('tables', tables, ['users', 'roles', 'authorities'], {
    path: (key) => `tables.${key}`,
  });
  return {
    users: quoteName('tables.users', tables.users ?? 'users'),
    roles: quoteName('tables.roles', tables.roles ?? 'user_roles'),
    authorities: quoteName('tables.authorities', tables.authorities ?? 'user_authorities'),
  };
}

/** A validated, quoted SQL name (`name` or `schema.name`). @internal */
export function quoteName(option: string, name: unknown): string {
  if (typeof name !== 'string') throw new ConfigurationError(option, 'must be a string');
  const parts = name.split('.');
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new ConfigurationError(
      option,
      'must be a SQL identifier (letters, digits, _; not starting with a digit), optionally schema-qualified',
    );
  }
  return parts.map((part) => `"${part}"`).join('.');
}

/**
 * The PostgreSQL schema of a `SqlUserRepository` (Spring's `JdbcUserDetailsManager`
 * schema, with the account states): for other table names, give them here.
 *
 * - `users`: `username` (primary key, compared exactly), `password` (the encoded
 *   password, e.g. `{argon2}$argon2id$…`), `enabled`, `locked`, and two optional
 *   expiry times: `account_expires_at` and `credentials_expire_at` (`NULL`: never).
 *   An account or password is expired from that time on, by the database's clock.
 * - `user_roles` (`username`, `role`) and `user_authorities` (`username`,
 *   `authority`): one row each, deleted with their user.
 *
 * Idempotent (`IF NOT EXISTS`); run it once, e.g. `await pool.query(sqlUserSchema())`
 * (pg) or `await db.exec(sqlUserSchema())` (PGlite).
 *
 * @example
 * ```ts
 * await db.exec(sqlUserSchema({ users: 'auth.accounts' }));
 * ```
 */
export function sqlUserSchema(tables: SqlUserTables = {}): string {
  const t = quoteTables(tables);
  return `CREATE TABLE IF NOT EXISTS ${t.users} (
  username text PRIMARY KEY,
  password text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  locked boolean NOT NULL DEFAULT false,
  account_expires_at timestamptz,
  credentials_expire_at timestamptz
);
CREATE TABLE IF NOT EXISTS ${t.roles} (
  username text NOT NULL REFERENCES ${t.users} (username) ON DELETE CASCADE ON UPDATE CASCADE,
  role text NOT NULL,
  PRIMARY KEY (username, role)
);
CREATE TABLE IF NOT EXISTS ${t.authorities} (
  username text NOT NULL REFERENCES ${t.users} (username) ON DELETE CASCADE ON UPDATE CASCADE,
  authority text NOT NULL,
  PRIMARY KEY (username, authority)
);
`;
}

/** {@link sqlUserSchema} with the default table names `users`, `user_roles`, `user_authorities`. */
export const SQL_USER_SCHEMA: string = sqlUserSchema();

/** The statements of a `SqlUserRepository` over these tables ($n parameters only). @internal */
export function userStatements(t: QuotedTables) {
  // Expiry flags on write: an expired user gets an expiry at or before now (an earlier
  // one is kept); a user that is not expired loses a past expiry and keeps a future one.
  const expiry = (column: string, flag: string): string =>
    `CASE WHEN ${flag} THEN LEAST(COALESCE(${column}, now()), now()) ` +
    `WHEN ${column} <= now() THEN NULL ELSE ${column} END`;
  return {
    find: `SELECT u.username, u.password, u.enabled, u.locked,
  (u.account_expires_at IS NOT NULL AND u.account_expires_at <= now()) AS account_expired,
  (u.credentials_expire_at IS NOT NULL AND u.credentials_expire_at <= now()) AS credentials_expired,
  COALESCE((SELECT array_agg(r.role ORDER BY r.role) FROM ${t.roles} r WHERE r.username = u.username), '{}'::text[]) AS roles,
  COALESCE((SELECT array_agg(a.authority ORDER BY a.authority) FROM ${t.authorities} a WHERE a.username = u.username), '{}'::text[]) AS authorities
FROM ${t.users} u WHERE u.username = $1`,
    create: `WITH u AS (
  INSERT INTO ${t.users} (username, password, enabled, locked, account_expires_at, credentials_expire_at)
  VALUES ($1, $2, $3, $4, CASE WHEN $5::boolean THEN now() END, CASE WHEN $6::boolean THEN now() END)
  RETURNING username
), r AS (
  INSERT INTO ${t.roles} (username, role) SELECT u.username, x FROM u, unnest($7::text[]) AS x
), a AS (
  INSERT INTO ${t.authorities} (username, authority) SELECT u.username, x FROM u, unnest($8::text[]) AS x
)
SELECT username FROM u`,
    update: `WITH u AS (
  UPDATE ${t.users} SET password = $2, enabled = $3, locked = $4,
    account_expires_at = ${expiry('account_expires_at', '$5::boolean')},
    credentials_expire_at = ${expiry('credentials_expire_at', '$6::boolean')}
  WHERE username = $1
  RETURNING username
), dr AS (
  DELETE FROM ${t.roles} WHERE username IN (SELECT username FROM u) AND NOT (role = ANY ($7::text[]))
), ir AS (
  INSERT INTO ${t.roles} (username, role) SELECT u.username, x FROM u, unnest($7::text[]) AS x
  ON CONFLICT DO NOTHING
), da AS (
  DELETE FROM ${t.authorities} WHERE username IN (SELECT username FROM u) AND NOT (authority = ANY ($8::text[]))
), ia AS (
  INSERT INTO ${t.authorities} (username, authority) SELECT u.username, x FROM u, unnest($8::text[]) AS x
  ON CONFLICT DO NOTHING
)
SELECT username FROM u`,
    updatePassword: `UPDATE ${t.users} SET password = $3 WHERE username = $1 AND password = $2 RETURNING username`,
    changePassword: `UPDATE ${t.users} SET password = $2 WHERE username = $1 RETURNING username`,
    delete: `DELETE FROM ${t.users} WHERE username = $1 RETURNING username`,
    exists: `SELECT 1 AS found FROM ${t.users} WHERE username = $1`,
  };
}
