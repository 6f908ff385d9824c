import { randomBytes } from 'node:crypto';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError } from '../core/errors.js';
import { User } from '../core/user.js';
import { rejectUnknownOptions } from '../core/validate.js';
import type { JwtAuthenticatorOptions } from '../jwt/authenticator-options.js';
import type { JwtAuthenticator } from '../jwt/authenticator.js';
import type { JwtConfig, JwtConfigOptions } from '../jwt/config.js';
import { refuseInProduction } from './production.js';

/** Options of {@link TestJwt.tokenFor}. */
export interface TestTokenOptions {
  /** Extra claims (`tenant`, …), as `Claims.custom` takes them: registered names are refused. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** The token's lifetime. @defaultValue the configuration's `expirationSeconds` */
  readonly expiresInSeconds?: number;
}

/** What {@link testJwt} returns. */
export interface TestJwt {
  /** The configuration, for the application under test (`new JwtAuthenticator(config)`). */
  readonly config: JwtConfig;
  /** A `JwtAuthenticator` on that configuration. */
  readonly authenticator: JwtAuthenticator;
  /** An access token for the user, signed by `authenticator` (`sub`, roles, authorities, `typ: at+jwt`). */
  tokenFor(user: AuthenticatedUser | User, options?: TestTokenOptions): Promise<string>;
  /** The `Authorization` header value for the user: `Bearer <token>` (the configured prefix). */
  bearerFor(user: AuthenticatedUser | User, options?: TestTokenOptions): Promise<string>;
}

/**
 * A JWT setup for tests on the real {@link JwtConfig} and {@link JwtAuthenticator}
 * (tokens signed and verified by jose, as in production). Without a key, a random
 * 256-bit secret is made for this call only: its tokens are valid for this
 * authenticator and nothing else, so a test token can never open a server. Takes the
 * options of `new JwtConfig({ … })` (`issuer`, `audience`, `expirationSeconds`,
 * `clock`, …), or a `JwtConfig` to mint tokens for an application's own configuration.
 *
 * `jose` is loaded here, so importing the kit needs no peer.
 *
 * @example
 * ```ts
 * const jwt = await testJwt({ issuer: 'https://api.test', clock });
 * const app = createApp({ authenticator: jwt.authenticator });
 * await app.request('/me', { headers: { authorization: await jwt.bearerFor(mockUser('ann')) } });
 * ```
 */
export async function testJwt(
  config: JwtConfig | Partial<JwtConfigOptions> = {},
  options: JwtAuthenticatorOptions = {},
): Promise<TestJwt> {
  refuseInProduction('testJwt');
  const [{ JwtConfig: Config }, { JwtAuthenticator: Authenticator }, { Claims }] =
    await Promise.all([
      import('../jwt/config.js'),
      import('../jwt/authenticator.js'),
      import('../jwt/claims.js'),
    ]);
  let resolved: JwtConfig;
  if (config instanceof Config) resolved = config;
  else {
    if (typeof config !== 'object' || (config as unknown) === null) {
      throw new ConfigurationError('testJwt', 'takes a JwtConfig or its options');
    }
    const keyed = 'secret' in config || 'key' in config || 'jwks' in config;
    resolved = new Config({
      ...(keyed ? {} : { secret: randomBytes(32).toString('base64url') }),
      ...config,
    });
  }
  const authenticator = new Authenticator(resolved, options);
  const settings = authenticator.settings;
  const tokenFor = async (user: AuthenticatedUser | User, token: TestTokenOptions = {}) => {
    rejectUnknownOptions('tokenFor', token, ['claims', 'expiresInSeconds'], {
      aliases: { claim: 'claims', ttl: 'expiresInSeconds', expirationSeconds: 'expiresInSeconds' },
    });
    const { claims, expiresInSeconds } = token;
    if (claims === undefined && expiresInSeconds === undefined) {
      return authenticator.generateToken(asUser(user));
    }
    const ttl = expiresInSeconds ?? settings.expirationSeconds;
    let built = new Claims(user.username, ttl, settings.clock())
      .withRoles(user.roles)
      .withAuthorities(user.authorities);
    if (claims !== undefined) built = built.custom(claims);
    return authenticator.generateTokenWithClaims(built);
  };
  return Object.freeze({
    config: resolved,
    authenticator,
    tokenFor,
    bearerFor: async (user: AuthenticatedUser | User, token?: TestTokenOptions) =>
      `${settings.headerPrefix}${await tokenFor(user, token)}`,
  });
}

/** A `User` with the rights of an authenticated user (the token carries only these). */
function asUser(user: AuthenticatedUser | User): User {
  return user instanceof User ? user : new User(user.username, '', user.roles, user.authorities);
}
