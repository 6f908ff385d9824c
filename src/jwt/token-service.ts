import { randomUUID } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';
import type { User } from '../core/user.js';
import { requireInteger, requireName } from '../core/validate.js';
import { JwtAuthenticator } from './authenticator.js';
import { JwtConfig, type JwtConfigOptions, type JwtSettings } from './config.js';
import { GraceMemo } from './grace-memo.js';
import { RefreshRotator } from './refresh-rotator.js';
import type { TokenPair } from './token-pair.js';
import {
  readServiceOptions,
  type JwtTokenServiceOptions,
  type LoadUser,
  type RefreshOptions,
} from './token-service-options.js';

const DAY = 86_400;

/**
 * Issues access and refresh tokens and rotates refresh tokens (SPEC.md's
 * `JwtTokenService`). Access tokens are short-lived (`typ: at+jwt`, roles and
 * authorities, accepted by a {@link JwtAuthenticator} of the same configuration);
 * refresh tokens are long-lived with minimal claims (`typ: refresh+jwt`, never
 * accepted as access tokens) and belong to a *family*, one per login.
 *
 * Each `refresh()` verifies the refresh token, loads the user again (current roles),
 * and issues a new pair; the presented token is spent. Presenting a spent token
 * again (after the grace window) means it was copied: the whole family is revoked,
 * so the thief's and the owner's tokens both stop working, and an
 * `authentication-failure` event with reason `token-reused` is published.
 *
 * @example
 * ```ts
 * const tokens = new JwtTokenService(config).refreshExpirationDays(30);
 * const pair = await tokens.generateTokenPair(user); // at login
 * const next = await tokens.refresh(pair.refreshToken, (name) => users.findUser(name));
 * await tokens.revokeFamily(next.refreshToken); // logout
 * ```
 */
export class JwtTokenService {
  readonly #authenticator: JwtAuthenticator;
  readonly #settings: JwtSettings;
  readonly #rotator: RefreshRotator;
  readonly #grace: GraceMemo | undefined;
  readonly #revokesAccess: boolean;

  /** @param config - a {@link JwtConfig} with a signing key, or its plain-object form */
  constructor(config: JwtConfig | JwtConfigOptions, options: JwtTokenServiceOptions = {}) {
    const { store, graceSeconds, events, loadUserTimeoutMs, revocations, storeTimeoutMs } =
      readServiceOptions(options);
    const resolved = config instanceof JwtConfig ? config : JwtConfig.fromOptions(config);
    this.#authenticator = new JwtAuthenticator(resolved, {
      events,
      storeTimeoutMs,
      ...(revocations === undefined ? {} : { revocations }),
    });
    this.#settings = this.#authenticator.settings;
    if (this.#settings.keys?.sign === undefined) {
      throw new ConfigurationError(
        'key',
        'a JwtTokenService signs tokens: it needs a secret or a private key (not a JWKS or a public key)',
      );
    }
    this.#revokesAccess = revocations !== false;
    const authenticator = this.#authenticator;
    this.#rotator = new RefreshRotator(
      {
        settings: this.#settings,
        store,
        events,
        graceMs: graceSeconds * 1000,
        loadUserTimeoutMs,
        storeTimeoutMs,
        signAccess: (user) => authenticator.generateToken(user),
      },
      Math.max(14 * DAY, this.#settings.expirationSeconds),
    );
    this.#grace = graceSeconds > 0 ? new GraceMemo(graceSeconds * 1000) : undefined;
    if (options.refreshExpirationSeconds !== undefined) {
      this.refreshExpirationSeconds(options.refreshExpirationSeconds);
    }
  }

  /**
   * The refresh-token lifetime in seconds (at least the access-token lifetime, at
   * most 366 days). Set it before issuing tokens. @defaultValue 14 days
   */
  refreshExpirationSeconds(seconds: number): this {
    const value = requireInteger('refreshExpirationSeconds', seconds, 60, 366 * DAY);
    if (value < this.#settings.expirationSeconds) {
      throw new ConfigurationError(
        'refreshExpirationSeconds',
        `must not be shorter than the access-token lifetime (${this.#settings.expirationSeconds} s)`,
      );
    }
    this.#rotator.refreshSeconds = value;
    return this;
  }

  /** The refresh-token lifetime in hours. */
  refreshExpirationHours(hours: number): this {
    return this.refreshExpirationSeconds(
      requireInteger('refreshExpirationHours', hours, 1, 366 * 24) * 3600,
    );
  }

  /** The refresh-token lifetime in days (SPEC.md's `refresh_expiration_days`). @defaultValue `14` */
  refreshExpirationDays(days: number): this {
    return this.refreshExpirationSeconds(
      requireInteger('refreshExpirationDays', days, 1, 366) * DAY,
    );
  }

  /** The access-token lifetime in seconds. */
  get expiresIn(): number {
    return this.#settings.expirationSeconds;
  }

  /** The refresh-token lifetime in seconds. */
  get refreshExpiresIn(): number {
    return this.#rotator.refreshSeconds;
  }

  /** A {@link JwtAuthenticator} of the same configuration: it accepts this service's access tokens. */
  get authenticator(): JwtAuthenticator {
    return this.#authenticator;
  }

  /** A short-lived access token with the user's roles and authorities (`typ: at+jwt`). */
  generateToken(user: User): Promise<string> {
    return this.#authenticator.generateToken(user);
  }

  /**
   * A refresh token starting a new family (a login): `sub`, `iat`, `exp`, `jti`,
   * `fam`, `auth_time`, and `iss` / `aud` when configured; `typ: refresh+jwt`.
   */
  async generateRefreshToken(user: User): Promise<string> {
    const nowMs = this.#settings.clock();
    const { token } = await this.#rotator.signRefresh({
      sub: user.username,
      jti: randomUUID(),
      fam: randomUUID(),
      authTimeMs: nowMs,
      nowMs,
      ttlSeconds: this.#rotator.refreshSeconds,
    });
    return token;
  }

  /** An access token and a refresh token of a new family, for a login route. */
  async generateTokenPair(user: User): Promise<TokenPair> {
    const [accessToken, refreshToken] = await Promise.all([
      this.generateToken(user),
      this.generateRefreshToken(user),
    ]);
    return this.#rotator.pair(accessToken, refreshToken);
  }

  /**
   * Exchanges a refresh token for a new pair: a new access token with the user's
   * *current* roles and authorities (from `loadUser`) and the next refresh token of
   * the same family. The presented token is spent.
   *
   * Within the grace window, refreshes of the same token (concurrent requests, a
   * retried request) get the pair of the first one, even while it is being issued.
   *
   * @throws JwtError `ERR_JWT_WRONG_TYPE` (an access token), `ERR_JWT_EXPIRED` and
   *   the other verification codes; `ERR_JWT_REFRESH_REUSED` (a spent token: the
   *   family is revoked); `ERR_JWT_REVOKED` (a revoked family or user);
   *   `ERR_JWT_UNKNOWN_USER` (`loadUser` found no user with the token's username:
   *   the family is revoked); `ERR_JWT_ACCOUNT_INACTIVE` (the user is locked,
   *   disabled or expired, or its password expired: the token is not spent and the
   *   family is kept, so the account refreshes again once it may)
   * @throws UnavailableError (503) when the store cannot answer in time
   *   (`StoreUnavailableError`, `DeadlineExceededError`) or the default store is full
   *   of live records (`RefreshStoreFullError`); the token is not spent
   */
  async refresh(
    refreshToken: string,
    loadUser: LoadUser,
    options: RefreshOptions = {},
  ): Promise<TokenPair> {
    if (typeof loadUser !== 'function') {
      throw new ConfigurationError('loadUser', 'must be a function of the username');
    }
    const request = options.request;
    const nowMs = this.#settings.clock();
    const claims = await this.#rotator.verify(refreshToken, request);
    const grace = this.#grace;
    const joined = grace?.get(claims.jti, nowMs);
    if (joined !== undefined) return this.#rotator.join(joined, claims, request);
    const pair = this.#rotator.rotate(claims, loadUser, nowMs, request);
    if (grace === undefined) return pair;
    grace.set(claims.jti, pair, nowMs); // before any await: a concurrent refresh joins it
    try {
      return await pair;
    } catch (error) {
      grace.delete(claims.jti, pair);
      throw error;
    }
  }

  /**
   * Revokes the family of a refresh token (logout): every token descending from
   * the same login, including the newest, is refused from now on
   * (`ERR_JWT_REVOKED`). Access tokens already issued stay valid until they expire.
   * @throws JwtError when the token does not verify as a refresh token
   */
  async revokeFamily(refreshToken: string): Promise<void> {
    const nowMs = this.#settings.clock();
    await this.#rotator.revokeFamily(await this.#rotator.claimsOf(refreshToken), nowMs);
  }

  /**
   * Revokes every refresh-token family of a user started before this call, and every
   * access token of the user issued until now (logout everywhere, e.g. after a
   * password change). Logins from the same millisecond on keep their refresh
   * tokens; access tokens are refused up to the end of the current second (`iat`
   * counts whole seconds), so an access token issued in the same second is refused
   * too and the client refreshes. With `revocations: false`, access tokens stay valid
   * until they expire.
   * @throws UnavailableError when a store cannot record it (503)
   */
  async revokeUser(username: string): Promise<void> {
    const name = requireName('username', username);
    const nowMs = this.#settings.clock();
    await Promise.all([
      this.#rotator.revokeUser(name, nowMs),
      this.#revokesAccess ? this.#authenticator.revokeUser(name) : undefined,
    ]);
  }

  /**
   * Revokes one access token until it expires (see {@link JwtAuthenticator.revokeAccessToken}).
   * @throws JwtError when it is not a valid access token of this configuration
   */
  revokeAccessToken(accessToken: string): Promise<void> {
    return this.#authenticator.revokeAccessToken(accessToken);
  }
}
