import { describe, expect, it } from 'vitest';
import {
  compileExpression,
  ConfigurationError,
  Firewall,
  MemoryAuthenticator,
  SecurityHeaders,
  SqlUserRepository,
  sqlUserSchema,
} from '../../src/index.js';
import { JwtConfig } from '../../src/jwt/index.js';
import { sqlOAuth2AccountSchema } from '../../src/oauth2/sql-account-repository.js';
import { SessionConfig } from '../../src/session/index.js';

function thrown(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

const SECRET = 'x'.repeat(32);
const query = () => Promise.resolve({ rows: [] });

/**
 * Every configuration entry point that once had its own unknown-option check now
 * gives the one message: `<option>: is not an option of <owner> (did you mean "<x>"?)`,
 * with `option` naming the unknown key (or its path).
 */
describe('one unknown-option message', () => {
  const cases: readonly (readonly [string, () => unknown, string, string])[] = [
    ['JwtConfig', () => new JwtConfig({ secret: SECRET, issur: 'x' }), 'issur', 'issuer'],
    [
      'cache',
      () => new JwtConfig(SECRET).cache({ maxEntrys: 1 } as never),
      'maxEntrys',
      'maxEntries',
    ],
    [
      'SessionConfig',
      () => new SessionConfig({ password: SECRET } as never),
      'password',
      'passwords',
    ],
    [
      'Firewall',
      () => new Firewall({ allowNull: true } as never),
      'allowNull',
      'dangerouslyAllowNull',
    ],
    [
      'compileExpression',
      () => compileExpression('true', { maxdepth: 3 } as never),
      'maxdepth',
      'maxDepth',
    ],
    [
      'MemoryAuthenticator',
      () => new MemoryAuthenticator({ encoder: 1 } as never),
      'encoder',
      'passwordEncoder',
    ],
    ['cache', () => new MemoryAuthenticator({ cache: { ttl: 5 } } as never), 'cache.ttl', 'ttlMs'],
    [
      'SecurityHeaders',
      () => new SecurityHeaders({ hsts: {} } as never),
      'hsts',
      'strictTransportSecurity',
    ],
    [
      'strictTransportSecurity',
      () => new SecurityHeaders({ strictTransportSecurity: { maxage: 1 } } as never),
      'strictTransportSecurity.maxage',
      'maxAge',
    ],
    [
      'SqlUserRepository',
      () => new SqlUserRepository({ query, querry: 1 } as never),
      'querry',
      'query',
    ],
    ['tables', () => sqlUserSchema({ user: 'x' } as never), 'tables.user', 'users'],
    [
      'tables',
      () => sqlOAuth2AccountSchema({ account: 'x' } as never),
      'tables.account',
      'accounts',
    ],
  ];

  it.each(cases)('%s', (owner, run, option, meant) => {
    const error = thrown(run);
    expect(error.code).toBe('ERR_INVALID_OPTION');
    expect(error.option).toBe(option);
    expect(error.message).toBe(
      `${option}: is not an option of ${owner} (did you mean "${meant}"?)`,
    );
  });

  it('gives no hint for a name near no option', () => {
    const error = thrown(() => new SessionConfig({ frobnicate: 1 } as never));
    expect(error.message).toBe('frobnicate: is not an option of SessionConfig');
  });
});
