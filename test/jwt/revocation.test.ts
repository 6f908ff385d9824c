import { describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  ConfigurationError,
  SecurityTransform,
  StoreUnavailableError,
  UnavailableError,
  User,
} from '../../src/index.js';
import { JwtAuthenticator, JwtConfig, JwtTokenService } from '../../src/jwt/index.js';
import { isPromiseLike } from '../../src/lib/promise.js';
import { MemoryRevocationStore, type RevocationStore } from '../../src/stores/index.js';
import {
  NOW,
  NOW_S,
  SECRET,
  bearer,
  claimsAt,
  expectJwtError,
  recordEvents,
  requestWith,
  sign,
  testClock,
} from './support.js';

const ALICE = new User('alice', '', ['USER'], []);
const REVOKED_CHALLENGE = {
  scheme: 'Bearer',
  error: 'invalid_token',
  description: 'The token was revoked',
};

function setup(options: { revocations?: RevocationStore | false; storeTimeoutMs?: number } = {}) {
  const clock = testClock();
  const config = new JwtConfig(SECRET).clock(clock);
  const { events, received } = recordEvents();
  const jwt = new JwtAuthenticator(config, { events, ...options });
  const attempt = (token: string) => jwt.attempt(requestWith(bearer(token)));
  return { clock, config, jwt, attempt, received };
}

/** Whatever an authentication throws or rejects with. */
async function failureOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('access-token revocation by jti', () => {
  it('refuses a revoked token, also when it was in the verified-token cache', async () => {
    const { jwt, attempt, received } = setup();
    const token = await jwt.generateToken(ALICE);
    expect(await attempt(token)).toMatchObject({ kind: 'authenticated' });
    // The second time is a cache hit: synchronous.
    const hit = attempt(token);
    expect(isPromiseLike(hit)).toBe(false);
    expect(hit).toMatchObject({ kind: 'authenticated' });

    await jwt.revokeAccessToken(token);
    const refused = attempt(token);
    // Still a cache hit, still synchronous with the memory store, and refused.
    expect(isPromiseLike(refused)).toBe(false);
    expect(refused).toEqual({
      kind: 'failed',
      reason: 'revoked-token',
      // The token verified: its subject is known (for the events; never sent).
      username: 'alice',
      challenge: REVOKED_CHALLENGE,
    });
    expect(jwt.authenticate(requestWith(bearer(token)))).toBeNull();
    expect(await jwt.getUser(requestWith(bearer(token)))).toBeNull();
    expect(received.at(-1)).toMatchObject({
      type: 'authentication-failure',
      username: 'alice',
      reason: 'revoked-token',
    });
    await expectJwtError(jwt.validateToken(token), 'ERR_JWT_REVOKED');
    // Another token of the same user is not affected.
    const other = await jwt.generateToken(ALICE);
    expect(await attempt(other)).toMatchObject({ kind: 'authenticated' });
  });

  it('refuses a revoked token that was never cached (the cache off)', async () => {
    const clock = testClock();
    const jwt = new JwtAuthenticator(new JwtConfig(SECRET).clock(clock).cache(false));
    const token = await jwt.generateToken(ALICE);
    await jwt.revokeAccessToken(token);
    expect(await jwt.attempt(requestWith(bearer(token)))).toMatchObject({
      kind: 'failed',
      reason: 'revoked-token',
    });
  });

  it('revokes a token without a jti by its hash', async () => {
    const { jwt, attempt } = setup();
    const bare = await sign(SECRET, claimsAt());
    const twin = await sign(SECRET, claimsAt({ roles: ['USER'] }));
    expect(await attempt(bare)).toMatchObject({ kind: 'authenticated' });
    await jwt.revokeAccessToken(bare);
    expect(await attempt(bare)).toMatchObject({ kind: 'failed', reason: 'revoked-token' });
    expect(await attempt(twin)).toMatchObject({ kind: 'authenticated' });
  });

  it('remembers the revocation while the token can verify, then forgets it', async () => {
    let storeNow = NOW;
    const store = new MemoryRevocationStore({ clock: () => storeNow });
    const { jwt, clock, attempt } = setup({ revocations: store });
    const token = await sign(SECRET, claimsAt({ jti: 'j-1' }));
    await jwt.revokeAccessToken(token);
    // exp (600 s) plus the leeway (30 s by default): the token verifies until then.
    clock.set(NOW + 629_999);
    storeNow = NOW + 629_999;
    expect(await attempt(token)).toMatchObject({ kind: 'failed', reason: 'revoked-token' });
    storeNow = NOW + 630_999;
    expect(store.isRevoked('j-1', 'alice', NOW)).toBe('id');
    storeNow = NOW + 631_000;
    expect(store.isRevoked('j-1', 'alice', NOW)).toBe(false);
    expect(store.size).toBe(0);
  });

  it('leaves an expired token alone and refuses a forged one', async () => {
    const store = new MemoryRevocationStore();
    const { jwt, clock } = setup({ revocations: store });
    const token = await jwt.generateToken(ALICE);
    clock.advance(3600);
    await jwt.revokeAccessToken(token);
    expect(store.size).toBe(0);
    const forged = await sign('another-secret-of-at-least-32-bytes!!', claimsAt());
    await expectJwtError(jwt.revokeAccessToken(forged), 'ERR_JWT_BAD_SIGNATURE');
  });
});

describe('revokeUser: every token of the user issued until now', () => {
  it('refuses tokens issued before and in the same second, accepts one issued after', async () => {
    const { jwt, clock, attempt } = setup();
    const before = await jwt.generateToken(ALICE);
    clock.set(NOW + 400); // later in the same second
    const sameSecondBefore = await jwt.generateToken(ALICE);
    expect(await attempt(before)).toMatchObject({ kind: 'authenticated' });
    await jwt.revokeUser('alice');
    clock.set(NOW + 900); // still the same second, after the revocation
    const sameSecondAfter = await jwt.generateToken(ALICE);
    for (const token of [before, sameSecondBefore, sameSecondAfter]) {
      expect(await attempt(token)).toMatchObject({ kind: 'failed', reason: 'revoked-token' });
    }
    clock.set(NOW + 1000); // the next second
    const after = await jwt.generateToken(ALICE);
    expect(await attempt(after)).toMatchObject({ kind: 'authenticated' });
    // Another user is not affected.
    const bob = await jwt.generateToken(new User('bob', '', [], []));
    expect(await attempt(bob)).toMatchObject({ kind: 'authenticated' });
  });

  it('refuses a token without iat (its issue time is unknown) once its user is revoked', async () => {
    const { jwt, attempt } = setup();
    const token = await sign(SECRET, { sub: 'alice', exp: NOW_S + 600 });
    expect(await attempt(token)).toMatchObject({ kind: 'authenticated' });
    await jwt.revokeUser('alice');
    expect(await attempt(token)).toMatchObject({ kind: 'failed', reason: 'revoked-token' });
  });

  it('JwtTokenService.revokeUser revokes the access tokens and the refresh families', async () => {
    const clock = testClock();
    const service = new JwtTokenService(new JwtConfig(SECRET).clock(clock));
    const pair = await service.generateTokenPair(ALICE);
    const request = requestWith(bearer(pair.accessToken));
    expect(await service.authenticator.attempt(request)).toMatchObject({ kind: 'authenticated' });
    clock.advance(1);
    await service.revokeUser('alice');
    clock.advance(1);
    expect(service.authenticator.attempt(requestWith(bearer(pair.accessToken)))).toMatchObject({
      kind: 'failed',
      reason: 'revoked-token',
    });
    await expectJwtError(
      service.refresh(pair.refreshToken, () => ALICE),
      'ERR_JWT_REVOKED',
    );
    // A new login after it works.
    const next = await service.generateTokenPair(ALICE);
    expect(
      await service.authenticator.attempt(requestWith(bearer(next.accessToken))),
    ).toMatchObject({ kind: 'authenticated' });
    await service.revokeAccessToken(next.accessToken);
    expect(service.authenticator.attempt(requestWith(bearer(next.accessToken)))).toMatchObject({
      kind: 'failed',
      reason: 'revoked-token',
    });
  });
});

describe('two instances sharing one revocation store', () => {
  it('a token revoked on A is refused on B, even from B’s verified-token cache', async () => {
    const shared = new MemoryRevocationStore();
    const a = setup({ revocations: shared });
    const b = setup({ revocations: shared });
    const token = await a.jwt.generateToken(ALICE);
    expect(await b.attempt(token)).toMatchObject({ kind: 'authenticated' });
    expect(b.attempt(token)).toMatchObject({ kind: 'authenticated' }); // cached on B
    await a.jwt.revokeAccessToken(token);
    expect(b.attempt(token)).toMatchObject({ kind: 'failed', reason: 'revoked-token' });
    const other = await b.jwt.generateToken(ALICE);
    expect(await b.attempt(other)).toMatchObject({ kind: 'authenticated' });
    await a.jwt.revokeUser('alice');
    expect(b.attempt(other)).toMatchObject({ kind: 'failed', reason: 'revoked-token' });
  });
});

describe('a revocation store that cannot answer fails closed', () => {
  const memory = new MemoryRevocationStore();
  const writes = {
    revoke: memory.revoke.bind(memory),
    revokeUser: memory.revokeUser.bind(memory),
  };
  const broken: Record<string, RevocationStore> = {
    throwing: {
      ...writes,
      isRevoked: () => {
        throw new Error('connection refused');
      },
    },
    rejecting: {
      ...writes,
      isRevoked: () => Promise.reject(new Error('connection reset')),
    },
    'answering garbage': {
      ...writes,
      isRevoked: () => undefined as unknown as false,
    },
  };

  for (const [name, store] of Object.entries(broken)) {
    it(`${name}: an UnavailableError, never an authenticated or anonymous request`, async () => {
      const { jwt, attempt } = setup({ revocations: store });
      const token = await jwt.generateToken(ALICE);
      const first = await failureOf(() => attempt(token));
      expect(first).toBeInstanceOf(StoreUnavailableError);
      expect(first).toMatchObject({ code: 'ERR_STORE_UNAVAILABLE', store: 'revocation' });
      // The cache path (had the token been cached) and the other entry points too.
      expect(await failureOf(() => jwt.authenticate(requestWith(bearer(token))))).toBeInstanceOf(
        UnavailableError,
      );
      expect(await failureOf(() => jwt.getUser(requestWith(bearer(token))))).toBeInstanceOf(
        UnavailableError,
      );
      expect(await failureOf(() => jwt.validateToken(token))).toBeInstanceOf(UnavailableError);
    });
  }

  it('hung: a DeadlineExceededError past storeTimeoutMs, and 503 through the pipeline', async () => {
    const hung: RevocationStore = {
      revoke: () => new Promise<void>(() => undefined),
      revokeUser: () => new Promise<void>(() => undefined),
      isRevoked: () => new Promise<false>(() => undefined),
    };
    const { jwt, attempt, received } = setup({ revocations: hung, storeTimeoutMs: 50 });
    const token = await jwt.generateToken(ALICE);
    expect(await failureOf(() => attempt(token))).toMatchObject({
      code: 'ERR_DEADLINE_EXCEEDED',
      operation: 'access-token-revocation',
      timeoutMs: 50,
    });
    expect(received).toContainEqual(
      expect.objectContaining({ type: 'deadline-exceeded', operation: 'access-token-revocation' }),
    );
    const transform = new SecurityTransform()
      .configAuthenticator(() => jwt)
      .configAuthorizer(() =>
        AuthorizationManager.requestMatcher()
          .bearer()
          .addMatcher('/api/.*', Access.authenticated())
          .addMatcher('/.*', Access.permitAll()),
      );
    for (const path of ['/api/me', '/public']) {
      const outcome = await transform.handle(requestWith(bearer(token), path));
      expect(outcome.proceed).toBe(false);
      if (!outcome.proceed) {
        expect(outcome.response.status).toBe(503);
        expect(outcome.response.headers['retry-after']).toBeDefined();
      }
    }
    expect(await failureOf(() => jwt.revokeAccessToken(token))).toBeInstanceOf(UnavailableError);
  });
});

describe('revocations: false', () => {
  it('skips the check and refuses to revoke', async () => {
    const { jwt, attempt } = setup({ revocations: false });
    const token = await jwt.generateToken(ALICE);
    expect(await failureOf(() => jwt.revokeAccessToken(token))).toBeInstanceOf(ConfigurationError);
    expect(await failureOf(() => jwt.revokeUser('alice'))).toMatchObject({
      option: 'revocations',
    });
    expect(await attempt(token)).toMatchObject({ kind: 'authenticated' });
  });

  it('refuses what is not a RevocationStore, naming the option', () => {
    expect(() => new JwtAuthenticator(new JwtConfig(SECRET), { revocations: {} as never })).toThrow(
      expect.objectContaining({ option: 'revocations' }),
    );
    expect(
      () => new JwtAuthenticator(new JwtConfig(SECRET), { revocation: false } as never),
    ).toThrow(ConfigurationError);
    expect(() => new JwtAuthenticator(new JwtConfig(SECRET), { storeTimeoutMs: 0 })).toThrow(
      expect.objectContaining({ option: 'storeTimeoutMs' }),
    );
  });
});
