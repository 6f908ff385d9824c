import { memoryStoreOptions } from '../stores/memory-options.js';
import {
  RefreshStoreFullError,
  type RefreshRotation,
  type RefreshTokenStore,
  type RevocationState,
  type RotationOutcome,
} from './refresh-store.js';

/** Options of {@link MemoryRefreshTokenStore}. */
export interface MemoryRefreshTokenStoreOptions {
  /**
   * The most records kept: one per family that has rotated at least once, and one
   * per revoked family or user, each for its token lifetime (about 200 bytes each).
   * @defaultValue `100_000`
   */
  readonly maxEntries?: number;
}

interface FamilyRecord {
  current: string | undefined;
  previous: string | undefined;
  spentAtMs: number | undefined;
  revoked: boolean;
  expiresAtMs: number;
}

interface UserRecord {
  revokedAtMs: number;
  expiresAtMs: number;
}

const ROTATED: RotationOutcome = Object.freeze({ status: 'rotated' });
const REVOKED: RotationOutcome = Object.freeze({ status: 'revoked' });

/**
 * The in-memory {@link RefreshTokenStore} (the default), for one process.
 * Bounded: a record is dropped once its tokens have expired; when `maxEntries` live records are held,
 * a rotation that needs a new record (a family's first refresh) or a new revocation
 * **fails closed** with {@link RefreshStoreFullError}: it never forgets a spent
 * token to make room, since that would let the spent token be replayed. Families
 * that already have a record keep rotating.
 *
 * A restart empties the store: a token spent before the restart could then be
 * exchanged once more, and revocations are forgotten. Use a shared, persistent
 * store where that matters (several processes, restarts).
 *
 * @example
 * ```ts
 * const tokens = new JwtTokenService(config, { store: new MemoryRefreshTokenStore({ maxEntries: 500_000 }) });
 * ```
 */
export class MemoryRefreshTokenStore implements RefreshTokenStore {
  readonly #families = new Map<string, FamilyRecord>();
  readonly #users = new Map<string, UserRecord>();
  readonly #maxEntries: number;
  /** No record expires before this time (a lower bound): a sweep before it frees nothing. */
  #nextExpiryMs = Number.POSITIVE_INFINITY;

  constructor(options: MemoryRefreshTokenStoreOptions = {}) {
    this.#maxEntries = memoryStoreOptions('MemoryRefreshTokenStore', options, {
      clock: false,
    }).maxEntries;
  }

  /** How many records are held (expired ones included until they are dropped). */
  get size(): number {
    return this.#families.size + this.#users.size;
  }

  rotate(rotation: RefreshRotation): Promise<RotationOutcome> {
    return settle(() => {
      const { family, jti, nextJti, expiresAtMs, nowMs } = rotation;
      const record = live(this.#families, family, nowMs);
      if (record === undefined) {
        this.#reserve(nowMs, expiresAtMs);
        this.#families.set(family, {
          current: nextJti,
          previous: jti,
          spentAtMs: nowMs,
          revoked: false,
          expiresAtMs,
        });
        return ROTATED;
      }
      if (record.revoked) return REVOKED;
      if (record.current !== jti) {
        return {
          status: 'reused',
          spentAtMs: record.previous === jti ? record.spentAtMs : undefined,
        };
      }
      record.previous = jti;
      record.current = nextJti;
      record.spentAtMs = nowMs;
      record.expiresAtMs = Math.max(record.expiresAtMs, expiresAtMs);
      return ROTATED;
    });
  }

  revokeFamily(family: string, expiresAtMs: number, nowMs: number): Promise<void> {
    return settle(() => {
      const record = live(this.#families, family, nowMs);
      if (record !== undefined) {
        record.revoked = true;
        record.expiresAtMs = Math.max(record.expiresAtMs, expiresAtMs);
        return;
      }
      this.#reserve(nowMs, expiresAtMs);
      this.#families.set(family, {
        current: undefined,
        previous: undefined,
        spentAtMs: undefined,
        revoked: true,
        expiresAtMs,
      });
    });
  }

  revokeUser(username: string, revokedAtMs: number, expiresAtMs: number): Promise<void> {
    return settle(() => {
      const record = live(this.#users, username, revokedAtMs);
      if (record !== undefined) {
        record.revokedAtMs = Math.max(record.revokedAtMs, revokedAtMs);
        record.expiresAtMs = Math.max(record.expiresAtMs, expiresAtMs);
        return;
      }
      this.#reserve(revokedAtMs, expiresAtMs);
      this.#users.set(username, { revokedAtMs, expiresAtMs });
    });
  }

  revocationState(family: string, username: string, nowMs: number): Promise<RevocationState> {
    return settle(() => ({
      familyRevoked: live(this.#families, family, nowMs)?.revoked ?? false,
      userRevokedAtMs: live(this.#users, username, nowMs)?.revokedAtMs,
    }));
  }

  /** Makes room for one record, dropping expired ones; throws when all are live. */
  #reserve(nowMs: number, expiresAtMs: number): void {
    if (this.size >= this.#maxEntries && nowMs >= this.#nextExpiryMs) {
      this.#nextExpiryMs = Math.min(sweep(this.#families, nowMs), sweep(this.#users, nowMs));
    }
    if (this.size >= this.#maxEntries) throw new RefreshStoreFullError(this.#maxEntries);
    this.#nextExpiryMs = Math.min(this.#nextExpiryMs, expiresAtMs);
  }
}

/** The record unless it has expired (an expired record is dropped). */
function live<R extends { expiresAtMs: number }>(
  map: Map<string, R>,
  key: string,
  nowMs: number,
): R | undefined {
  const record = map.get(key);
  if (record === undefined) return undefined;
  if (nowMs < record.expiresAtMs) return record;
  map.delete(key);
  return undefined;
}

/** Drops the expired records; returns the earliest expiry of those left. */
function sweep(map: Map<string, { expiresAtMs: number }>, nowMs: number): number {
  let next = Number.POSITIVE_INFINITY;
  for (const [key, record] of map) {
    if (nowMs >= record.expiresAtMs) map.delete(key);
    else next = Math.min(next, record.expiresAtMs);
  }
  return next;
}

/** Runs a synchronous step as a promise (a throw becomes a rejection). */
function settle<T>(step: () => T): Promise<T> {
  return new Promise((resolve) => {
    resolve(step());
  });
}
