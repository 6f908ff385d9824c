import { describe, expect, it } from 'vitest';
import { User } from '../../src/core/index.js';
import { JwtAuthenticator, JwtConfig, type JwtConfigOptions } from '../../src/jwt/index.js';
import { NOW, SECRET, expectJwtError, keyPairs, secretOf, thrown } from './support.js';

const invalid = (option: string) => ({ code: 'ERR_INVALID_OPTION', option });

describe('JwtConfig defaults', () => {
  it('resolves every default', () => {
    const settings = new JwtConfig(SECRET).resolve();
    expect(settings).toMatchObject({
      jwks: undefined,
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
    });
    expect(settings.clock).toBe(Date.now);
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('JWKS mode defaults to RS256, 600 s cache, 30 s cooldown, 5 s timeout', () => {
    const settings = JwtConfig.jwks('https://idp.example/jwks.json').resolve();
    expect(settings.keys).toBeUndefined();
    expect(settings.algorithms).toEqual(['RS256']);
    expect(settings.jwks).toMatchObject({
      cacheMaxAgeSeconds: 600,
      cooldownSeconds: 30,
      timeoutMs: 5000,
    });
    expect(settings.jwks?.url.href).toBe('https://idp.example/jwks.json');
  });

  it('setters chain on the same configuration', () => {
    const config = new JwtConfig(SECRET);
    expect(config.issuer('i').audience('a').expirationHours(2).leewaySeconds(0)).toBe(config);
    expect(config.resolve()).toMatchObject({
      issuer: 'i',
      audience: ['a'],
      expirationSeconds: 7200,
      leewaySeconds: 0,
    });
    expect(new JwtConfig(SECRET).expirationDays(2).resolve().expirationSeconds).toBe(172_800);
    expect(new JwtConfig(SECRET).expirationSeconds(1).resolve().expirationSeconds).toBe(1);
  });

  it("keeps the SPEC's names expirationSecs and leewaySecs as the same setters", () => {
    const config = new JwtConfig(SECRET);
    expect(config.expirationSecs(120).leewaySecs(5)).toBe(config);
    expect(config.resolve()).toMatchObject({ expirationSeconds: 120, leewaySeconds: 5 });
    expect(thrown(() => config.expirationSecs(0))).toMatchObject(invalid('expirationSeconds'));
    expect(thrown(() => config.leewaySecs(3601))).toMatchObject(invalid('leewaySeconds'));
  });
});

describe('the options object form', () => {
  it('is equivalent to the fluent form', () => {
    const clock = () => NOW;
    const options: JwtConfigOptions = {
      secret: SECRET,
      algorithm: 'HS512',
      issuer: 'https://i.example',
      audience: ['a', 'b'],
      expirationSeconds: 60,
      leewaySeconds: 5,
      headerName: 'X-Token',
      headerPrefix: '',
      maxTokenLength: 4096,
      cache: false,
      accessTokenTypes: ['at+jwt', 'JWT'],
      rolesClaim: 'realm_access.roles',
      authoritiesClaim: 'scope',
      attributeClaims: ['tenant'],
      clock,
    };
    const frozen = Object.freeze({ ...options });
    const fromOptions = JwtConfig.fromOptions(frozen).resolve();
    expect(fromOptions).toMatchObject({
      algorithms: ['HS512'],
      issuer: 'https://i.example',
      audience: ['a', 'b'],
      expirationSeconds: 60,
      leewaySeconds: 5,
      headerName: 'x-token',
      headerPrefix: '',
      maxTokenLength: 4096,
      cache: false,
      accessTokenTypes: ['at+jwt', 'jwt'],
      rolesClaim: 'realm_access.roles',
      authoritiesClaim: 'scope',
      attributeClaims: ['tenant'],
    });
    expect(fromOptions.clock).toBe(clock);
    expect(frozen).toEqual(options);
  });

  it('refuses unknown options, naming them', () => {
    const cases: readonly (readonly [unknown, string])[] = [
      [{ secret: SECRET, algorithim: 'HS512' }, 'algorithim'],
      [{ secret: SECRET, expiration: 60 }, 'expiration'],
      [{ secret: SECRET, leeway: 5 }, 'leeway'],
      [{ secret: SECRET, cache: { maxEntries: 1, maxAge: 5 } }, 'maxAge'],
      [{ jwks: { url: 'https://idp.example/jwks', cooldown: 1 } }, 'cooldown'],
    ];
    for (const [options, option] of cases) {
      expect(thrown(() => new JwtConfig(options as JwtConfigOptions))).toMatchObject(
        invalid(option),
      );
    }
  });

  it('refuses conflicting or missing key options', () => {
    const url = 'https://idp.example/jwks';
    expect(thrown(() => new JwtConfig({ secret: SECRET, key: SECRET }))).toMatchObject(
      invalid('key'),
    );
    expect(thrown(() => new JwtConfig({ jwks: url, secret: SECRET }))).toMatchObject(
      invalid('jwks'),
    );
    expect(thrown(() => new JwtConfig({}))).toMatchObject(invalid('secret'));
    expect(
      thrown(() => new JwtConfig({ secret: SECRET, algorithm: 'HS256', algorithms: ['HS256'] })),
    ).toMatchObject(invalid('algorithm'));
  });

  it('never puts the secret in an error message', () => {
    const short = secretOf(20);
    const error = thrown(() => new JwtConfig({ secret: short })) as unknown as Error;
    expect(error.message).not.toContain(short);
  });
});

describe('JWKS configuration', () => {
  it('accepts https anywhere and http on loopback hosts only', () => {
    for (const url of [
      'https://idp.example/.well-known/jwks.json',
      'http://127.0.0.1:8080/jwks',
      'http://localhost/jwks',
      'http://[::1]:9000/jwks',
      new URL('https://idp.example/jwks'),
    ]) {
      expect(() => JwtConfig.jwks(url)).not.toThrow();
    }
    for (const url of [
      'http://idp.example/jwks',
      'http://127.0.0.1.nip.io/jwks',
      'http://localhost.evil.example/jwks',
      'http://10.0.0.1/jwks',
      'ftp://idp.example/jwks',
      'file:///etc/jwks.json',
      '/relative/jwks.json',
      'not a url',
    ]) {
      expect(
        thrown(() => JwtConfig.jwks(url)),
        url,
      ).toMatchObject(invalid('jwks.url'));
      expect(
        thrown(() => new JwtConfig({ jwks: { url } })),
        url,
      ).toMatchObject(invalid('jwks.url'));
    }
  });

  it('refuses HMAC algorithms (a JWKS has no shared secret)', () => {
    const url = 'https://idp.example/jwks';
    expect(thrown(() => JwtConfig.jwks(url).algorithm('HS256'))).toMatchObject(
      invalid('algorithm'),
    );
    expect(thrown(() => JwtConfig.jwks(url).algorithms(['RS256', 'HS512']))).toMatchObject(
      invalid('algorithm'),
    );
    expect(thrown(() => new JwtConfig({ jwks: url, algorithm: 'HS256' }))).toMatchObject(
      invalid('algorithm'),
    );
    expect(
      JwtConfig.jwks(url).algorithms(['RS256', 'ES256', 'EdDSA']).resolve().algorithms,
    ).toEqual(['RS256', 'ES256', 'EdDSA']);
  });

  it('validates its numbers', () => {
    const url = 'https://idp.example/jwks';
    expect(thrown(() => JwtConfig.jwks({ url, cacheMaxAgeSeconds: 0 }))).toMatchObject(
      invalid('jwks.cacheMaxAgeSeconds'),
    );
    expect(thrown(() => JwtConfig.jwks({ url, cooldownSeconds: -1 }))).toMatchObject(
      invalid('jwks.cooldownSeconds'),
    );
    expect(thrown(() => JwtConfig.jwks({ url, timeoutMs: 50 }))).toMatchObject(
      invalid('jwks.timeoutMs'),
    );
  });

  it('cannot sign: ERR_JWT_SIGNING_FAILED', async () => {
    const jwt = new JwtAuthenticator(JwtConfig.jwks('https://idp.example/jwks'));
    await expectJwtError(jwt.generateToken(new User('alice', '')), 'ERR_JWT_SIGNING_FAILED');
  });
});

describe('option validation', () => {
  const config = () => new JwtConfig(SECRET);
  const cases: readonly (readonly [string, string, (c: JwtConfig) => unknown])[] = [
    ['expirationSeconds 0', 'expirationSeconds', (c) => c.expirationSeconds(0)],
    [
      'expirationSeconds over a year',
      'expirationSeconds',
      (c) => c.expirationSeconds(367 * 86_400),
    ],
    ['expirationHours 1.5', 'expirationHours', (c) => c.expirationHours(1.5)],
    ['expirationDays 0', 'expirationDays', (c) => c.expirationDays(0)],
    ['a header name with a space', 'headerName', (c) => c.headerName('X Token')],
    ['an empty header name', 'headerName', (c) => c.headerName('')],
    ['a prefix with CR LF', 'headerPrefix', (c) => c.headerPrefix('Bearer\r\n')],
    ['maxTokenLength 63', 'maxTokenLength', (c) => c.maxTokenLength(63)],
    ['cache maxEntries 0', 'cache.maxEntries', (c) => c.cache({ maxEntries: 0 })],
    ['cache maxAgeSeconds 0', 'cache.maxAgeSeconds', (c) => c.cache({ maxAgeSeconds: 0 })],
    ['cache true', 'cache', (c) => c.cache(true as unknown as false)],
    ['no access-token types', 'accessTokenTypes', (c) => c.accessTokenTypes([])],
    ['an empty access-token type', 'accessTokenTypes', (c) => c.accessTokenTypes([''])],
    ['a roles path with an empty segment', 'rolesClaim', (c) => c.rolesClaim('realm..roles')],
    ['a roles claim of a number', 'rolesClaim', (c) => c.rolesClaim(1 as unknown as string)],
    ['an authorities path with a space', 'authoritiesClaim', (c) => c.authoritiesClaim('a b')],
    [
      'attribute claims as a string',
      'attributeClaims',
      (c) => c.attributeClaims('tenant' as unknown as string[]),
    ],
    ['a clock that is a number', 'clock', (c) => c.clock(NOW as unknown as () => number)],
  ];
  it.each(cases)('%s', (_name, option, apply) => {
    expect(thrown(() => apply(config()))).toMatchObject(invalid(option));
  });
});

describe('JwtAuthenticator takes a snapshot', () => {
  it('later changes to the configuration do not reach it', async () => {
    const config = new JwtConfig(SECRET).clock(() => NOW);
    const jwt = new JwtAuthenticator(config);
    config.issuer('https://later.example').algorithm('HS512').expirationSeconds(5);
    expect(jwt.settings).toMatchObject({
      issuer: undefined,
      algorithms: ['HS256'],
      expirationSeconds: 900,
    });
    expect(jwt.expiresIn).toBe(900);
    const token = await jwt.generateToken(new User('alice', ''));
    await expect(jwt.validateToken(token)).resolves.toBeDefined();
  });

  it('accepts the options object directly, and checks its events option', () => {
    const jwt = new JwtAuthenticator({ key: keyPairs.p256().publicKey, expirationSeconds: 120 });
    expect(jwt.settings.algorithms).toEqual(['ES256']);
    expect(jwt.expiresIn).toBe(120);
    expect(
      thrown(() => new JwtAuthenticator(new JwtConfig(SECRET), { events: {} as never })),
    ).toMatchObject(invalid('events'));
  });
});
