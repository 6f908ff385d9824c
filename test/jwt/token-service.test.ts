import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import {
  ConfigurationError,
  createSecurityRequest,
  SecurityEvents,
  User,
  type SecurityEvent,
} from '../../src/index.js';
import {
  JwtAuthenticator,
  JwtConfig,
  JwtError,
  JwtTokenService,
  toTokenResponse,
  type JwtTokenServiceOptions,
} from '../../src/jwt/index.js';

const SECRET = 'token-service-test-secret-0123456789abcdef';
const T0 = Date.UTC(2030, 0, 1, 12);
const DAY = 86_400;

function setup(options: JwtTokenServiceOptions = {}) {
  const clock = { now: T0 };
  const config = new JwtConfig(SECRET)
    .issuer('https://issuer.test')
    .audience('api')
    .clock(() => clock.now);
  const events = new SecurityEvents();
  const seen: SecurityEvent[] = [];
  events.on('*', (event) => {
    seen.push(event);
  });
  const service = new JwtTokenService(config, { events, ...options });
  const users = new Map([['alice', new User('alice', '{noop}pw', ['USER'], ['posts:read'])]]);
  const loadUser = vi.fn((name: string) => users.get(name) ?? null);
  const alice = users.get('alice') as User;
  return { clock, config, service, users, loadUser, events: seen, alice };
}

/** Awaits a rejection and returns the JwtError's code. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JwtError);
  return (error as JwtError).code;
}

describe('JwtTokenService: issuing', () => {
  it('issues a pair: an at+jwt access token and a minimal refresh+jwt token', async () => {
    const { service, config, alice } = setup();
    const pair = await service.generateTokenPair(alice);
    expect(pair).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, refreshExpiresIn: 14 * DAY });
    expect(Object.isFrozen(pair)).toBe(true);

    expect(decodeProtectedHeader(pair.accessToken).typ).toBe('at+jwt');
    const { claims } = await new JwtAuthenticator(config).validateToken(pair.accessToken);
    expect(claims).toMatchObject({ sub: 'alice', roles: ['USER'], authorities: ['posts:read'] });

    expect(decodeProtectedHeader(pair.refreshToken).typ).toBe('refresh+jwt');
    const refresh = decodeJwt(pair.refreshToken);
    expect(Object.keys(refresh).sort()).toEqual(
      ['aud', 'auth_time', 'exp', 'fam', 'iat', 'iss', 'jti', 'sub'].sort(),
    );
    expect(refresh).toMatchObject({
      sub: 'alice',
      iss: 'https://issuer.test',
      aud: 'api',
      iat: T0 / 1000,
      exp: T0 / 1000 + 14 * DAY,
      auth_time: T0 / 1000,
    });
  });

  it('starts a new family at every login', async () => {
    const { service, alice } = setup();
    const a = decodeJwt(await service.generateRefreshToken(alice));
    const b = decodeJwt(await service.generateRefreshToken(alice));
    expect(a['fam']).not.toBe(b['fam']);
    expect(a.jti).not.toBe(b.jti);
  });

  it('takes the refresh lifetime from refreshExpirationDays/Hours/Seconds or the options', async () => {
    const { service, alice } = setup();
    expect(service.refreshExpirationDays(30).refreshExpiresIn).toBe(30 * DAY);
    const token = decodeJwt(await service.generateRefreshToken(alice));
    expect((token.exp ?? 0) - (token.iat ?? 0)).toBe(30 * DAY);
    expect(service.refreshExpirationHours(2).refreshExpiresIn).toBe(7200);
    expect(service.refreshExpirationSeconds(3600).refreshExpiresIn).toBe(3600);
    expect(setup({ refreshExpirationSeconds: 1800 }).service.refreshExpiresIn).toBe(1800);
  });

  it('accepts the plain-object configuration', async () => {
    const service = new JwtTokenService({ secret: SECRET, expirationSeconds: 60 });
    const pair = await service.generateTokenPair(new User('bob', ''));
    expect(pair.expiresIn).toBe(60);
    expect(await service.authenticator.validateToken(pair.accessToken)).toBeTruthy();
  });

  it('maps a pair to an OAuth 2.0 token response', async () => {
    const { service, alice } = setup();
    const pair = await service.generateTokenPair(alice);
    expect(toTokenResponse(pair)).toEqual({
      access_token: pair.accessToken,
      token_type: 'Bearer',
      expires_in: 900,
      refresh_token: pair.refreshToken,
      refresh_expires_in: 14 * DAY,
    });
  });
});

describe('JwtTokenService: refresh', () => {
  it('issues a new pair with the current roles, in the same family', async () => {
    const { service, users, loadUser, alice } = setup();
    const login = await service.generateTokenPair(alice);
    users.set('alice', alice.withRoles(['ADMIN']).withAuthorities(['users:write']));
    const next = await service.refresh(login.refreshToken, loadUser);
    expect(loadUser).toHaveBeenCalledWith('alice');
    const { claims } = await service.authenticator.validateToken(next.accessToken);
    expect(claims).toMatchObject({ sub: 'alice', roles: ['ADMIN'], authorities: ['users:write'] });
    const before = decodeJwt(login.refreshToken);
    const after = decodeJwt(next.refreshToken);
    expect(after['fam']).toBe(before['fam']);
    expect(after.jti).not.toBe(before.jti);
    expect(after['auth_time']).toBe(before['auth_time']);
    expect(Object.keys(after)).not.toContain('roles');
  });

  it('slides the refresh expiry and keeps the login time', async () => {
    const { service, clock, loadUser, alice } = setup();
    const login = await service.generateRefreshToken(alice);
    clock.now += DAY * 1000;
    const next = decodeJwt((await service.refresh(login, loadUser)).refreshToken);
    expect(next.exp).toBe(T0 / 1000 + 15 * DAY);
    expect(next['auth_time']).toBe(T0 / 1000);
  });

  it('accepts an asynchronous loadUser', async () => {
    const { service, alice } = setup();
    const login = await service.generateRefreshToken(alice);
    const next = await service.refresh(login, (name) => Promise.resolve(new User(name, '')));
    expect(decodeJwt(next.accessToken).roles).toEqual([]);
  });

  it('refuses an access token as a refresh token, and a refresh token as an access token', async () => {
    const { service, config, loadUser, alice } = setup();
    const pair = await service.generateTokenPair(alice);
    expect(await codeOf(service.refresh(pair.accessToken, loadUser))).toBe('ERR_JWT_WRONG_TYPE');
    expect(loadUser).not.toHaveBeenCalled();
    const authenticator = new JwtAuthenticator(config);
    expect(await codeOf(authenticator.validateToken(pair.refreshToken))).toBe('ERR_JWT_WRONG_TYPE');
    const request = createSecurityRequest({
      method: 'GET',
      url: '/api',
      header: (name) => (name === 'authorization' ? `Bearer ${pair.refreshToken}` : undefined),
    });
    expect(await authenticator.authenticate(request)).toBeNull();
    expect(await service.authenticator.authenticate(request)).toBeNull();
  });

  it('refuses an expired refresh token', async () => {
    const { service, clock, loadUser, alice, events } = setup();
    const login = await service.generateRefreshToken(alice);
    clock.now += (14 * DAY + 30 + 1) * 1000; // past exp and the 30 s leeway
    expect(await codeOf(service.refresh(login, loadUser))).toBe('ERR_JWT_EXPIRED');
    expect(loadUser).not.toHaveBeenCalled();
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'authentication-failure', reason: 'expired-token' }),
    );
  });

  it('refuses refresh tokens of another key, issuer, audience or algorithm family', async () => {
    const { service, loadUser, alice } = setup();
    const otherKey = new JwtTokenService(
      new JwtConfig(`${SECRET}-other`)
        .issuer('https://issuer.test')
        .audience('api')
        .clock(() => T0),
    );
    const otherIssuer = new JwtTokenService(
      new JwtConfig(SECRET)
        .issuer('https://evil.test')
        .audience('api')
        .clock(() => T0),
    );
    const otherAudience = new JwtTokenService(
      new JwtConfig(SECRET)
        .issuer('https://issuer.test')
        .audience('web')
        .clock(() => T0),
    );
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const otherAlg = new JwtTokenService(
      new JwtConfig(privateKey)
        .issuer('https://issuer.test')
        .audience('api')
        .clock(() => T0),
    );
    const cases = [
      [otherKey, 'ERR_JWT_BAD_SIGNATURE'],
      [otherIssuer, 'ERR_JWT_BAD_ISSUER'],
      [otherAudience, 'ERR_JWT_BAD_AUDIENCE'],
      [otherAlg, 'ERR_JWT_ALGORITHM_NOT_ALLOWED'],
    ] as const;
    for (const [other, code] of cases) {
      const foreign = await other.generateRefreshToken(alice);
      expect(await codeOf(service.refresh(foreign, loadUser))).toBe(code);
    }
    expect(loadUser).not.toHaveBeenCalled();
  });

  it('refuses a correctly signed refresh+jwt token without fam, jti or auth_time', async () => {
    const { service, loadUser } = setup();
    const key = new TextEncoder().encode(SECRET);
    const base = {
      sub: 'alice',
      iat: T0 / 1000,
      exp: T0 / 1000 + 60,
      iss: 'https://issuer.test',
      aud: 'api',
    };
    const variants = [
      { ...base, jti: 'j1', auth_time: T0 / 1000 },
      { ...base, fam: 'f1', auth_time: T0 / 1000 },
      { ...base, jti: 'j1', fam: 'f1' },
      { ...base, jti: 'j1', fam: { id: 'f1' }, auth_time: T0 / 1000 },
    ];
    for (const payload of variants) {
      const token = await new SignJWT(payload)
        .setProtectedHeader({ alg: 'HS256', typ: 'refresh+jwt' })
        .sign(key);
      expect(await codeOf(service.refresh(token, loadUser))).toBe('ERR_JWT_MALFORMED');
    }
  });

  it('refuses an unknown user and revokes the family', async () => {
    const { service, users, loadUser, alice, events } = setup();
    const login = await service.generateTokenPair(alice);
    const next = await service.refresh(login.refreshToken, loadUser);
    users.delete('alice');
    expect(await codeOf(service.refresh(next.refreshToken, loadUser))).toBe('ERR_JWT_UNKNOWN_USER');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'authentication-failure',
        reason: 'unknown-user',
        username: 'alice',
      }),
    );
    users.set('alice', alice); // an account re-created with the same name gets no old session
    expect(await codeOf(service.refresh(next.refreshToken, loadUser))).toBe('ERR_JWT_REVOKED');
  });

  it('refuses a loadUser answer for another username', async () => {
    const { service, alice } = setup();
    const login = await service.generateRefreshToken(alice);
    const wrong = () => new User('Alice', '', ['ADMIN']);
    expect(await codeOf(service.refresh(login, wrong))).toBe('ERR_JWT_UNKNOWN_USER');
  });

  it('does not spend the token when loadUser fails', async () => {
    const { service, loadUser, alice } = setup({ graceSeconds: 0 });
    const login = await service.generateRefreshToken(alice);
    const failing = () => Promise.reject(new Error('database down'));
    await expect(service.refresh(login, failing)).rejects.toThrow('database down');
    await expect(service.refresh(login, loadUser)).resolves.toMatchObject({ tokenType: 'Bearer' });
  });
});

describe('JwtTokenService: events and secrecy', () => {
  it('publishes a refresh success with the request summary', async () => {
    const { service, loadUser, alice, events } = setup();
    const login = await service.generateRefreshToken(alice);
    const request = createSecurityRequest({
      method: 'POST',
      url: '/auth/refresh',
      header: () => undefined,
      clientAddress: '203.0.113.9',
    });
    await service.refresh(login, loadUser, { request });
    expect(events).toEqual([
      {
        type: 'authentication-success',
        username: 'alice',
        authenticationMethod: 'jwt-refresh',
        request: { method: 'POST', path: '/auth/refresh', clientAddress: '203.0.113.9' },
      },
    ]);
  });

  it('puts no token in an error message or an event', async () => {
    const { service, clock, loadUser, alice, events } = setup();
    const pair = await service.generateTokenPair(alice);
    const next = await service.refresh(pair.refreshToken, loadUser);
    clock.now += 11_000;
    const errors: unknown[] = [];
    for (const token of [
      pair.refreshToken, // reused
      next.refreshToken, // revoked
      pair.accessToken, // wrong type
      `${pair.refreshToken}x`, // bad signature
    ]) {
      errors.push(await service.refresh(token, loadUser).catch((e: unknown) => e));
    }
    const tokens = [pair.accessToken, pair.refreshToken, next.accessToken, next.refreshToken];
    const parts = tokens.flatMap((t) => t.split('.'));
    const text = JSON.stringify(events) + errors.map((e) => String(e)).join('\n');
    for (const part of parts) expect(text).not.toContain(part);
    expect(errors.map((e) => (e as JwtError).code)).toEqual([
      'ERR_JWT_REFRESH_REUSED',
      'ERR_JWT_REVOKED',
      'ERR_JWT_WRONG_TYPE',
      'ERR_JWT_BAD_SIGNATURE',
    ]);
  });
});

describe('JwtTokenService: configuration', () => {
  const config = () => new JwtConfig(SECRET);

  it.each([
    ['graceSeconds', { graceSeconds: -1 }],
    ['graceSeconds', { graceSeconds: 61 }],
    ['graceSeconds', { graceSeconds: 1.5 }],
    ['refreshExpirationSeconds', { refreshExpirationSeconds: 10 }],
    ['refreshExpirationSeconds', { refreshExpirationSeconds: 600 }], // shorter than the 900 s access token
    ['store', { store: {} }],
    ['events', { events: {} }],
    ['graceSecond', { graceSecond: 5 }],
  ])('refuses a bad %s option', (option, options) => {
    const attempt = () => new JwtTokenService(config(), options as JwtTokenServiceOptions);
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTION', option }));
  });

  it('refuses bad refresh lifetimes from the setters', () => {
    const service = new JwtTokenService(config());
    expect(() => service.refreshExpirationDays(0)).toThrow(
      expect.objectContaining({ option: 'refreshExpirationDays' }),
    );
    expect(() => service.refreshExpirationDays(367)).toThrow(ConfigurationError);
    expect(() => service.refreshExpirationHours(1.5)).toThrow(ConfigurationError);
    expect(() => service.refreshExpirationSeconds(899)).toThrow(
      expect.objectContaining({ option: 'refreshExpirationSeconds' }),
    );
    expect(service.refreshExpiresIn).toBe(14 * DAY);
  });

  it('needs a signing key: a JWKS or a public key cannot issue tokens', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    for (const verifyOnly of [
      JwtConfig.jwks('https://idp.example.com/jwks.json'),
      new JwtConfig(publicKey),
    ]) {
      expect(() => new JwtTokenService(verifyOnly)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'key' }),
      );
    }
  });

  it('does not mutate the options', () => {
    const options = Object.freeze({ graceSeconds: 5 });
    expect(() => new JwtTokenService(config(), options)).not.toThrow();
    expect(options).toEqual({ graceSeconds: 5 });
  });

  it('refuses a loadUser that is not a function', async () => {
    const service = new JwtTokenService(config());
    const token = await service.generateRefreshToken(new User('alice', ''));
    await expect(service.refresh(token, null as never)).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe('JwtTokenService: a refresh of an account that may not log in now', () => {
  it.each([
    ['locked', { locked: true }, 'account-locked'],
    ['disabled', { enabled: false }, 'account-disabled'],
    ['expired', { accountExpired: true }, 'account-expired'],
    ['with an expired password', { credentialsExpired: true }, 'credentials-expired'],
  ] as const)('%s: refused, the token not spent, the family kept', async (_, state, reason) => {
    const { service, users, loadUser, events, alice } = setup();
    const pair = await service.generateTokenPair(alice);
    users.set('alice', alice.withAccountState(state));
    expect(await codeOf(service.refresh(pair.refreshToken, loadUser))).toBe(
      'ERR_JWT_ACCOUNT_INACTIVE',
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'authentication-failure', username: 'alice', reason }),
    );
    // Usable again: the same token refreshes (it was not spent, its family not revoked).
    users.set('alice', alice);
    const next = await service.refresh(pair.refreshToken, loadUser);
    expect(next.refreshToken).not.toBe(pair.refreshToken);
  });
});
