import { randomUUID } from 'node:crypto';
import {
  summarize,
  type AuthenticationFailureReason,
  type SecurityEvents,
} from '../core/events.js';
import { deadlineExceeded } from '../core/deadline.js';
import { accountRefusal, type User } from '../core/user.js';
import { withDeadline } from '../lib/deadline.js';
import { awaitStore, type StoreCallSite } from '../stores/call.js';
import type { JwtSettings } from './config.js';
import { JwtError, type JwtErrorCode } from './errors.js';
import {
  readRefreshClaims,
  refreshPayload,
  type RefreshClaims,
  type RefreshTokenInput,
} from './refresh-claims.js';
import type { RefreshTokenStore } from './refresh-store.js';
import { signToken } from './sign.js';
import type { TokenPair } from './token-pair.js';
import type { LoadUser, RefreshOptions } from './token-service-options.js';
import { REFRESH_TYPE, TokenVerifier } from './verify.js';

type EventRequest = RefreshOptions['request'];

/** What {@link RefreshRotator} works with. @internal */
export interface RotatorOptions {
  readonly settings: JwtSettings;
  readonly store: RefreshTokenStore;
  readonly events: SecurityEvents;
  readonly graceMs: number;
  /** The deadline of one `loadUser` call, in milliseconds. */
  readonly loadUserTimeoutMs: number;
  /** The deadline of one asynchronous store call, in milliseconds. */
  readonly storeTimeoutMs: number;
  /** Signs an access token (the service's `JwtAuthenticator`). */
  readonly signAccess: (user: User) => Promise<string>;
}

/**
 * The refresh-token protocol of {@link JwtTokenService}: verification, revocation
 * checks, rotation in the store, reuse detection, and the events of each outcome.
 * The service adds the grace-window memo in front.
 *
 * @internal
 */
export class RefreshRotator {
  /** The refresh-token lifetime in seconds (set by the service). */
  refreshSeconds: number;
  readonly #settings: JwtSettings;
  readonly #verifier: TokenVerifier;
  readonly #store: RefreshTokenStore;
  readonly #events: SecurityEvents;
  readonly #graceMs: number;
  readonly #loadUserTimeoutMs: number;
  readonly #signAccess: (user: User) => Promise<string>;
  readonly #sites: Readonly<Record<'rotate' | 'revoke' | 'check', StoreCallSite>>;

  constructor(options: RotatorOptions, refreshSeconds: number) {
    const site = (operation: string): StoreCallSite => ({
      store: 'refresh-token',
      operation,
      timeoutMs: options.storeTimeoutMs,
      events: options.events,
    });
    this.#sites = {
      rotate: site('refresh-rotation'),
      revoke: site('refresh-revocation'),
      check: site('refresh-revocation-check'),
    };
    this.#settings = options.settings;
    this.#verifier = new TokenVerifier(options.settings);
    this.#store = options.store;
    this.#events = options.events;
    this.#graceMs = options.graceMs;
    this.#loadUserTimeoutMs = options.loadUserTimeoutMs;
    this.#signAccess = options.signAccess;
    this.refreshSeconds = refreshSeconds;
  }

  /** Verifies a refresh token and reads its rotation claims. */
  async claimsOf(token: string): Promise<RefreshClaims> {
    const { claims } = await this.#verifier.verify(token, 'refresh');
    return readRefreshClaims(claims);
  }

  /** Revokes a family until every token of it issued so far has expired. */
  revokeFamily(
    claims: Pick<RefreshClaims, 'fam' | 'exp'>,
    nowMs: number,
    request?: EventRequest,
  ): Promise<void> {
    const expiresAtMs = this.revocationExpiry(nowMs, claims.exp);
    return awaitStore(
      this.#sites.revoke,
      () => this.#store.revokeFamily(claims.fam, expiresAtMs, nowMs),
      request,
    );
  }

  /** Revokes every family of the user started before `nowMs`. */
  revokeUser(username: string, nowMs: number): Promise<void> {
    const expiresAtMs = this.revocationExpiry(nowMs, 0);
    return awaitStore(this.#sites.revoke, () =>
      this.#store.revokeUser(username, nowMs, expiresAtMs),
    );
  }

  /** {@link claimsOf}, publishing a failure event. */
  async verify(token: string, request: EventRequest): Promise<RefreshClaims> {
    try {
      return await this.claimsOf(token);
    } catch (error) {
      if (error instanceof JwtError) this.#publishFailure(reasonOf(error.code), undefined, request);
      throw error;
    }
  }

  /** Rotates a verified refresh token: a new pair, or a `JwtError`. */
  async rotate(
    claims: RefreshClaims,
    loadUser: LoadUser,
    nowMs: number,
    request: EventRequest,
  ): Promise<TokenPair> {
    const { sub, fam, jti } = claims;
    await this.#checkRevocations(claims, nowMs, request);
    const ms = this.#loadUserTimeoutMs;
    // A loader that never answers fails the refresh closed (the token is not spent).
    const user = await withDeadline(
      Promise.resolve().then(() => loadUser(sub)),
      ms,
      () => deadlineExceeded('load-user', ms, this.#events, request),
    );
    if (user === null || user === undefined || user.username !== sub) {
      await this.revokeFamily(claims, nowMs, request);
      throw this.#fail('ERR_JWT_UNKNOWN_USER', 'The refresh token user is unknown', sub, request);
    }
    const refusal = accountRefusal(user);
    if (refusal !== undefined) {
      // Locked, disabled or expired: refused, the family kept (an unlocked account refreshes again).
      this.#publishFailure(refusal, sub, request);
      throw new JwtError('ERR_JWT_ACCOUNT_INACTIVE', 'The refresh token user may not log in now');
    }
    const nextJti = randomUUID();
    const [accessToken, next] = await Promise.all([
      this.#signAccess(user),
      this.signRefresh({
        sub,
        jti: nextJti,
        fam,
        authTimeMs: claims.authTimeMs,
        nowMs,
        ttlSeconds: this.refreshSeconds,
      }),
    ]);
    const expiresAtMs = (next.exp + this.#settings.leewaySeconds) * 1000;
    const rotation = { family: fam, jti, nextJti, expiresAtMs, nowMs };
    const outcome = await awaitStore(
      this.#sites.rotate,
      () => this.#store.rotate(rotation),
      request,
    );
    if (outcome.status === 'rotated') {
      this.#publishSuccess(sub, request);
      return this.pair(accessToken, next.token);
    }
    if (outcome.status === 'revoked') {
      throw this.#fail('ERR_JWT_REVOKED', 'The refresh token was revoked', sub, request);
    }
    if (outcome.spentAtMs !== undefined && nowMs - outcome.spentAtMs < this.#graceMs) {
      // Spent within the grace window by a refresh this process cannot join (another
      // process, or one dropped from the memo): refused, the family is kept.
      const error = new JwtError('ERR_JWT_REFRESH_REUSED', 'The refresh token was just used');
      this.#publishFailure('invalid-token', sub, request);
      throw error;
    }
    await this.revokeFamily(claims, nowMs, request);
    throw this.#fail(
      'ERR_JWT_REFRESH_REUSED',
      'The refresh token was already used; its family is revoked',
      sub,
      request,
    );
  }

  /** A refresh that joined the grace window: the first caller's pair, unless revoked since. */
  async join(
    joined: Promise<TokenPair>,
    claims: RefreshClaims,
    request: EventRequest,
  ): Promise<TokenPair> {
    const pair = await joined;
    await this.#checkRevocations(claims, this.#settings.clock(), request);
    return pair;
  }

  async #checkRevocations(
    claims: RefreshClaims,
    nowMs: number,
    request: EventRequest,
  ): Promise<void> {
    const state = await awaitStore(
      this.#sites.check,
      () => this.#store.revocationState(claims.fam, claims.sub, nowMs),
      request,
    );
    const userRevoked =
      state.userRevokedAtMs !== undefined && claims.authTimeMs < state.userRevokedAtMs;
    if (state.familyRevoked || userRevoked) {
      throw this.#fail('ERR_JWT_REVOKED', 'The refresh token was revoked', claims.sub, request);
    }
  }

  async signRefresh(input: RefreshTokenInput): Promise<{ token: string; exp: number }> {
    const payload = refreshPayload(this.#settings, input);
    const token = await signToken(this.#settings, payload, REFRESH_TYPE);
    return { token, exp: payload['exp'] as number };
  }

  /**
   * How long a revocation is kept: past the `exp` (plus leeway) of every token of
   * the family issued so far, which is at most now plus the refresh lifetime.
   */
  revocationExpiry(nowMs: number, exp: number): number {
    const leeway = this.#settings.leewaySeconds;
    return Math.max(nowMs + (this.refreshSeconds + leeway + 1) * 1000, (exp + leeway) * 1000);
  }

  pair(accessToken: string, refreshToken: string): TokenPair {
    return Object.freeze({
      accessToken,
      refreshToken,
      tokenType: 'Bearer',
      expiresIn: this.#settings.expirationSeconds,
      refreshExpiresIn: this.refreshSeconds,
    });
  }

  #fail(code: JwtErrorCode, message: string, username: string, request: EventRequest): JwtError {
    this.#publishFailure(reasonOf(code), username, request);
    return new JwtError(code, message);
  }

  #publishFailure(
    reason: AuthenticationFailureReason,
    username: string | undefined,
    request: EventRequest,
  ): void {
    if (!this.#events.hasListeners) return;
    this.#events.publish({
      type: 'authentication-failure',
      username,
      authenticationMethod: 'jwt-refresh',
      reason,
      request: request === undefined ? undefined : summarize(request),
    });
  }

  #publishSuccess(username: string, request: EventRequest): void {
    if (!this.#events.hasListeners) return;
    this.#events.publish({
      type: 'authentication-success',
      username,
      authenticationMethod: 'jwt-refresh',
      request: request === undefined ? undefined : summarize(request),
    });
  }
}

function reasonOf(code: JwtErrorCode): AuthenticationFailureReason {
  switch (code) {
    case 'ERR_JWT_EXPIRED':
    case 'ERR_JWT_NOT_YET_VALID':
      return 'expired-token';
    case 'ERR_JWT_REFRESH_REUSED':
      return 'token-reused';
    case 'ERR_JWT_UNKNOWN_USER':
      return 'unknown-user';
    default:
      return 'invalid-token';
  }
}
