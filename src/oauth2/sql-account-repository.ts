import { ConfigurationError } from '../core/errors.js';
import { rejectUnknownOptions } from '../core/validate.js';
import { UserRepositoryError } from '../users/errors.js';
import type { SqlQuery } from '../users/sql-user-repository.js';
import { quoteName } from '../users/sql-user-schema.js';
import type { OAuth2AccountRepository } from './account-linking.js';

/** The table names of a {@link SqlOAuth2AccountRepository}; each `name` or `schema.name`. */
export interface SqlOAuth2AccountTables {
  /** @defaultValue `'oauth2_accounts'` */
  readonly accounts?: string;
  /** The users table the links refer to. @defaultValue `'users'` */
  readonly users?: string;
}

function quote(tables: SqlOAuth2AccountTables): { accounts: string; users: string } {
  if (typeof tables !== 'object' || (tables as unknown) === null) {
    throw new ConfigurationError('tables', 'must be an object');
  }
  rejectUnknownOptions('tables', tables, ['accounts', 'users'], {
    path: (key) => `tables.${key}`,
  });
  return {
    accounts: quoteName('tables.accounts', tables.accounts ?? 'oauth2_accounts'),
    users: quoteName('tables.users', tables.users ?? 'users'),
  };
}

/**
 * The PostgreSQL table of a {@link SqlOAuth2AccountRepository}: one row per provider
 * account (`provider`, `subject`, primary key) naming the user it is linked to, deleted
 * with its user. Run it after the users schema (`SQL_USER_SCHEMA`); idempotent.
 *
 * @example
 * ```ts
 * await db.exec(SQL_USER_SCHEMA + sqlOAuth2AccountSchema());
 * ```
 */
export function sqlOAuth2AccountSchema(tables: SqlOAuth2AccountTables = {}): string {
  const t = quote(tables);
  return `CREATE TABLE IF NOT EXISTS ${t.accounts} (
  provider text NOT NULL,
  subject text NOT NULL,
  username text NOT NULL REFERENCES ${t.users} (username) ON DELETE CASCADE ON UPDATE CASCADE,
  linked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, subject)
);
CREATE INDEX IF NOT EXISTS "${indexName(t.accounts)}" ON ${t.accounts} (username);
`;
}

/** `oauth2_accounts_username` for `"oauth2_accounts"` or `"auth"."oauth2_accounts"`. */
function indexName(quoted: string): string {
  const table = quoted.split('.').at(-1)?.replaceAll('"', '') ?? 'oauth2_accounts';
  return `${table}_username`.slice(0, 63);
}

/** Options of {@link SqlOAuth2AccountRepository}. */
export interface SqlOAuth2AccountRepositoryOptions {
  /** Runs a statement (`SqlQuery`: the same function as `SqlUserRepository`'s). */
  readonly query: SqlQuery;
  /** @defaultValue `{ accounts: 'oauth2_accounts', users: 'users' }` */
  readonly tables?: SqlOAuth2AccountTables;
}

/**
 * The links of provider accounts to users in PostgreSQL ({@link sqlOAuth2AccountSchema}),
 * through the application's query function, beside a `SqlUserRepository`. Linking is
 * one `INSERT … ON CONFLICT DO NOTHING` followed by a read: the first link of a provider
 * account wins, on every instance.
 */
export class SqlOAuth2AccountRepository implements OAuth2AccountRepository {
  readonly #query: SqlQuery;
  readonly #find: string;
  readonly #link: string;

  constructor(options: SqlOAuth2AccountRepositoryOptions) {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new ConfigurationError('options', 'must be an object');
    }
    if (typeof options.query !== 'function') {
      throw new ConfigurationError(
        'query',
        'must be a function (sql, params) => Promise<{ rows }>',
      );
    }
    const t = quote(options.tables ?? {});
    this.#query = options.query;
    this.#find = `SELECT username FROM ${t.accounts} WHERE provider = $1 AND subject = $2`;
    // One statement: insert unless linked, then answer whoever is linked.
    this.#link = `WITH inserted AS (
  INSERT INTO ${t.accounts} (provider, subject, username) VALUES ($1, $2, $3)
  ON CONFLICT (provider, subject) DO NOTHING RETURNING username
)
SELECT username FROM inserted
UNION ALL
SELECT username FROM ${t.accounts} WHERE provider = $1 AND subject = $2 AND NOT EXISTS (SELECT 1 FROM inserted)`;
  }

  async findLinkedUsername(provider: string, subject: string): Promise<string | null> {
    const { rows } = await this.#query(this.#find, [provider, subject]);
    return rows.length === 0 ? null : usernameOf(rows[0], provider);
  }

  async linkProviderAccount(provider: string, subject: string, username: string): Promise<string> {
    const { rows } = await this.#query(this.#link, [provider, subject, username]);
    if (rows.length === 0) {
      // Linked by another statement and deleted since (its user was deleted).
      throw new UserRepositoryError('ERR_USER_NOT_FOUND', username);
    }
    return usernameOf(rows[0], provider);
  }
}

function usernameOf(row: Record<string, unknown> | undefined, provider: string): string {
  const username = row?.['username'];
  if (typeof username !== 'string' || username === '') {
    throw new UserRepositoryError(
      'ERR_USER_RECORD_MALFORMED',
      `(${provider} account link)`,
      'username',
    );
  }
  return username;
}
