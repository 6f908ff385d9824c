import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { UnavailableError } from '../../src/index.js';
import { JwtAuthenticator, JwtConfig, type JwksOptions } from '../../src/jwt/index.js';
import {
  NOW,
  bearer,
  claimsAt,
  closedPort,
  expectJwtError,
  keyPairs,
  publicJwk,
  recordEvents,
  requestWith,
  sign,
  startKeyServer,
  type KeyServer,
} from './support.js';

const ISS = 'https://idp.example/';
let server: KeyServer;
const k1 = () => keyPairs.rsa();
const k2 = () => keyPairs.rsa2();

beforeAll(async () => {
  server = await startKeyServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.serveKeys([publicJwk(k1().publicKey, 'k1', 'RS256')]);
});

function resourceServer(jwks: Partial<JwksOptions> = {}, cache = true) {
  const { events, received } = recordEvents();
  const config = JwtConfig.jwks({ url: server.url, ...jwks })
    .issuer(ISS)
    .audience('api')
    .clock(() => NOW);
  if (!cache) config.cache(false);
  return { jwt: new JwtAuthenticator(config, { events }), received };
}

const tokenOf = (
  pair: () => { privateKey: Parameters<typeof sign>[0] },
  kid: string | undefined,
  extra: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
) =>
  sign(pair().privateKey, claimsAt({ iss: ISS, aud: 'api', scope: 'read write', ...extra }), {
    alg: 'RS256',
    ...(kid === undefined ? {} : { kid }),
    ...header,
  });

describe('JWKS mode (resource server)', () => {
  it('accepts tokens signed by a key of the set, fetching the set once', async () => {
    const before = server.requests;
    const { jwt } = resourceServer();
    const token = await tokenOf(k1, 'k1', { roles: ['USER'] });
    const { claims, header } = await jwt.validateToken(token);
    expect(header.kid).toBe('k1');
    expect(claims.sub).toBe('alice');
    await jwt.validateToken(await tokenOf(k1, 'k1', { sub: 'bob' }));
    expect(server.requests - before).toBe(1);
    const user = await jwt.authenticate(requestWith(bearer(token)));
    expect(user?.hasRole('USER')).toBe(true);
  });

  it('a token without kid matches the only key of its type', async () => {
    const { jwt } = resourceServer();
    await expect(jwt.validateToken(await tokenOf(k1, undefined))).resolves.toBeDefined();
  });

  it('an unknown kid: ERR_JWT_KEY_NOT_FOUND', async () => {
    const { jwt } = resourceServer();
    await expectJwtError(jwt.validateToken(await tokenOf(k2, 'nope')), 'ERR_JWT_KEY_NOT_FOUND');
  });

  it('a known kid with a signature of another key: ERR_JWT_BAD_SIGNATURE', async () => {
    const { jwt } = resourceServer();
    await expectJwtError(jwt.validateToken(await tokenOf(k2, 'k1')), 'ERR_JWT_BAD_SIGNATURE');
  });

  it('an algorithm outside the configured list: ERR_JWT_ALGORITHM_NOT_ALLOWED', async () => {
    server.serveKeys([publicJwk(keyPairs.p256().publicKey, 'ec', 'ES256')]);
    const { jwt } = resourceServer();
    const es = await sign(keyPairs.p256().privateKey, claimsAt({ iss: ISS, aud: 'api' }), {
      alg: 'ES256',
      kid: 'ec',
    });
    await expectJwtError(jwt.validateToken(es), 'ERR_JWT_ALGORITHM_NOT_ALLOWED');
    const both = new JwtAuthenticator(
      JwtConfig.jwks(server.url)
        .algorithms(['RS256', 'ES256'])
        .issuer(ISS)
        .clock(() => NOW),
    );
    await expect(both.validateToken(es)).resolves.toBeDefined();
  });

  it('an ID token of the same issuer (typ JWT or token_use id) is refused', async () => {
    const { jwt } = resourceServer();
    const idToken = await tokenOf(k1, 'k1', { nonce: 'n', auth_time: NOW / 1000 }, { typ: 'JWT' });
    await expectJwtError(jwt.validateToken(idToken), 'ERR_JWT_WRONG_TYPE');
    const cognito = await tokenOf(k1, 'k1', { token_use: 'id' }, { typ: undefined });
    await expectJwtError(jwt.validateToken(cognito), 'ERR_JWT_WRONG_TYPE');
    const access = await tokenOf(k1, 'k1', { token_use: 'access' }, { typ: undefined });
    await expect(jwt.validateToken(access)).resolves.toBeDefined();
  });

  it('issuer and audience are checked as in key mode', async () => {
    const { jwt } = resourceServer();
    await expectJwtError(
      jwt.validateToken(await tokenOf(k1, 'k1', { iss: 'https://evil.example/' })),
      'ERR_JWT_BAD_ISSUER',
    );
    await expectJwtError(
      jwt.validateToken(await tokenOf(k1, 'k1', { aud: 'other' })),
      'ERR_JWT_BAD_AUDIENCE',
    );
  });

  describe('key rotation', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('a new kid is fetched after the cooldown; the removed key is then refused', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: NOW });
      const { jwt } = resourceServer({}, false);
      const old = await tokenOf(k1, 'k1');
      const before = server.requests;
      await jwt.validateToken(old);
      expect(server.requests - before).toBe(1);

      server.serveKeys([publicJwk(k2().publicKey, 'k2', 'RS256')]);
      const rotated = await tokenOf(k2, 'k2');
      // Within the 30 s cooldown the set is not fetched again.
      await expectJwtError(jwt.validateToken(rotated), 'ERR_JWT_KEY_NOT_FOUND');
      expect(server.requests - before).toBe(1);
      // The old key still verifies from the cached set.
      await expect(jwt.validateToken(old)).resolves.toBeDefined();

      vi.setSystemTime(NOW + 31_000);
      await expect(jwt.validateToken(rotated)).resolves.toBeDefined();
      expect(server.requests - before).toBe(2);
      await expectJwtError(jwt.validateToken(old), 'ERR_JWT_KEY_NOT_FOUND');
      expect(server.requests - before).toBe(2);
    });

    it('with cooldown 0 a new kid is fetched at once', async () => {
      const { jwt } = resourceServer({ cooldownSeconds: 0 }, false);
      await jwt.validateToken(await tokenOf(k1, 'k1'));
      server.serveKeys([
        publicJwk(k1().publicKey, 'k1', 'RS256'),
        publicJwk(k2().publicKey, 'k2', 'RS256'),
      ]);
      await expect(jwt.validateToken(await tokenOf(k2, 'k2'))).resolves.toBeDefined();
      await expect(jwt.validateToken(await tokenOf(k1, 'k1'))).resolves.toBeDefined();
    });

    it('a cached verification of a removed key lasts at most cache.maxAgeSeconds', async () => {
      const clock = { now: NOW };
      const jwt = new JwtAuthenticator(
        JwtConfig.jwks({ url: server.url, cooldownSeconds: 0 })
          .cache({ maxAgeSeconds: 60 })
          .clock(() => clock.now),
      );
      const old = await tokenOf(k1, 'k1');
      expect((await jwt.authenticate(requestWith(bearer(old))))?.username).toBe('alice');
      server.serveKeys([publicJwk(k2().publicKey, 'k2', 'RS256')]);
      await jwt.validateToken(await tokenOf(k2, 'k2')); // the set is refetched
      expect(jwt.authenticate(requestWith(bearer(old)))).toMatchObject({ username: 'alice' });
      clock.now += 60_000;
      expect(await jwt.authenticate(requestWith(bearer(old)))).toBeNull();
    });
  });

  it('the cooldown limits refetches for unknown kids', async () => {
    const { jwt } = resourceServer({ cooldownSeconds: 30 });
    const before = server.requests;
    for (let i = 0; i < 5; i++) {
      await expectJwtError(
        jwt.validateToken(await tokenOf(k2, `unknown-${String(i)}`)),
        'ERR_JWT_KEY_NOT_FOUND',
      );
    }
    expect(server.requests - before).toBe(1);
  });

  describe('an unavailable key set: ERR_JWT_JWKS_UNAVAILABLE, and requests fail closed (503)', () => {
    const cases: readonly (readonly [string, () => void])[] = [
      [
        'a 500 answer',
        () => {
          server.respond(500, '{"keys":[]}');
        },
      ],
      [
        'a 404 answer',
        () => {
          server.respond(404, 'not found');
        },
      ],
      [
        'a body that is not JSON',
        () => {
          server.respond(200, '<html>');
        },
      ],
      [
        'JSON that is not a key set',
        () => {
          server.respond(200, '{"keys":"nope"}');
        },
      ],
      [
        'a JSON array',
        () => {
          server.respond(200, '[]');
        },
      ],
      [
        'no answer before the timeout',
        () => {
          server.hang();
        },
      ],
    ];
    for (const [name, arrange] of cases) {
      it(name, async () => {
        arrange();
        const { jwt, received } = resourceServer({ timeoutMs: 200 });
        const token = await tokenOf(k1, 'k1');
        await expectJwtError(jwt.validateToken(token), 'ERR_JWT_JWKS_UNAVAILABLE');
        await expect(
          Promise.resolve(jwt.authenticate(requestWith(bearer(token)))),
        ).rejects.toBeInstanceOf(UnavailableError);
        // Only a timeout is a deadline event; no event calls the token invalid.
        expect(received).toMatchObject(
          name === 'no answer before the timeout'
            ? [{ type: 'deadline-exceeded', operation: 'jwks', timeoutMs: 200 }]
            : [],
        );
      });
    }

    it('a key server that is down', async () => {
      const port = await closedPort();
      const jwt = new JwtAuthenticator(
        JwtConfig.jwks(`http://127.0.0.1:${String(port)}/jwks`).clock(() => NOW),
      );
      const token = await tokenOf(k1, 'k1');
      await expectJwtError(jwt.validateToken(token), 'ERR_JWT_JWKS_UNAVAILABLE');
      await expect(
        Promise.resolve(jwt.authenticate(requestWith(bearer(token)))),
      ).rejects.toMatchObject({ code: 'ERR_UNAVAILABLE' });
    });

    it('recovers once the key server answers again', async () => {
      server.respond(500, 'down');
      const { jwt } = resourceServer({ cooldownSeconds: 0 });
      const token = await tokenOf(k1, 'k1');
      await expectJwtError(jwt.validateToken(token), 'ERR_JWT_JWKS_UNAVAILABLE');
      server.serveKeys([publicJwk(k1().publicKey, 'k1', 'RS256')]);
      await expect(jwt.validateToken(token)).resolves.toBeDefined();
    });
  });

  it('reads OAuth scopes as authorities with authoritiesClaim("scope")', async () => {
    const jwt = new JwtAuthenticator(
      JwtConfig.jwks(server.url)
        .authoritiesClaim('scope')
        .clock(() => NOW),
    );
    const user = await jwt.authenticate(requestWith(bearer(await tokenOf(k1, 'k1'))));
    expect([...(user?.authorities ?? [])]).toEqual(['read', 'write']);
  });
});
