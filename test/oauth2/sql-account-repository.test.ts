import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { User } from '../../src/index.js';
import { accountLinkingMapper } from '../../src/oauth2/account-linking.js';
import type { OAuth2MapperContext } from '../../src/oauth2/routes/options.js';
import {
  SqlOAuth2AccountRepository,
  sqlOAuth2AccountSchema,
} from '../../src/oauth2/sql-account-repository.js';
import { SQL_USER_SCHEMA, SqlUserRepository, type SqlQuery } from '../../src/users/index.js';
import { oauth2User } from './routes-support.js';

// A real PostgreSQL (PGlite) for the file: the users schema and the account links.
let db: PGlite;
const query: SqlQuery = (sql, params) => db.query(sql, params);

beforeAll(async () => {
  db = new PGlite();
  await db.exec(SQL_USER_SCHEMA + sqlOAuth2AccountSchema());
  await db.exec(sqlOAuth2AccountSchema()); // idempotent
}, 120_000);

afterAll(async () => {
  await db.close();
});

beforeEach(async () => {
  await db.exec('DELETE FROM oauth2_accounts; DELETE FROM users');
});

const context = {} as OAuth2MapperContext;

describe('SqlOAuth2AccountRepository on PostgreSQL', () => {
  it('links a provider account once: a second link answers the first username', async () => {
    const users = new SqlUserRepository({ query });
    await users.createUser(new User('ann', '{none}', ['USER']));
    await users.createUser(new User('mallory', '{none}', ['USER']));
    const accounts = new SqlOAuth2AccountRepository({ query });
    expect(await accounts.findLinkedUsername('google', 'ann-sub')).toBeNull();
    const [first, second] = await Promise.all([
      accounts.linkProviderAccount('google', 'ann-sub', 'ann'),
      accounts.linkProviderAccount('google', 'ann-sub', 'mallory'),
    ]);
    expect(first).toBe('ann');
    expect(second).toBe('ann');
    expect(await accounts.findLinkedUsername('google', 'ann-sub')).toBe('ann');
    expect(await accounts.findLinkedUsername('github', 'ann-sub')).toBeNull();
  });

  it('values are parameters: a subject made of SQL links nothing else and drops nothing', async () => {
    const users = new SqlUserRepository({ query });
    await users.createUser(new User('ann', '{none}', ['USER']));
    const accounts = new SqlOAuth2AccountRepository({ query });
    const evil = "x' OR '1'='1'; DROP TABLE users; --";
    expect(await accounts.linkProviderAccount('google', evil, 'ann')).toBe('ann');
    expect(await accounts.findLinkedUsername('google', evil)).toBe('ann');
    expect(await accounts.findLinkedUsername('google', 'x')).toBeNull();
    expect(await users.userExists('ann')).toBe(true);
  });

  it('a link is deleted with its user, and linking to an unknown user fails', async () => {
    const users = new SqlUserRepository({ query });
    await users.createUser(new User('bea', '{none}', ['USER']));
    const accounts = new SqlOAuth2AccountRepository({ query });
    await accounts.linkProviderAccount('google', 'bea-sub', 'bea');
    await users.deleteUser('bea');
    expect(await accounts.findLinkedUsername('google', 'bea-sub')).toBeNull();
    await expect(accounts.linkProviderAccount('google', 'ghost', 'ghost')).rejects.toThrow();
  });

  it('accountLinkingMapper over the SQL users and links: sign-up once, then the same user; a locked one refused', async () => {
    const users = new SqlUserRepository({ query });
    const accounts = new SqlOAuth2AccountRepository({ query });
    let created = 0;
    const mapper = accountLinkingMapper({
      accounts,
      users,
      createUser: async (profile) => {
        created++;
        const user = new User(`${profile.provider}:${profile.subject}`, '{none}', ['USER']);
        await users.createUser(user);
        return user;
      },
    });
    expect((await mapper(oauth2User('google', 'cid'), context))?.username).toBe('google:cid');
    expect((await mapper(oauth2User('google', 'cid'), context))?.username).toBe('google:cid');
    expect(created).toBe(1);
    const user = await users.findByUsername('google:cid');
    await users.updateUser((user as User).withAccountState({ locked: true }));
    expect(await mapper(oauth2User('google', 'cid'), context)).toBeNull();
  });

  it('refuses table names that are not SQL identifiers, naming the option', () => {
    expect(() => sqlOAuth2AccountSchema({ accounts: 'links; DROP TABLE users' })).toThrow(
      expect.objectContaining({ option: 'tables.accounts' }),
    );
    expect(() => new SqlOAuth2AccountRepository({ query, tables: { users: 'a.b.c' } })).toThrow(
      expect.objectContaining({ option: 'tables.users' }),
    );
    expect(() => new SqlOAuth2AccountRepository({ query, tables: { link: 'x' } as never })).toThrow(
      expect.objectContaining({ option: 'tables.link' }),
    );
    expect(() => new SqlOAuth2AccountRepository({} as never)).toThrow(
      expect.objectContaining({ option: 'query' }),
    );
  });

  it('schema-qualified tables work', async () => {
    await db.exec('CREATE SCHEMA IF NOT EXISTS auth');
    await db.exec(sqlOAuth2AccountSchema({ accounts: 'auth.links', users: 'users' }));
    const users = new SqlUserRepository({ query });
    await users.createUser(new User('dan', '{none}', ['USER']));
    const accounts = new SqlOAuth2AccountRepository({ query, tables: { accounts: 'auth.links' } });
    expect(await accounts.linkProviderAccount('github', '42', 'dan')).toBe('dan');
    expect(await accounts.findLinkedUsername('github', '42')).toBe('dan');
    await db.exec('DROP SCHEMA auth CASCADE');
  });
});
