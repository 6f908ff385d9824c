import { ConfigurationError } from '../core/errors.js';
import { isPromiseLike } from '../lib/promise.js';
import type { SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import { callStore, failClosed, type StoreCallSite } from '../stores/call.js';
import { MemoryRevocationStore } from '../stores/memory-revocation-store.js';
import type { MaybePromise, RevocationStore } from '../stores/types.js';
import type { ClaimsSet } from './claims.js';
import { VerifiedTokenCache } from './cache.js';

/** What a revocation check needs of a verified access token. @internal */
export interface RevocableToken {
  /** The token's `jti`, or `sha256:<hash>` of a token without one. */
  readonly id: string;
  readonly username: string;
  /**
   * The start of the second of its `iat` in epoch milliseconds (`0` without `iat`):
   * a token issued in the same second as a user revocation is covered by it.
   */
  readonly issuedAtMs: number;
}

/** The revocation-check part of a token: its id, subject and issue time. @internal */
export function revocableOf(
  claims: ClaimsSet,
  token: string | undefined,
  key?: string,
): RevocableToken {
  const jti = claims.jti;
  const id =
    typeof jti === 'string' && jti !== ''
      ? jti
      : `sha256:${key ?? VerifiedTokenCache.keyOf(token ?? '')}`;
  const iat = claims.iat;
  const issuedAtMs = typeof iat === 'number' && Number.isFinite(iat) ? Math.floor(iat) * 1000 : 0;
  return { id, username: claims.sub, issuedAtMs };
}

/**
 * Access-token revocation of a `JwtAuthenticator` through a {@link RevocationStore}:
 * the per-request check (synchronous with a synchronous store) and the revocations.
 * Every store call fails closed (503): a store error or a passed deadline is an
 * `UnavailableError`, never an accepted token.
 *
 * @internal
 */
export class AccessRevocations {
  readonly #store: RevocationStore;
  readonly #check: StoreCallSite;
  readonly #write: StoreCallSite;

  constructor(
    store: RevocationStore | undefined,
    clock: () => number,
    timeoutMs: number,
    events: SecurityEvents,
  ) {
    const candidate = (store ?? new MemoryRevocationStore({ clock })) as Partial<
      Record<keyof RevocationStore, unknown>
    > | null;
    if (
      typeof candidate !== 'object' ||
      candidate === null ||
      typeof candidate.isRevoked !== 'function' ||
      typeof candidate.revoke !== 'function' ||
      typeof candidate.revokeUser !== 'function'
    ) {
      throw new ConfigurationError(
        'revocations',
        'must be a RevocationStore (revoke, revokeUser, isRevoked) or false',
      );
    }
    this.#store = candidate as RevocationStore;
    this.#check = { store: 'revocation', operation: 'access-token-revocation', timeoutMs, events };
    this.#write = { store: 'revocation', operation: 'access-token-revoke', timeoutMs, events };
  }

  /** Whether the token is revoked; throws or rejects with an `UnavailableError` when unknown. */
  isRevoked(token: RevocableToken, request?: SecurityRequest): MaybePromise<boolean> {
    // Called directly (no closure): this runs on every request, cache hits included.
    let answer: MaybePromise<false | 'id' | 'user'>;
    try {
      answer = this.#store.isRevoked(token.id, token.username, token.issuedAtMs);
    } catch (error) {
      throw failClosed(this.#check, error);
    }
    if (!isPromiseLike(answer)) return this.#read(answer);
    const pending = answer;
    return Promise.resolve(callStore(this.#check, () => pending, request)).then((value) =>
      this.#read(value),
    );
  }

  /** Revokes one verified token until it can no longer verify (`exp` plus the leeway). */
  async revokeToken(claims: ClaimsSet, token: string, leewaySeconds: number): Promise<void> {
    const { id } = revocableOf(claims, token);
    const expiresAtMs = (claims.exp + leewaySeconds + 1) * 1000;
    const store = this.#store;
    await callStore(this.#write, () => store.revoke(id, expiresAtMs));
  }

  /**
   * Revokes every token of `username` issued at or before `atMs`, remembered while a
   * token issued then can still verify (`lifetimeSeconds` later, plus a second).
   */
  async revokeUser(username: string, atMs: number, lifetimeSeconds: number): Promise<void> {
    const expiresAtMs = atMs + (lifetimeSeconds + 1) * 1000;
    const store = this.#store;
    await callStore(this.#write, () => store.revokeUser(username, atMs, expiresAtMs));
  }

  /** Only `false` admits a token; an answer outside the contract fails closed. */
  #read(value: unknown): boolean {
    if (value === false) return false;
    if (value === 'id' || value === 'user') return true;
    throw failClosed(this.#check, new TypeError('isRevoked answered outside its contract'));
  }
}
