import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RepositoryAuthenticator } from '../../src/authentication/index.js';
import { ConfigurationError, MemoryUserChangeNotifier, User } from '../../src/index.js';
import {
  SQL_USER_SCHEMA,
  SqlUserRepository,
  sqlUserSchema,
  UserRepositoryError,
  type SqlQuery,
} from '../../src/users/index.js';
import { basic, requestWith, TestEncoder } from '../authentication/helpers.js';

// One real PostgreSQL (PGlite: Postgres compiled to WebAssembly, in this process) for the file.
let db: PGlite;
const statements: string[] = [];
const query: SqlQuery = (sql, params) => {
  statements.push(sql);
  return db.query(sql, params);
};

beforeAll(async () => {
  db = new PGlite();
  await db.exec(SQL_USER_SCHEMA);
  await db.exec(SQL_USER_SCHEMA); // idempotent
}, 120_000);

afterAll(async () => {
  await db.close();
});

beforeEach(async () => {
  await db.exec('DELETE FROM users');
  statements.length = 0;
});

const encoder = new TestEncoder();
const alice = () =>
  new User('alice', encoder.hash('wonderland'), ['USER', 'ADMIN'], ['posts:read', 'posts:write']);

describe('SqlUserRepository on PostgreSQL (PGlite)', () => {
  it('creates a user and finds it with roles and authorities in one query', async () => {
    const users = new SqlUserRepository({ query });
    await users.createUser(alice());
    statements.length = 0;
    const found = await users.findByUsername('alice');
    expect(statements).toHaveLength(1);
    expect(found?.username).toBe('alice');
    expect(found?.password).toBe(encoder.hash('wonderland'));
    expect([...(found?.roles ?? [])]).toEqual(['ADMIN', 'USER']);
    expect([...(found?.authorities ?? [])]).toEqual(['posts:read', 'posts:write']);
    expect(found?.accountState).toEqual({
      enabled: true,
      locked: false,
      accountExpired: false,
      credentialsExpired: false,
    });
    expect(await users.findByUsername('nobody')).toBeNull();
  });

  it('compares usernames exactly', async () => {
    const users = new SqlUserRepository({ query });
    await users.createUser(alice());
    expect(await users.findByUsername('Alice')).toBeNull();
    expect(await users.findByUsername('alice ')).toBeNull();
    expect(await users.userExists('alice')).toBe(true);
    expect(await users.userExists('ALICE')).toBe(false);
  });

  it('refuses a taken username with ERR_USER_EXISTS, and changes nothing', async () => {
    const users = new SqlUserRepository({ query });
    await users.createUser(alice());
    const error: unknown = await users
      .createUser(new User('alice', encoder.hash('other'), ['X']))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserRepositoryError);
    expect(error).toMatchObject({ code: 'ERR_USER_EXISTS' });
    expect([...((await users.findByUsername('alice'))?.roles ?? [])]).toEqual(['ADMIN', 'USER']);
  });

  it('updates password, state, roles and authorities in one statement', async () => {
    const users = new SqlUserRepository({ query });
    await users.createUser(alice());
    const changed = new User(
      'alice',
      encoder.hash('new'),
      ['USER', 'AUDITOR'],
      [],
    ).withAccountState({
      locked: true,
      credentialsExpired: true,
    });
    statements.length = 0;
    await users.updateUser(changed);
    expect(statements).toHaveLength(1);
    const found = await users.findByUsername('alice');
    expect(found?.password).toBe(encoder.hash('new'));
    expect([...(found?.roles ?? [])]).toEqual(['AUDITOR', 'USER']);
    expect(found?.authorities.size).toBe(0);
    expect(found?.accountState).toMatchObject({ locked: true, credentialsExpired: true });
    await expect(users.updateUser(new User('nobody', 'x'))).rejects.toMatchObject({
      code: 'ERR_USER_NOT_FOUND',
    });
  });

  it('reads expiry times by the database clock, and keeps a future one on update', async () => {
    const users = new SqlUserRepository({ query });
    await users.createUser(alice());
    await db.query(
      "UPDATE users SET account_expires_at = now() + interval '1 day', credentials_expire_at = now() - interval '1 second' WHERE username = $1",
      ['alice'],
    );
    let found = await users.findByUsername('alice');
    expect(found?.accountExpired).toBe(false);
    expect(found?.credentialsExpired).toBe(true);
    await users.updateUser((found as User).withAccountState({ credentialsExpired: false }));
    found = await users.findByUsername('alice');
    expect(found?.credentialsExpired).toBe(false);
    const row = await db.query<{ future: boolean }>(
      'SELECT account_expires_at > now() AS future FROM users WHERE username = $1',
      ['alice'],
    );
    expect(row.rows[0]?.future).toBe(true);
    await users.updateUser((found as User).withAccountState({ accountExpired: true }));
    expect((await users.findByUsername('alice'))?.accountExpired).toBe(true);
  });

  it('updatePassword is a compare-and-set on the stored hash', async () => {
    const users = new SqlUserRepository({ query });
    await users.createUser(alice());
    const stale = await users.findByUsername('alice');
    const upgraded = await users.updatePassword(stale as User, encoder.hash('wonderland', 'new'));
    expect(upgraded?.password).toBe(encoder.hash('wonderland', 'new'));
    expect([...(upgraded?.roles ?? [])]).toEqual(['ADMIN', 'USER']);
    // The same stale user again: the stored hash is no longer its own, nothing changes.
    expect(
      await users.updatePassword(stale as User, encoder.hash('wonderland', 'other')),
    ).toBeNull();
    expect((await users.findByUsername('alice'))?.password).toBe(encoder.hash('wonderland', 'new'));
  });

  it('deletes a user with its roles and authorities; changes passwords; announces changes', async () => {
    const userChanges = new MemoryUserChangeNotifier();
    const announced: string[] = [];
    userChanges.subscribe((name) => announced.push(name));
    const users = new SqlUserRepository({ query, userChanges });
    await users.createUser(alice());
    expect(await users.changePassword('alice', encoder.hash('reset'))).toBe(true);
    expect((await users.findByUsername('alice'))?.password).toBe(encoder.hash('reset'));
    expect(await users.changePassword('nobody', encoder.hash('reset'))).toBe(false);
    expect(await users.deleteUser('alice')).toBe(true);
    expect(await users.deleteUser('alice')).toBe(false);
    const left = await db.query<{ n: number }>(
      'SELECT (SELECT count(*) FROM user_roles)::int + (SELECT count(*) FROM user_authorities)::int AS n',
    );
    expect(left.rows[0]?.n).toBe(0);
    expect(announced).toEqual(['alice', 'alice']);
  });
});

describe('SQL injection through the username is harmless (every value is a parameter)', () => {
  const attacks = [
    "' OR '1'='1",
    "alice' --",
    "alice'; DROP TABLE users; --",
    'alice" OR 1=1 --',
    "x' UNION SELECT 'alice', 'x', true, false, false, false, '{}', '{}' --",
    '$1',
  ];

  it.each(attacks)('finds no user for %s, and the tables are intact', async (name) => {
    const users = new SqlUserRepository({ query });
    await users.createUser(alice());
    expect(await users.findByUsername(name)).toBeNull();
    expect(await users.userExists(name)).toBe(false);
    expect(await users.deleteUser(name)).toBe(false);
    expect(await users.changePassword(name, 'x')).toBe(false);
    expect((await users.findByUsername('alice'))?.password).toBe(encoder.hash('wonderland'));
  });

  it('stores and finds such names as the exact strings they are', async () => {
    const users = new SqlUserRepository({ query });
    for (const name of attacks) await users.createUser(new User(name, encoder.hash('pw'), [name]));
    for (const name of attacks) {
      const found = await users.findByUsername(name);
      expect(found?.username).toBe(name);
      expect([...(found?.roles ?? [])]).toEqual([name]);
    }
    const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
    expect(count.rows[0]?.n).toBe(attacks.length);
  });

  it('logs in nobody through the authenticator with an injected username', async () => {
    const users = new SqlUserRepository({ query });
    await users.createUser(alice());
    const auth = new RepositoryAuthenticator({ users, passwordEncoder: encoder });
    for (const name of ["' OR '1'='1' --", "alice' --", "alice'/*"]) {
      expect(await auth.attempt(requestWith(basic(name, 'wonderland')))).toMatchObject({
        kind: 'failed',
        reason: 'unknown-user',
      });
    }
  });
});

describe('table names', () => {
  it.each([
    ['users; DROP TABLE users', 'tables.users'],
    ['"users"', 'tables.users'],
    ['a.b.c', 'tables.users'],
    ['1users', 'tables.users'],
    ['', 'tables.users'],
  ])('refuses %s as a SQL identifier', (name, option) => {
    expect(() => new SqlUserRepository({ query, tables: { users: name } })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option }),
    );
    expect(() => sqlUserSchema({ users: name })).toThrow(ConfigurationError);
  });

  it('refuses unknown options and a missing query function', () => {
    expect(() => new SqlUserRepository({ query, tables: { user: 'x' } as never })).toThrow(
      expect.objectContaining({ option: 'tables.user' }),
    );
    expect(() => new SqlUserRepository({} as never)).toThrow(
      expect.objectContaining({ option: 'query' }),
    );
  });

  it('works on schema-qualified tables of its own names', async () => {
    await db.exec('CREATE SCHEMA IF NOT EXISTS auth');
    const tables = {
      users: 'auth.accounts',
      roles: 'auth.account_roles',
      authorities: 'auth.grants',
    };
    await db.exec(sqlUserSchema(tables));
    const users = new SqlUserRepository({ query, tables });
    await users.createUser(alice());
    expect((await users.findByUsername('alice'))?.roles.has('ADMIN')).toBe(true);
    const plain = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
    expect(plain.rows[0]?.n).toBe(0);
  });
});

describe('malformed rows give a typed error without the stored hash', () => {
  it.each([
    ['password', "INSERT INTO lax_users VALUES ('eve', NULL, true, false, NULL, NULL)"],
    [
      'enabled',
      "INSERT INTO lax_users VALUES ('eve', '{test}SECRET-HASH', NULL, false, NULL, NULL)",
    ],
    [
      'roles',
      "INSERT INTO lax_users VALUES ('eve', '{test}SECRET-HASH', true, false, NULL, NULL); INSERT INTO lax_roles VALUES ('eve', E'bad\\nrole')",
    ],
  ])('a bad %s', async (field, insert) => {
    await db.exec(`DROP TABLE IF EXISTS lax_roles, lax_grants, lax_users;
CREATE TABLE lax_users (username text PRIMARY KEY, password text, enabled boolean, locked boolean,
  account_expires_at timestamptz, credentials_expire_at timestamptz);
CREATE TABLE lax_roles (username text, role text);
CREATE TABLE lax_grants (username text, authority text);
${insert};`);
    const users = new SqlUserRepository({
      query,
      tables: { users: 'lax_users', roles: 'lax_roles', authorities: 'lax_grants' },
    });
    const error: unknown = await users.findByUsername('eve').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserRepositoryError);
    expect(error).toMatchObject({ code: 'ERR_USER_RECORD_MALFORMED', field });
    expect((error as Error).message).not.toContain('SECRET-HASH');
  });
});

describe('RepositoryAuthenticator over the SQL repository, end to end', () => {
  it('logs in, refuses a lock announced by another instance, and upgrades a hash once', async () => {
    const userChanges = new MemoryUserChangeNotifier();
    const users = new SqlUserRepository({ query, userChanges });
    await users.createUser(alice());
    const upgrading = new TestEncoder();
    upgrading.upgrade = (encoded) => encoded.startsWith('{test}fixed$');
    const a = new RepositoryAuthenticator({
      users,
      passwordEncoder: upgrading,
      userChanges,
      cache: false,
    });
    const b = new RepositoryAuthenticator({ users, passwordEncoder: upgrading, userChanges });
    const login = (auth: RepositoryAuthenticator, password: string) =>
      auth.attempt(requestWith(basic('alice', password)));

    statements.length = 0;
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, async () => login(a, 'wonderland')),
    );
    expect(outcomes.every((o) => o.kind === 'authenticated')).toBe(true);
    expect(statements.filter((s) => s.includes('AND password = $2'))).toHaveLength(1);
    const stored = await users.findByUsername('alice');
    expect(stored?.password).not.toBe(encoder.hash('wonderland'));
    expect(await upgrading.matches('wonderland', stored?.password ?? '')).toBe(true);

    expect(await login(b, 'wonderland')).toMatchObject({ kind: 'authenticated' });
    expect(await login(b, 'nope')).toMatchObject({ reason: 'bad-credentials' });
    await users.updateUser((stored as User).withAccountState({ locked: true })); // announces
    expect(await login(b, 'wonderland')).toMatchObject({
      kind: 'failed',
      reason: 'account-locked',
    });
    expect(await login(b, 'nope')).toMatchObject({ kind: 'failed', reason: 'bad-credentials' });
  });
});
