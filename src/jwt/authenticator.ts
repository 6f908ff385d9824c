import { randomUUID } from 'node:crypto';
import { errors } from 'jose';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { noteCredentialFailure } from '../core/credential-failure.js';
import { deadlineExceeded } from '../core/deadline.js';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import { securityEvents, summarize, type SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import type { Authenticator } from '../core/security.js';
import { User } from '../core/user.js';
import { VerifiedTokenCache } from './cache.js';
import { isCompactJws } from './compact.js';
import type { Claims } from './claims.js';
import { JwtConfig, type JwtConfigOptions, type JwtSettings } from './config.js';
import { DESCRIPTIONS, JwtError } from './errors.js';
import { signToken } from './sign.js';
import { UserMemo, userFromClaims } from './user-claims.js';
import { ACCESS_TYPE, TokenVerifier, type VerifiedToken } from './verify.js';

/** Options of {@link JwtAuthenticator} besides its configuration. */
export interface JwtAuthenticatorOptions {
  /** Where authentication events go. @defaultValue `securityEvents` */
  readonly events?: SecurityEvents;
}

interface CachedUser {
  readonly user: AuthenticatedUser;
}

/**
 * JWT bearer authentication on jose (SPEC.md's `JwtAuthenticator`): issues access
 * tokens, validates them strictly, and as an {@link Authenticator} turns the
 * configured header (`Authorization: Bearer <jwt>`) into a user. Tokens in the
 * query string are never read.
 *
 * A refused token (expired, bad signature, wrong type, …) makes the request
 * anonymous, publishes an `authentication-failure` event, and notes the failure so a
 * `requestMatcher().bearer()` entry point answers
 * `401 WWW-Authenticate: Bearer error="invalid_token"`. Verified tokens are cached
 * (see `JwtConfig.cache`): a cache hit answers synchronously, without a signature
 * check.
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
  readonly #prefix: string;
  readonly #bareScheme: string;
  readonly #users = new UserMemo();

  /** @param config - a {@link JwtConfig} or its plain-object form */
  constructor(config: JwtConfig | JwtConfigOptions, options: JwtAuthenticatorOptions = {}) {
    const resolved = config instanceof JwtConfig ? config : JwtConfig.fromOptions(config);
    this.#settings = resolved.resolve();
    this.#verifier = new TokenVerifier(this.#settings);
    const cache = this.#settings.cache;
    this.#cache = cache ? new VerifiedTokenCache(cache.maxEntries, cache.maxAgeSeconds) : undefined;
    const events = options.events ?? securityEvents;
    if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
      throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
    }
    this.#events = events;
    this.#prefix = this.#settings.headerPrefix.toLowerCase();
    this.#scheme = this.#settings.headerPrefix.trim() || 'Bearer';
    this.#bareScheme = this.#settings.headerPrefix.trim().toLowerCase() || '\u0000';
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
    const iat = Math.floor(this.#settings.clock() / 1000);
    const { issuer, audience } = this.#settings;
    return signToken(
      this.#settings,
      {
        sub: user.username,
        roles: [...user.roles],
        authorities: [...user.authorities],
        iat,
        exp: iat + this.#settings.expirationSeconds,
        jti: randomUUID(),
        ...(issuer === undefined ? {} : { iss: issuer }),
        ...(audience === undefined
          ? {}
          : { aud: audience.length === 1 ? audience[0] : [...audience] }),
      },
      ACCESS_TYPE,
    );
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
   * Verifies an access token: its header and claims, or a {@link JwtError} with a
   * stable code. Never cached.
   */
  validateToken(token: string): Promise<VerifiedToken> {
    return this.#verifier.verify(token, 'access');
  }

  /** SPEC.md's operation: the user of the request's bearer token, or `null`. */
  async getUser(request: SecurityRequest): Promise<User | null> {
    const user = await this.authenticate(request);
    return user ? new User(user.username, '', user.roles, user.authorities) : null;
  }

  /**
   * The authenticated user of the request's bearer token, or `null` (no token, or
   * a refused one). Synchronous on a cache hit.
   */
  authenticate(
    request: SecurityRequest,
  ): AuthenticatedUser | null | Promise<AuthenticatedUser | null> {
    const header = request.header(this.#settings.headerName);
    if (header === undefined) return null;
    // RFC 6750 §2.1: `Bearer 1*SP b64token`; trailing spaces and tabs are the field's
    // optional whitespace. Nothing else is trimmed (String#trim would take Unicode
    // spaces too).
    const token =
      header.slice(0, this.#prefix.length).toLowerCase() === this.#prefix
        ? credentialOf(header, this.#prefix.length)
        : undefined;
    // `Bearer` alone (HTTP trims the space) is this scheme without a token.
    const bare = token === undefined && header.trim().toLowerCase() === this.#bareScheme;
    if (token === undefined && !bare) return null;
    if (token === undefined || token === '') {
      // RFC 6750 §3.1: a malformed request (the scheme without a token).
      return this.#failed(
        new JwtError('ERR_JWT_MALFORMED', 'The token must be a non-empty string'),
        request,
        'invalid_request',
      );
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
    if (hit !== undefined) return this.#succeeded(hit.user, request);
    if (!isCompactJws(token)) {
      // Not the one spelling of a compact JWS (whitespace inside, padding, another
      // alphabet, spare bits set, anything beyond a b64token): refused before any
      // decoding and never stored, so a re-spelled token never becomes a cache entry.
      return this.#failed(
        new JwtError('ERR_JWT_MALFORMED', 'The token is not a compact JWS'),
        request,
      );
    }
    return this.#verify(token, key, request);
  }

  async #verify(
    token: string,
    key: string | undefined,
    request: SecurityRequest,
  ): Promise<AuthenticatedUser | null> {
    let user: AuthenticatedUser;
    let exp: number;
    try {
      const { claims } = await this.#verifier.verify(token, 'access');
      user = userFromClaims(claims, this.#settings, this.#users);
      exp = claims.exp;
    } catch (error) {
      if (!(error instanceof JwtError)) throw error;
      if (error.code === 'ERR_JWT_JWKS_UNAVAILABLE') throw this.#unavailable(error, request);
      return this.#failed(error, request);
    }
    if (key !== undefined) this.#cache?.set(key, { user }, exp, this.#settings.clock());
    return this.#succeeded(user, request);
  }

  /**
   * The key set could not be fetched (jose's `timeoutDuration` passed, the server is
   * unreachable or answers garbage): the token was not checked, so the request fails
   * closed with 503 instead of going on as anonymous.
   */
  #unavailable(error: JwtError, request: SecurityRequest): UnavailableError {
    const timeoutMs = this.#settings.jwks?.timeoutMs;
    if (timeoutMs !== undefined && timedOut(error)) {
      return deadlineExceeded('jwks', timeoutMs, this.#events, request);
    }
    return new UnavailableError('The key set could not be fetched', 5, { cause: error });
  }

  #succeeded(user: AuthenticatedUser, request: SecurityRequest): AuthenticatedUser {
    const events = this.#events;
    if (events.hasListeners) {
      events.publish({
        type: 'authentication-success',
        username: user.username,
        authenticationMethod: 'jwt',
        request: summarize(request),
      });
    }
    return user;
  }

  #failed(
    error: JwtError,
    request: SecurityRequest,
    kind: 'invalid_token' | 'invalid_request' = 'invalid_token',
  ): null {
    noteCredentialFailure(request, {
      scheme: this.#scheme,
      error: kind,
      description:
        kind === 'invalid_request' ? 'The request has no access token' : DESCRIPTIONS[error.code],
    });
    const events = this.#events;
    if (events.hasListeners) {
      events.publish({
        type: 'authentication-failure',
        username: undefined,
        authenticationMethod: 'jwt',
        reason:
          error.code === 'ERR_JWT_EXPIRED' || error.code === 'ERR_JWT_NOT_YET_VALID'
            ? 'expired-token'
            : 'invalid-token',
        request: summarize(request),
      });
    }
    return null;
  }
}

/**
 * The credential after the scheme: leading spaces (`1*SP`) and trailing spaces and
 * tabs (optional whitespace) removed, nothing else. A loop, not a regex: a run of
 * spaces before a non-space would make `/[ \t]+$/` quadratic.
 */
function credentialOf(header: string, start: number): string {
  let end = header.length;
  while (end > start && (header[end - 1] === ' ' || header[end - 1] === '\t')) end--;
  while (start < end && header[start] === ' ') start++;
  return header.slice(start, end);
}

/**
 * Whether a key-set failure is jose's `timeoutDuration` passing: before the headers
 * (`JWKSTimeout`) or while the body was read (the abort's `TimeoutError`, wrapped).
 */
function timedOut(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof errors.JWKSTimeout || current.name === 'TimeoutError') return true;
    current = current.cause;
  }
  return false;
}
