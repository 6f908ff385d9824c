import type { SessionStore } from '../session/store.js';
import { TtlCache } from '../lib/ttl-cache.js';
import { replyNumber, type RedisConnection } from './connection.js';
import { recordKey, ttlMs } from './keys.js';
import { activityKey, type CachedRevocations } from './revocations.js';

/** What this instance knows of a session's activity since it last wrote it. */
interface Activity {
  lastMs: number;
}

/**
 * The {@link SessionStore} on Redis (`portcullis/redis`), shared by every instance:
 * a logout, a "log out everywhere" or a rights change through one instance is
 * refused by all of them.
 *
 * - `isRevoked` answers from a local cache while nothing changed (no round trip),
 *   invalidated on every instance by each revocation before it returns; an answer is
 *   never used longer than `maxStalenessMs` after it was read, and never while the
 *   invalidation channel is down (see {@link createRedisStores}).
 * - `touch` (idle timeouts) writes a session's activity at most once per
 *   `touchIntervalMs` from each instance (`SET … PX … GET`, the previous time in
 *   the same command), and answers in between from what this instance saw. So the
 *   activity stored in Redis is at most `touchIntervalMs` older than the real last
 *   activity: another instance may find a session idle up to that much early, never
 *   late — an idle timeout is never extended. Keep `touchIntervalMs` well below the
 *   idle timeout.
 *
 * Keys: `portcullis:{s:<sid>}` (revoked), `portcullis:{s:<sid>}:activity`,
 * `portcullis:{su:<username>}` (sessions created at or before this time are
 * revoked); each with the TTL of the session it guards. Failures throw
 * `StoreUnavailableError` (503). Made by {@link createRedisStores}.
 */
export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisConnection;
  readonly #revocations: CachedRevocations;
  readonly #activity: TtlCache<string, Activity>;

  /** @internal Made by {@link createRedisStores}. */
  constructor(
    redis: RedisConnection,
    revocations: CachedRevocations,
    touch: { readonly intervalMs: number; readonly maxEntries: number },
  ) {
    this.#redis = redis;
    this.#revocations = revocations;
    this.#activity = new TtlCache({ maxEntries: touch.maxEntries, ttlMs: touch.intervalMs });
  }

  async revokeSession(sid: string, expiresAtMs: number): Promise<void> {
    this.#activity.delete(sid);
    await this.#revocations.revokeId(sid, expiresAtMs);
  }

  revokeUser(username: string, atMs: number, expiresAtMs: number): Promise<void> {
    return this.#revocations.revokeUser(username, atMs, expiresAtMs);
  }

  isRevoked(
    sid: string,
    username: string | undefined,
    createdAtMs: number,
  ): false | 'session' | 'user' | Promise<false | 'session' | 'user'> {
    const answer = this.#revocations.check(sid, username, createdAtMs);
    return answer instanceof Promise ? answer.then(sessionAnswer) : sessionAnswer(answer);
  }

  touch(
    sid: string,
    nowMs: number,
    expiresAtMs: number,
  ): number | undefined | Promise<number | undefined> {
    const known = this.#activity.get(sid);
    if (known !== undefined && nowMs >= known.lastMs) {
      // Written by this instance less than `touchIntervalMs` ago.
      const previous = known.lastMs;
      known.lastMs = nowMs;
      return previous;
    }
    return this.#write(sid, nowMs, expiresAtMs, known?.lastMs);
  }

  async #write(
    sid: string,
    nowMs: number,
    expiresAtMs: number,
    seenMs: number | undefined,
  ): Promise<number | undefined> {
    const key = activityKey(recordKey(this.#redis.prefix, 's', sid));
    const reply = await this.#redis.command('session-activity', [
      'SET',
      key,
      String(nowMs),
      'PX',
      String(ttlMs(expiresAtMs, this.#redis.clock())),
      'GET',
    ]);
    this.#activity.set(sid, { lastMs: nowMs });
    const stored = replyNumber(reply);
    if (stored === undefined) return seenMs;
    return seenMs === undefined ? stored : Math.max(stored, seenMs);
  }
}

function sessionAnswer(answer: false | 'id' | 'user'): false | 'session' | 'user' {
  return answer === 'id' ? 'session' : answer;
}
