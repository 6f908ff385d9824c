import { describe, expect, it } from 'vitest';
import { User } from '../../src/core/index.js';
import { Claims, JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import { NOW, SECRET, claimsAt, expectJwtError, sign, thrown } from './support.js';

const ISS = 'https://issuer.example/';
const config = () => new JwtConfig(SECRET).clock(() => NOW);
const withClaims = (extra: Record<string, unknown>) => sign(SECRET, claimsAt(extra));

describe('issuer', () => {
  const jwt = new JwtAuthenticator(config().issuer(ISS));

  it('accepts the configured issuer only, compared exactly', async () => {
    await expect(jwt.validateToken(await withClaims({ iss: ISS }))).resolves.toBeDefined();
    for (const iss of [
      'https://issuer.example',
      'https://ISSUER.example/',
      'https://issuer.example/x',
      'https://evil.example/',
      [ISS],
      42,
      '',
    ]) {
      await expectJwtError(jwt.validateToken(await withClaims({ iss })), 'ERR_JWT_BAD_ISSUER');
    }
  });

  it('a token without iss is refused when an issuer is configured', async () => {
    await expectJwtError(jwt.validateToken(await withClaims({})), 'ERR_JWT_BAD_ISSUER');
  });

  it('any issuer (or none) passes when no issuer is configured', async () => {
    const open = new JwtAuthenticator(config());
    await expect(open.validateToken(await withClaims({ iss: 'anyone' }))).resolves.toBeDefined();
    await expect(open.validateToken(await withClaims({}))).resolves.toBeDefined();
  });

  it('must be a non-empty string without control characters', () => {
    for (const bad of ['', 'a\nb', 42, undefined]) {
      expect(thrown(() => config().issuer(bad as string))).toMatchObject({
        code: 'ERR_INVALID_OPTION',
        option: 'issuer',
      });
    }
  });
});

describe('audience', () => {
  describe('one configured audience', () => {
    const jwt = new JwtAuthenticator(config().audience('api'));

    it('accepts a string or an array naming it', async () => {
      for (const aud of ['api', ['api'], ['web', 'api'], ['api', 'web', 'mobile']]) {
        await expect(jwt.validateToken(await withClaims({ aud }))).resolves.toBeDefined();
      }
    });

    it('refuses a token naming other audiences, or none', async () => {
      for (const aud of ['web', ['web'], ['web', 'mobile'], [], 'API', 'api ', 42, { api: true }]) {
        await expectJwtError(jwt.validateToken(await withClaims({ aud })), 'ERR_JWT_BAD_AUDIENCE');
      }
      await expectJwtError(jwt.validateToken(await withClaims({})), 'ERR_JWT_BAD_AUDIENCE');
    });
  });

  describe('several configured audiences (any of them)', () => {
    const jwt = new JwtAuthenticator(config().audience(['api', 'web']));

    it('accepts a token naming any one of them', async () => {
      for (const aud of ['api', 'web', ['web'], ['mobile', 'web'], ['api', 'web']]) {
        await expect(jwt.validateToken(await withClaims({ aud }))).resolves.toBeDefined();
      }
    });

    it('refuses a token naming none of them', async () => {
      for (const aud of ['mobile', ['mobile', 'tv'], []]) {
        await expectJwtError(jwt.validateToken(await withClaims({ aud })), 'ERR_JWT_BAD_AUDIENCE');
      }
    });
  });

  it('is not checked when none is configured', async () => {
    const open = new JwtAuthenticator(config());
    await expect(open.validateToken(await withClaims({ aud: 'whatever' }))).resolves.toBeDefined();
  });

  it('must be a string or a non-empty array of names', () => {
    for (const bad of [[], '', [''], ['a', 'b\r'], [1], 42, null]) {
      expect(thrown(() => config().audience(bad as string[]))).toMatchObject({
        code: 'ERR_INVALID_OPTION',
        option: 'audience',
      });
    }
  });

  it('the options object form takes a string or an array', () => {
    expect(new JwtConfig({ secret: SECRET, audience: 'api' }).resolve().audience).toEqual(['api']);
    expect(
      new JwtConfig({ secret: SECRET, audience: ['api', 'web'], issuer: ISS }).resolve(),
    ).toMatchObject({ audience: ['api', 'web'], issuer: ISS });
  });
});

describe('issued tokens carry the configured issuer and audience', () => {
  const alice = new User('alice', '').withRoles(['USER']);

  it('generateToken: iss, a string aud for one audience, an array for several', async () => {
    const one = new JwtAuthenticator(config().issuer(ISS).audience('api'));
    const { claims } = await one.validateToken(await one.generateToken(alice));
    expect(claims).toMatchObject({ iss: ISS, aud: 'api', sub: 'alice', roles: ['USER'] });
    const two = new JwtAuthenticator(config().issuer(ISS).audience(['api', 'web']));
    const both = await two.validateToken(await two.generateToken(alice));
    expect(both.claims['aud']).toEqual(['api', 'web']);
    // Another verifier of only one of them accepts it.
    const webOnly = new JwtAuthenticator(config().issuer(ISS).audience('web'));
    await expect(webOnly.validateToken(await two.generateToken(alice))).resolves.toBeDefined();
  });

  it('generateTokenWithClaims: the claims own issuer and audience win', async () => {
    const jwt = new JwtAuthenticator(config().issuer(ISS).audience('api'));
    const claims = new Claims('alice', 60, NOW);
    const defaults = await jwt.validateToken(await jwt.generateTokenWithClaims(claims));
    expect(defaults.claims).toMatchObject({ iss: ISS, aud: 'api' });
    const own = await jwt.generateTokenWithClaims(claims.issuer('https://other.example/'));
    await expectJwtError(jwt.validateToken(own), 'ERR_JWT_BAD_ISSUER');
    const array = await jwt.generateTokenWithClaims(claims.audience(['web', 'api']));
    expect((await jwt.validateToken(array)).claims['aud']).toEqual(['web', 'api']);
    const elsewhere = await jwt.generateTokenWithClaims(claims.audience('web'));
    await expectJwtError(jwt.validateToken(elsewhere), 'ERR_JWT_BAD_AUDIENCE');
  });
});
