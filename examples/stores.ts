/**
 * Where the example keeps its users and its security state.
 *
 * - Without `REDIS_URL` (the default, nothing to start): the demo users in a
 *   `MemoryUserRepository`, and portcullis' in-memory stores (one process).
 * - With `REDIS_URL=redis://…`: every piece of state on that Redis, shared by every
 *   instance of the example — refresh-token families, session revocations (logout,
 *   log out everywhere), access-token revocations, spent OAuth2 transactions, the
 *   login throttle's and rate limits' counters, and the announcements of changed
 *   users that drop cached credentials. The users are in the same Redis
 *   ({@link RedisUserRepository}, the app's own code), seeded with the demo users
 *   when they are absent (at start, and again before any lookup should a Redis
 *   without persistence come back empty).
 */
import {
  CachingUserRepository,
  MemoryThrottleStore,
  MemoryUserRepository,
  User,
  type UserRepository,
  type PasswordEncoder,
} from 'portcullis';
import { connectRedis, createRedisStores, type RedisStores } from 'portcullis/redis';
import type { RefreshTokenStore } from 'portcullis/jwt';
import type { SessionStore } from 'portcullis/session';
import type { RevocationStore, SpentIdStore, ThrottleStore, UserChangeNotifier } from 'portcullis';
import { RedisUserRepository, type SeedUser } from './redis-users.js';

/** The start of every portcullis key and channel in the example's Redis. */
export const PORTCULLIS_PREFIX = 'portcullis:';
/** The start of the example's own user keys in Redis. */
export const USERS_PREFIX = 'example:users:';

/** A demo user: username, clear password (printed at start), roles, authorities. */
export interface DemoUser {
  readonly username: string;
  readonly password: string;
  readonly roles: readonly string[];
  readonly authorities: readonly string[];
}

/** The example's users and stores, in memory or on Redis. */
export interface ExampleStores {
  /** `'memory'` (one process) or `'redis'` (shared by every instance). */
  readonly mode: 'memory' | 'redis';
  /** The users, with a compare-and-set `updatePassword` (password changes). */
  readonly users: UserRepository & Required<Pick<UserRepository, 'updatePassword'>>;
  /**
   * The users for what reads one on every request (the session and refresh
   * `loadUser`): on Redis, cached in memory and dropped on every instance when a change
   * is announced (`CachingUserRepository`), so a session request pays no round trip.
   */
  readonly readers: UserRepository;
  /** For `SessionAuthenticator` (`undefined`: its in-memory default). */
  readonly sessions: SessionStore | undefined;
  /** For `JwtTokenService` (`undefined`: its in-memory default). */
  readonly refreshTokens: RefreshTokenStore | undefined;
  /** Access-token revocations (`undefined`: the in-memory default). */
  readonly accessTokens: RevocationStore | undefined;
  /** Spent OAuth2 login transactions (`undefined`: the in-memory default). */
  readonly spentIds: SpentIdStore | undefined;
  /** Announces changed users to every instance (`undefined`: this process only). */
  readonly userChanges: UserChangeNotifier | undefined;
  /** The login throttle's and rate limits' counters: this process's, or every instance's on Redis. */
  readonly throttle: ThrottleStore;
  /** Closes the Redis connections (nothing in memory). */
  close(): Promise<void>;
}

/** Options of {@link createExampleStores}. */
export interface ExampleStoresOptions {
  /** `redis://host:port`: the state and users on Redis. @defaultValue in memory */
  readonly redisUrl?: string | undefined;
  /** Encodes the demo users' passwords. */
  readonly encoder: PasswordEncoder;
  readonly demoUsers: readonly DemoUser[];
  /** Told of Redis connection errors (a lost connection, a failed reconnection). */
  readonly onError?: (error: unknown) => void;
}

/** The users and stores of the example: on Redis with `redisUrl`, else in memory. */
export async function createExampleStores(options: ExampleStoresOptions): Promise<ExampleStores> {
  const seeds = await Promise.all(
    options.demoUsers.map(async (demo): Promise<SeedUser> => ({
      username: demo.username,
      encodedPassword: await options.encoder.encode(demo.password),
      roles: demo.roles,
      authorities: demo.authorities,
    })),
  );
  if (options.redisUrl === undefined || options.redisUrl === '') {
    const users = new MemoryUserRepository(
      seeds.map((seed) =>
        User.withEncodedPassword(seed.username, seed.encodedPassword)
          .withRoles(seed.roles)
          .withAuthorities(seed.authorities),
      ),
    );
    return {
      mode: 'memory',
      users,
      readers: users,
      sessions: undefined,
      refreshTokens: undefined,
      accessTokens: undefined,
      spentIds: undefined,
      userChanges: undefined,
      throttle: new MemoryThrottleStore(),
      close: () => Promise.resolve(),
    };
  }
  return redisStores(options.redisUrl, seeds, options.onError ?? (() => undefined));
}

async function redisStores(
  url: string,
  seeds: readonly SeedUser[],
  onError: (error: unknown) => void,
): Promise<ExampleStores> {
  const client = await connectRedis(url, { onError });
  let stores: RedisStores;
  try {
    stores = createRedisStores({ client, prefix: PORTCULLIS_PREFIX, onError });
  } catch (error) {
    client.destroy();
    throw error;
  }
  // Seeded now, and again before any lookup should a Redis without persistence come
  // back empty (a user still there is left as it is).
  const users = new RedisUserRepository({ client, prefix: USERS_PREFIX, seeds });
  try {
    await users.seed();
  } catch (error) {
    stores.close();
    client.destroy();
    throw error;
  }
  // Invalidations are live before the first request (until then checks ask Redis).
  await stores.ready();
  return {
    mode: 'redis',
    users,
    readers: new CachingUserRepository(users, { userChanges: stores.userChanges }),
    sessions: stores.sessions,
    refreshTokens: stores.refreshTokens,
    accessTokens: stores.accessTokens,
    spentIds: stores.spentIds,
    userChanges: stores.userChanges,
    throttle: stores.throttle,
    async close() {
      stores.close();
      // A clean QUIT, unless Redis is away (then the socket is dropped after a second).
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => {
          resolve('late');
        }, 1000);
      });
      const closed = client.close().then(
        () => 'closed' as const,
        () => 'late' as const,
      );
      if ((await Promise.race([closed, late])) === 'late') client.destroy();
      clearTimeout(timer);
    },
  };
}
