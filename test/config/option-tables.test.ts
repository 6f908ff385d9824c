import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { JWT_OPTIONS } from '../../src/jwt/config-options.js';
import { JwtConfig } from '../../src/jwt/config.js';
import { SESSION_OPTIONS } from '../../src/session/config-options.js';
import { SessionConfig } from '../../src/session/config.js';

const SECRET = 's'.repeat(64);
const PASSWORD = 'p'.repeat(32);
const clock = () => 0;
const reader = (claims: Readonly<Record<string, unknown>>) => claims.groups;

/** A good and a bad value of every JwtConfig option (a new row without one fails). */
const JWT_SAMPLES: Record<keyof typeof JWT_OPTIONS, readonly [unknown, unknown]> = {
  algorithm: ['HS512', 'RS256'],
  algorithms: [['HS384', 'HS256'], []],
  issuer: ['https://issuer.example', ''],
  audience: [['a', 'b'], []],
  expirationSeconds: [60, 0],
  leewaySeconds: [5, -1],
  headerName: ['X-Token', 'bad header'],
  headerPrefix: ['Token ', 'é'],
  maxTokenLength: [1000, 10],
  cache: [{ maxEntries: 5 }, { maxEntries: 0 }],
  accessTokenTypes: [['application/AT+JWT', 'jwt'], []],
  rolesClaim: ['realm_access.roles', 'a..b'],
  authoritiesClaim: [reader, 42],
  attributeClaims: [['email'], 'email'],
  clock: [clock, 0],
};

const SESSION_SAMPLES: Record<keyof typeof SESSION_OPTIONS, readonly [unknown, unknown]> = {
  passwords: [{ 1: PASSWORD, 2: PASSWORD.toUpperCase() }, 'short'],
  userKey: ['principal', 'sid'],
  authenticatedKey: ['loggedIn', '1x'],
  cookieName: ['app', 'a b'],
  maxAgeSeconds: [3600, 1],
  idleTimeoutSeconds: [600, 1],
  sameSite: ['Strict', 'None'],
  trustedOrigins: [['https://admin.example.com'], ['https://a.example/path']],
  origins: [['https://app.example.com'], ['ftp://a.example']],
  csrfHeaderName: ['X-XSRF', 'a b'],
  csrfFieldName: ['token', ''],
  dangerouslyAllowInsecureCookie: [true, 'yes'],
  dangerouslyAllowSameSiteNone: [true, 1],
  dangerouslySetDomain: ['example.com', 'a/b'],
  dangerouslyDisableCsrf: [true, 'no'],
};

function configurationError(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

function call(target: object, option: string, value: unknown): void {
  const setter = (target as Record<string, (value: unknown) => unknown>)[option];
  expect(setter, `the setter of ${option}`).toBeTypeOf('function');
  setter?.call(target, value);
}

describe('JwtConfig: the options object and the setters are one table', () => {
  it('has a sample for every row and a row for every sample', () => {
    expect(Object.keys(JWT_OPTIONS).sort()).toEqual(Object.keys(JWT_SAMPLES).sort());
  });

  it.each(Object.entries(JWT_SAMPLES))('%s: the same settings either way', (option, [good]) => {
    const fromOptions = new JwtConfig({ secret: SECRET, [option]: good });
    const bySetter = new JwtConfig(SECRET);
    call(bySetter, option, good);
    expect(fromOptions.resolve()).toEqual(bySetter.resolve());
    expect(fromOptions.resolve()).not.toEqual(new JwtConfig(SECRET).resolve());
  });

  it.each(Object.entries(JWT_SAMPLES))('%s: the same error either way', (option, [, bad]) => {
    const fromOptions = configurationError(() => new JwtConfig({ secret: SECRET, [option]: bad }));
    const bySetter = configurationError(() => {
      call(new JwtConfig(SECRET), option, bad);
    });
    expect(fromOptions.option).toBe(bySetter.option);
    expect(fromOptions.message).toBe(bySetter.message);
  });

  it('keeps its defaults', () => {
    expect(new JwtConfig(SECRET).resolve()).toMatchObject({
      algorithms: ['HS256'],
      issuer: undefined,
      audience: undefined,
      expirationSeconds: 900,
      leewaySeconds: 30,
      headerName: 'authorization',
      headerPrefix: 'Bearer ',
      maxTokenLength: 8192,
      cache: { maxEntries: 10_000, maxAgeSeconds: 300 },
      accessTokenTypes: ['at+jwt'],
      rolesClaim: 'roles',
      authoritiesClaim: 'authorities',
      attributeClaims: [],
      clock: Date.now,
    });
    expect(new JwtConfig(SECRET).resolve()).not.toHaveProperty('input');
  });

  it('a snapshot does not follow later setters', () => {
    const config = new JwtConfig(SECRET);
    const before = config.resolve();
    config.issuer('https://later.example').algorithm('HS512');
    expect(before.issuer).toBeUndefined();
    expect(before.algorithms).toEqual(['HS256']);
  });
});

describe('SessionConfig: the options object and the setters are one table', () => {
  it('has a sample for every row and a row for every sample', () => {
    expect(Object.keys(SESSION_OPTIONS).sort()).toEqual(Object.keys(SESSION_SAMPLES).sort());
  });

  const base = { passwords: PASSWORD };
  it.each(Object.entries(SESSION_SAMPLES))('%s: the same settings either way', (option, [good]) => {
    const fromOptions = new SessionConfig({ ...base, [option]: good });
    const bySetter = new SessionConfig(base);
    call(bySetter, option, good);
    expect(fromOptions.resolve()).toEqual(bySetter.resolve());
    expect(fromOptions.resolve()).not.toEqual(new SessionConfig(base).resolve());
  });

  it.each(Object.entries(SESSION_SAMPLES))('%s: a bad value is refused', (option, [, bad]) => {
    const fromOptions = configurationError(() =>
      new SessionConfig({ ...base, [option]: bad }).resolve(),
    );
    expect(fromOptions.option).toBe(option);
  });

  it('keeps its defaults', () => {
    expect(new SessionConfig(base).resolve()).toEqual({
      passwords: { 1: PASSWORD },
      userKey: 'user',
      authenticatedKey: 'authenticated',
      cookieName: '__Host-session',
      maxAgeSeconds: 28_800,
      idleTimeoutSeconds: undefined,
      sameSite: 'Lax',
      secure: true,
      domain: undefined,
      trustedOrigins: [],
      origins: [],
      csrf: true,
      csrfHeaderName: 'x-csrf-token',
      csrfFieldName: '_csrf',
    });
  });
});
