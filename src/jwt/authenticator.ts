import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError } from '../core/errors.js';
import { summarize, type SecurityEvents } from '../core/events.js';
import { Outcome, userOfAttempt, type AuthenticationOutcome } from '../core/outcome.js';
import type { SecurityRequest } from '../core/request.js';
import type { Authenticator } from '../core/security.js';
import { User } from '../core/user.js';
import { isPromiseLike } from '../lib/promise.js';
import { requireName } from '../core/validate.js';
import { AccessRevocations, revocableOf, type RevocableToken } from './access-revocation.js';
import { readAuthenticatorOptions, type JwtAuthenticatorOptions } from './authenticator-options.js';
import { BearerHeader, keySetUnavailable, reasonOf } from './bearer.js';
import { VerifiedTokenCache } from './cache.js';
import { isCompactJws } from './compact.js';
import type { Claims } from './claims.js';
import { JwtConfig, type JwtConfigOptions, type JwtSettings } from './config.js';
import { DESCRIPTIONS, JwtError, type JwtErrorCode } from './errors.js';
import { accessPayload, signToken } from './sign.js';
import { UserMemo, userFromClaims } from './user-claims.js';
import { ACCESS_TYPE, TokenVerifier, type VerifiedToken } from './verify.js';

export type { JwtAuthenticatorOptions } from './authenticator-options.js';

interface CachedUser extends RevocableToken {
  readonly user: AuthenticatedUser;
  /** Made once per verification: a cache hit allocates no outcome. */
  readonly outcome: AuthenticationOutcome;
}

/**
 * JWT bearer authentication on jose (SPEC.md's `JwtAuthenticator`): issues access
 * tokens, validates them strictly, and as an {@link Authenticator} turns the
 * configured header (`Authorization: Bearer <jwt>`) into a user. Tokens in the
 * query string are never read.
 *
 * A refused token (expired, bad signature, wrong type, revoked, …) is a `failed`
 * {@link AuthenticationOutcome} with the RFC 6750 challenge, so a
 * `requestMatcher().bearer()` entry point answers
 * `401 WWW-Authenticate: Bearer error="invalid_token"`, and publishes an
 * `authentication-failure` event. Verified tokens are cached (see `JwtConfig.cache`):
 * a cache hit answers synchronously, without a signature check — but never without
 * the revocation check (`revokeAccessToken`, `revokeUser`; see the `revocations`
 * option).
 *
 * @example
 * ```ts
 * const jwt = new JwtAuthenticator(new JwtConfig(secret).issuer('https://api.example.com'));
 * const token = await jwt.generateToken(user);
 * const { claims } = await jwt.validateToken(token);
 * const authenticator = AuthenticationManager.anyOf(jwt, basicStore); // Bearer or Basic
 * ```
 */
export class JwtAuthenticator implements Authenticator {
  readonly authenticationMethod = 'jwt';
  readonly #settings: JwtSettings;
  readonly #verifier: TokenVerifier;
  readonly #cache: VerifiedTokenCache<CachedUser> | undefined;
  readonly #events: SecurityEvents;
  readonly #scheme: string;
  readonly #bearer: BearerHeader;
  readonly #users = new UserMemo();
  readonly #revocations: AccessRevocations | undefined;

  /** @param config - a {@link JwtConfig} or its plain-object form */
  constructor(config: JwtConfig | JwtConfigOptions, options: JwtAuthenticatorOptions = {}) {
    const resolved = config instanceof JwtConfig ? config : JwtConfig.fromOptions(config);
    this.#settings = resolved.resolve();
    this.#verifier = new TokenVerifier(this.#settings);
    const cache = this.#settings.cache;
    this.#cache = cache ? new VerifiedTokenCache(cache.maxEntries, cache.maxAgeSeconds) : undefined;
    const { events, revocations } = readAuthenticatorOptions(options, this.#settings.clock);
    this.#events = events;
    this.#revocations = revocations;
    this.#bearer = new BearerHeader(this.#settings.headerPrefix);
    this.#scheme = this.#settings.headerPrefix.trim() || 'Bearer';
  }

  /** The access-token lifetime in seconds (`expires_in` of a login response). */
  get expiresIn(): number {
    return this.#settings.expirationSeconds;
  }

  /** The resolved configuration. @internal */
  get settings(): JwtSettings {
    return this.#settings;
  }

  /**
   * An access token for the user: `sub`, `roles`, `authorities`, `iat`, `exp`,
   * `jti`, and `iss` / `aud` when configured; `typ: at+jwt` in the header.
   * @throws JwtError `ERR_JWT_SIGNING_FAILED` without a signing key
   */
  generateToken(user: User): Promise<string> {
    return signToken(this.#settings, accessPayload(this.#settings, user), ACCESS_TYPE);
  }

  /**
   * An access token with exactly these claims (their own issuer and audience, else
   * the configured ones).
   * @throws JwtError `ERR_JWT_SIGNING_FAILED` without a signing key
   */
  generateTokenWithClaims(claims: Claims): Promise<string> {
    const payload = claims.toPayload();
    const { issuer, audience } = this.#settings;
    if (payload['iss'] === undefined && issuer !== undefined) payload['iss'] = issuer;
    if (payload['aud'] === undefined && audience !== undefined) {
      payload['aud'] = audience.length === 1 ? audience[0] : [...audience];
    }
    return signToken(this.#settings, payload, ACCESS_TYPE);
  }

  /**
   * Verifies an access token: its header and claims, and that it is not revoked, or
   * a {@link JwtError} with a stable code (`ERR_JWT_REVOKED` for a revoked token).
   * Never cached.
   * @throws UnavailableError when the revocation store cannot answer (503)
   */
  async validateToken(token: string): Promise<VerifiedToken> {
    const verified = await this.#verifier.verify(token, 'access');
    const revocations = this.#revocations;
    if (revocations !== undefined) {
      const revoked = await revocations.isRevoked(revocableOf(verified.claims, token));
      if (revoked) throw new JwtError('ERR_JWT_REVOKED', 'The access token was revoked');
    }
    return verified;
  }

  /**
   * Revokes an access token until it expires (its `exp` plus the leeway): from now
   * on it is refused on every authenticator sharing the revocation store, also when
   * it is in a verified-token cache. Revoked by its `jti` (by its hash when it has
   * none). An expired token is left alone.
   *
   * @example
   * ```ts
   * await jwt.revokeAccessToken(token); // logout of a bearer client
   * ```
   * @throws JwtError when the token is not a valid access token of this configuration
   * @throws UnavailableError when the store cannot record it (503)
   * @throws ConfigurationError with `revocations: false`
   */
  async revokeAccessToken(token: string): Promise<void> {
    const revocations = this.#requireRevocations('revokeAccessToken');
    let claims: VerifiedToken['claims'];
    try {
      ({ claims } = await this.#verifier.verify(token, 'access'));
    } catch (error) {
      if (error instanceof JwtError && error.code === 'ERR_JWT_EXPIRED') return;
      throw error;
    }
    await revocations.revokeToken(claims, token, this.#settings.leewaySeconds);
  }

  /**
   * Revokes every access token of `username` issued until now: a token is refused
   * when its `iat` second is at or before this instant, so a token issued in the same
   * second, even just after this call, is refused too (`iat` counts whole seconds);
   * tokens issued from the next second on are accepted. Remembered for the
   * configured access-token lifetime plus the leeway.
   *
   * @throws UnavailableError when the store cannot record it (503)
   * @throws ConfigurationError with `revocations: false`
   */
  async revokeUser(username: string): Promise<void> {
    const revocations = this.#requireRevocations('revokeUser');
    const name = requireName('username', username);
    const { expirationSeconds, leewaySeconds } = this.#settings;
    await revocations.revokeUser(name, this.#settings.clock(), expirationSeconds + leewaySeconds);
  }

  /** SPEC.md's operation: the user of the request's bearer token, or `null`. */
  async getUser(request: SecurityRequest): Promise<User | null> {
    const user = await this.authenticate(request);
    return user ? new User(user.username, '', user.roles, user.authorities) : null;
  }

  /**
   * The authenticated user of the request's bearer token, or `null` (no token, or
   * a refused one): {@link JwtAuthenticator.attempt}'s user. Synchronous on a cache
   * hit with a synchronous revocation store.
   */
  authenticate(
    request: SecurityRequest,
  ): AuthenticatedUser | null | Promise<AuthenticatedUser | null> {
    return userOfAttempt(this.attempt(request));
  }

  /**
   * The outcome of the request's bearer token: `anonymous` without one,
   * `authenticated`, or `failed` with the reason (`invalid-token`, `expired-token`,
   * `revoked-token`) and the RFC 6750 challenge (`Bearer error="invalid_token"`, or
   * `invalid_request` for the scheme without a token). Synchronous on a cache hit
   * with a synchronous revocation store. Throws (or rejects with) an
   * `UnavailableError` when the token could not be checked (key set or revocation
   * store unreachable): 503, never anonymous.
   */
  attempt(request: SecurityRequest): AuthenticationOutcome | Promise<AuthenticationOutcome> {
    const header = request.header(this.#settings.headerName);
    const token = header === undefined ? undefined : this.#bearer.read(header);
    if (token === undefined) return Outcome.anonymous();
    if (token === '') {
      // RFC 6750 §3.1: a malformed request (the scheme without a token).
      return this.#failed('ERR_JWT_MALFORMED', request, 'invalid_request');
    }
    // Too large: the verifier says so, and it is never hashed for the cache.
    if (token.length > this.#settings.maxTokenLength) {
      return this.#verify(token, undefined, request);
    }
    const cache = this.#cache;
    // A hit is the very string verified before, which passed the compact-form check
    // then: the check (a scan of the whole token) runs on misses only.
    const key = cache === undefined ? undefined : VerifiedTokenCache.keyOf(token);
    const hit = key === undefined ? undefined : cache?.get(key, this.#settings.clock());
    // A hit is checked against the revocations like any token.
    if (hit !== undefined) return this.#admit(hit, request);
    if (!isCompactJws(token)) {
      // Not the one spelling of a compact JWS (whitespace inside, padding, another
      // alphabet, spare bits set, anything beyond a b64token): refused before any
      // decoding and never stored, so a re-spelled token never becomes a cache entry.
      return this.#failed('ERR_JWT_MALFORMED', request);
    }
    return this.#verify(token, key, request);
  }

  async #verify(
    token: string,
    key: string | undefined,
    request: SecurityRequest,
  ): Promise<AuthenticationOutcome> {
    let entry: CachedUser;
    let exp: number;
    try {
      const { claims } = await this.#verifier.verify(token, 'access');
      const user = userFromClaims(claims, this.#settings, this.#users);
      entry = { user, outcome: Outcome.authenticated(user), ...revocableOf(claims, token, key) };
      exp = claims.exp;
    } catch (error) {
      if (!(error instanceof JwtError)) throw error;
      if (error.code === 'ERR_JWT_JWKS_UNAVAILABLE')
        throw keySetUnavailable(error, this.#settings, this.#events, request);
      return this.#failed(error.code, request);
    }
    const outcome = await this.#admit(entry, request);
    if (key !== undefined && outcome.kind === 'authenticated') {
      this.#cache?.set(key, entry, exp, this.#settings.clock());
    }
    return outcome;
  }

  /** A verified token, unless it is revoked (synchronous with a synchronous store). */
  #admit(
    entry: CachedUser,
    request: SecurityRequest,
  ): AuthenticationOutcome | Promise<AuthenticationOutcome> {
    const revocations = this.#revocations;
    if (revocations === undefined) return this.#succeeded(entry, request);
    const revoked = revocations.isRevoked(entry, request);
    if (isPromiseLike(revoked)) {
      return revoked.then((yes) => this.#decide(yes, entry, request));
    }
    return this.#decide(revoked, entry, request);
  }

  #decide(revoked: boolean, entry: CachedUser, request: SecurityRequest): AuthenticationOutcome {
    if (!revoked) return this.#succeeded(entry, request);
    return this.#failed('ERR_JWT_REVOKED', request, 'invalid_token', entry.username);
  }

  #requireRevocations(method: string): AccessRevocations {
    if (this.#revocations === undefined) {
      throw new ConfigurationError('revocations', `is false: ${method} needs a RevocationStore`);
    }
    return this.#revocations;
  }

  #succeeded(entry: CachedUser, request: SecurityRequest): AuthenticationOutcome {
    const events = this.#events;
    if (events.hasListeners) {
      events.publish({
        type: 'authentication-success',
        username: entry.user.username,
        authenticationMethod: 'jwt',
        request: summarize(request),
      });
    }
    return entry.outcome;
  }

  #failed(
    code: JwtErrorCode,
    request: SecurityRequest,
    kind: 'invalid_token' | 'invalid_request' = 'invalid_token',
    username?: string,
  ): AuthenticationOutcome {
    const reason = reasonOf(code);
    const events = this.#events;
    if (events.hasListeners) {
      events.publish({
        type: 'authentication-failure',
        username,
        authenticationMethod: 'jwt',
        reason,
        request: summarize(request),
      });
    }
    return Outcome.failed(reason, {
      ...(username === undefined ? {} : { username }),
      challenge: {
        scheme: this.#scheme,
        error: kind,
        description:
          kind === 'invalid_request' ? 'The request has no access token' : DESCRIPTIONS[code],
      },
    });
  }
}
