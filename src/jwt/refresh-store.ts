import { MemoryStoreFullError } from '../stores/errors.js';

/** One refresh: the presented token of a family is exchanged for the next one. */
export interface RefreshRotation {
  /** The family id (`fam` claim): every refresh token descending from one login. */
  readonly family: string;
  /** The `jti` of the presented refresh token. */
  readonly jti: string;
  /** The `jti` of the refresh token issued in its place. */
  readonly nextJti: string;
  /**
   * Keep the family's record at least until this time (epoch milliseconds): the
   * new token's `exp` plus the leeway, after which no token of the family verifies.
   */
  readonly expiresAtMs: number;
  /** The time of the refresh, epoch milliseconds (the service's clock). */
  readonly nowMs: number;
}

/**
 * What {@link RefreshTokenStore.rotate} did:
 * - `rotated`: the presented token was the family's current one (or the family had
 *   never rotated, so it was the login token); `nextJti` is now current.
 * - `reused`: the presented token was already spent; nothing changed. `spentAtMs`
 *   says when, for the family's previous token only (the grace window), else `undefined`.
 * - `revoked`: the family is revoked; nothing changed.
 */
export type RotationOutcome =
  | { readonly status: 'rotated' }
  | { readonly status: 'reused'; readonly spentAtMs: number | undefined }
  | { readonly status: 'revoked' };

/** The revocations that concern a refresh token. */
export interface RevocationState {
  /** Whether the token's family is revoked. */
  readonly familyRevoked: boolean;
  /** When all refresh tokens of the user were last revoked (epoch ms), if they were. */
  readonly userRevokedAtMs: number | undefined;
}

/**
 * Where {@link JwtTokenService} records refresh-token rotation and revocations.
 * The default, {@link MemoryRefreshTokenStore}, serves one process; implement this
 * interface on a shared store (Redis, SQL) for several.
 *
 * The store keeps one small record per family that has rotated at least once
 * (its current and previous `jti`) and one per revoked family or user; never a
 * token. Contract for implementations:
 * - `rotate` is atomic (a compare-and-set: a Redis script, `UPDATE … WHERE current = $jti`):
 *   of two rotations of the same token, exactly one gets `rotated`.
 * - A family without a record has never rotated: its only token is the login token,
 *   which may rotate once. So a record must never be dropped before its
 *   `expiresAtMs` (no LRU eviction, e.g. Redis `maxmemory-policy noeviction`):
 *   forgetting it would let a spent token rotate again. When out of room, throw
 *   (the default store throws {@link RefreshStoreFullError}).
 * - Times are the service's clock (epoch milliseconds), passed in every call.
 */
export interface RefreshTokenStore {
  /** Atomically exchanges the family's current `jti` for `nextJti` (see {@link RotationOutcome}). */
  rotate(rotation: RefreshRotation): Promise<RotationOutcome>;
  /** Revokes a family until `expiresAtMs` (or its record's own expiry, if later). */
  revokeFamily(family: string, expiresAtMs: number, nowMs: number): Promise<void>;
  /**
   * Revokes every family of the user started before `revokedAtMs`, remembered until
   * `expiresAtMs`. A later call keeps the latest time.
   */
  revokeUser(username: string, revokedAtMs: number, expiresAtMs: number): Promise<void>;
  /** The revocations concerning a family and its user. */
  revocationState(family: string, username: string, nowMs: number): Promise<RevocationState>;
}

/**
 * The refresh-token store is full of live records: the rotation or revocation was
 * refused rather than forgetting a spent token (which would re-open replay). An
 * operational failure, not a bad token: a `MemoryStoreFullError` (`code`
 * `ERR_STORE_FULL`, `store` `memory refresh-token store`), so an `UnavailableError`
 * (503 with `Retry-After`). Raise `maxEntries` or use a shared store.
 */
export class RefreshStoreFullError extends MemoryStoreFullError {
  constructor(maxEntries: number) {
    super('memory refresh-token store', maxEntries);
  }
}
