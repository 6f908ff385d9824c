import { ConfigurationError } from '../core/errors.js';
import { User } from '../core/user.js';
import { isPromiseLike } from '../lib/promise.js';
import { TtlCache } from '../lib/ttl-cache.js';
import { rejectUnknownOptions, requireInteger } from '../core/validate.js';
import type { UserChangeNotifier } from '../stores/types.js';
import type { UserRepository } from './repository.js';

/** Options of {@link CachingUserRepository}. */
export interface CachingUserRepositoryOptions {
  /**
   * Announces changes of users (the authenticators' notifier, e.g. the Redis one of
   * `portcullis/redis`): an announced user is dropped from the cache on every
   * instance. Required: a cache that nobody invalidates would serve a locked user
   * until its entries expire.
   */
  readonly userChanges: UserChangeNotifier;
  /**
   * How long a user is kept at most, in milliseconds: the staleness bound should an
   * announcement ever be lost without the channel telling.
   * @defaultValue `60_000`
   */
  readonly ttlMs?: number;
  /** How many users are kept at most (least recently used first out). @defaultValue `10_000` */
  readonly maxEntries?: number;
}

/**
 * A {@link UserRepository} in front of another, keeping the users it found in memory
 * (Spring's `CachingUserDetailsService`), so that what reads a user on every request
 * — the session `loadUser`, the refresh `loadUser` — does not pay a database or
 * Redis round trip for a user that has not changed. A hit answers synchronously.
 *
 * Invalidation: a user is dropped on every instance when its change is announced
 * through `userChanges` (`RepositoryAuthenticator.userChanged`, a password upgrade,
 * a `SqlUserRepository` given the notifier); while the notifier's channel is down
 * the cache neither answers nor fills, and it is emptied when the channel goes down.
 * A lookup in flight when any change is announced is not cached. Unknown usernames
 * are never cached (a sign-up is seen at once). `updatePassword` goes to the
 * repository and drops the user.
 *
 * @example
 * ```ts
 * const cached = new CachingUserRepository(sqlUsers, { userChanges: stores.userChanges });
 * const sessions = new SessionAuthenticator({ password, store: stores.sessions, loadUser: (name) => cached.findByUsername(name) });
 * ```
 */
export class CachingUserRepository implements UserRepository {
  readonly #repository: UserRepository;
  readonly #userChanges: UserChangeNotifier;
  readonly #cache: TtlCache<string, User>;
  readonly #unsubscribe: () => void;
  /** Counts announced changes: a lookup that saw one since it started caches nothing. */
  #changes = 0;

  constructor(repository: UserRepository, options: CachingUserRepositoryOptions) {
    if (typeof (repository as Partial<UserRepository> | null)?.findByUsername !== 'function') {
      throw new ConfigurationError('repository', 'must be a UserRepository');
    }
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new ConfigurationError('options', 'must be an object');
    }
    rejectUnknownOptions('CachingUserRepository', options, ['userChanges', 'ttlMs', 'maxEntries']);
    const { userChanges } = options;
    if (typeof (userChanges as Partial<UserChangeNotifier> | undefined)?.subscribe !== 'function') {
      throw new ConfigurationError('userChanges', 'must be a UserChangeNotifier');
    }
    this.#repository = repository;
    this.#userChanges = userChanges;
    this.#cache = new TtlCache({
      maxEntries: requireInteger('maxEntries', options.maxEntries ?? 10_000, 1, 10_000_000),
      ttlMs: requireInteger('ttlMs', options.ttlMs ?? 60_000, 1, 86_400_000),
    });
    const unsubscribe = userChanges.subscribe((username) => {
      this.#changes++;
      this.#cache.deleteWhere((user) => user.username === username);
    });
    const unsubscribeReset = userChanges.onReset?.(() => {
      this.#changes++;
      this.#cache.clear();
    });
    this.#unsubscribe = () => {
      unsubscribe();
      unsubscribeReset?.();
    };
  }

  /** The user, from the cache when it holds it (synchronously), else from the repository. */
  findByUsername(username: string): User | null | Promise<User | null> {
    const listening = this.#userChanges.listening !== false;
    const hit = listening ? this.#cache.get(username) : undefined;
    if (hit !== undefined) return hit;
    const changes = this.#changes;
    const found = this.#repository.findByUsername(username);
    const keep = (user: User | null): User | null => {
      if (
        user instanceof User &&
        user.username === username &&
        changes === this.#changes &&
        this.#userChanges.listening !== false
      ) {
        this.#cache.set(username, user);
      }
      return user;
    };
    return isPromiseLike(found) ? Promise.resolve(found).then(keep) : keep(found);
  }

  /** The repository's `updatePassword`, dropping the user from this cache. */
  async updatePassword(user: User, newEncodedPassword: string): Promise<User | null> {
    const repository = this.#repository;
    if (repository.updatePassword === undefined) return null;
    this.#changes++;
    this.#cache.delete(user.username);
    return (await repository.updatePassword(user, newEncodedPassword)) ?? null;
  }

  /** Drops a user from this instance's cache (announce through `userChanges` to reach every instance). */
  evict(username: string): void {
    this.#changes++;
    this.#cache.delete(username);
  }

  /** How many users are cached (expired ones included until dropped). */
  get size(): number {
    return this.#cache.size;
  }

  /** Stops listening to `userChanges` (for a repository that is thrown away). */
  close(): void {
    this.#unsubscribe();
  }
}
