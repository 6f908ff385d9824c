import type {
  RefreshRotation,
  RefreshTokenStore,
  RevocationState,
  RotationOutcome,
} from '../jwt/refresh-store.js';
import { replyNumber, replyString, type RedisConnection } from './connection.js';
import { recordKey, ttlMs } from './keys.js';
import { REVOKE_FAMILY, REVOKE_USER, ROTATE } from './scripts.js';

const ROTATED: RotationOutcome = Object.freeze({ status: 'rotated' });
const REVOKED: RotationOutcome = Object.freeze({ status: 'revoked' });

/**
 * The {@link RefreshTokenStore} on Redis, shared by every instance: the semantics of
 * `MemoryRefreshTokenStore` (`portcullis/jwt`), with each rotation one server-side
 * Lua script — a compare-and-set of the family's current `jti` — so of any number
 * of concurrent refreshes of one token, on any instances, exactly one is `rotated`.
 *
 * Keys (with the default prefix): `portcullis:{fam:<family>}` a hash (current and
 * previous `jti`, when the previous was spent, revoked), kept until the family's
 * last token expires; `portcullis:{ru:<username>}` the time of the user's last
 * "revoke all". Every key has a TTL no longer than the tokens it guards.
 *
 * Never let Redis evict these keys (`maxmemory-policy noeviction`): a forgotten
 * family would let its spent login token rotate again. Made by
 * {@link createRedisStores} (`portcullis/redis`); failures throw
 * `StoreUnavailableError` (503).
 */
export class RedisRefreshTokenStore implements RefreshTokenStore {
  readonly #redis: RedisConnection;

  /** @internal Made by {@link createRedisStores}. */
  constructor(redis: RedisConnection) {
    this.#redis = redis;
  }

  async rotate(rotation: RefreshRotation): Promise<RotationOutcome> {
    const { family, jti, nextJti, expiresAtMs, nowMs } = rotation;
    const reply = await this.#redis.script(
      'refresh-rotation',
      ROTATE,
      [this.#family(family)],
      [jti, nextJti, String(nowMs), String(ttlMs(expiresAtMs, nowMs))],
    );
    const [status, spent] = Array.isArray(reply) ? (reply as unknown[]) : [];
    switch (replyString(status)) {
      case 'rotated':
        return ROTATED;
      case 'revoked':
        return REVOKED;
      case 'reused':
        return { status: 'reused', spentAtMs: replyNumber(spent) };
      default:
        throw new TypeError('Unexpected reply of the refresh-rotation script');
    }
  }

  async revokeFamily(family: string, expiresAtMs: number, nowMs: number): Promise<void> {
    await this.#redis.script(
      'refresh-family-revocation',
      REVOKE_FAMILY,
      [this.#family(family)],
      [String(ttlMs(expiresAtMs, nowMs))],
    );
  }

  async revokeUser(username: string, revokedAtMs: number, expiresAtMs: number): Promise<void> {
    await this.#redis.script(
      'refresh-user-revocation',
      REVOKE_USER,
      [recordKey(this.#redis.prefix, 'ru', username)],
      [String(revokedAtMs), String(ttlMs(expiresAtMs, this.#redis.clock()))],
    );
  }

  async revocationState(
    family: string,
    username: string,
    _nowMs: number,
  ): Promise<RevocationState> {
    // Two keys in two slots: two commands, sent together (node-redis pipelines them).
    const [revoked, userAt] = await Promise.all([
      this.#redis.command('refresh-revocation-state', ['HGET', this.#family(family), 'rev']),
      this.#redis.command('refresh-revocation-state', [
        'GET',
        recordKey(this.#redis.prefix, 'ru', username),
      ]),
    ]);
    return { familyRevoked: replyString(revoked) === '1', userRevokedAtMs: replyNumber(userAt) };
  }

  #family(family: string): string {
    return recordKey(this.#redis.prefix, 'fam', family);
  }
}
