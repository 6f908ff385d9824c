/**
 * The example's users on Redis, so that every instance of the example sees one user
 * table: a small `UserRepository` of the app's own (not part of portcullis), one hash
 * per user under its own prefix (`example:users:<username>`: `password`, `roles`,
 * `authorities`, JSON arrays). A password change is a compare-and-set run as one
 * Lua script, so two instances changing the same password cannot both win.
 *
 * With `seeds`, the demo users are created whenever the table is found unseeded (the
 * marker key `<prefix>seeded` absent: the first start, or a Redis without persistence
 * that came back empty), before any lookup answers, so a wiped Redis never reads as
 * "this user is gone" (which would revoke the user's sessions).
 *
 * The user keys are the application's data, not security state: they have no TTL.
 * Every call has a deadline; past it, or with Redis unreachable, it throws
 * `StoreUnavailableError` and the request fails closed (503 with `Retry-After`).
 */
import { StoreUnavailableError, User, type UserRepository } from 'portcullis';
import type { RedisClientLike } from 'portcullis/redis';

/** A user to seed: username, password already encoded, roles, authorities. */
export interface SeedUser {
  readonly username: string;
  readonly encodedPassword: string;
  readonly roles: readonly string[];
  readonly authorities: readonly string[];
}

/** Options of {@link RedisUserRepository}. */
export interface RedisUserRepositoryOptions {
  /** The connected node-redis client (shared with the portcullis stores). */
  readonly client: RedisClientLike;
  /** The start of every user key. @defaultValue `'example:users:'` */
  readonly prefix?: string;
  /** The deadline of each command, in milliseconds. @defaultValue `1000` */
  readonly timeoutMs?: number;
  /** Users created, when absent, whenever the table is unseeded. @defaultValue none */
  readonly seeds?: readonly SeedUser[];
}

// Sets the password only while the stored one is still ARGV[1]: 1 when set, 0 when not.
const CHANGE_PASSWORD = `
if redis.call('HGET', KEYS[1], 'password') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'password', ARGV[2])
  return 1
end
return 0`;

// The user's fields, or -1 when the table was never seeded (KEYS[2], the marker, absent).
const FIND_SEEDED = `
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
return redis.call('HGETALL', KEYS[1])`;

// Creates the user when the key does not exist: 1 when created, 0 when it was there.
const CREATE_IF_ABSENT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'password', ARGV[1], 'roles', ARGV[2], 'authorities', ARGV[3])
return 1`;

/** Seconds a client waits before retrying when the user table cannot be read. */
const RETRY_AFTER_SECONDS = 2;

/**
 * Users kept in Redis hashes, readable by every instance.
 *
 * @example
 * ```ts
 * const seeds = [{ username: 'user', encodedPassword, roles: ['USER'], authorities: [] }];
 * const users = new RedisUserRepository({ client, seeds });
 * await users.seed();
 * const auth = new RepositoryAuthenticator({ users, passwordEncoder, userChanges: stores.userChanges });
 * ```
 */
export class RedisUserRepository implements UserRepository {
  readonly #client: RedisClientLike;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #seeds: readonly SeedUser[] | undefined;
  #seeding: Promise<void> | undefined;

  constructor(options: RedisUserRepositoryOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? 'example:users:';
    this.#timeoutMs = options.timeoutMs ?? 1000;
    this.#seeds = options.seeds;
  }

  /** The user stored under exactly this username, or `null`. */
  async findByUsername(username: string): Promise<User | null> {
    let reply = await this.#find(username);
    if (reply === -1) {
      await this.#seedOnce();
      reply = await this.#find(username);
    }
    const fields = fieldsOf(reply);
    const password = fields.get('password');
    if (password === undefined) return null;
    return User.withEncodedPassword(username, password)
      .withRoles(listOf(fields.get('roles')))
      .withAuthorities(listOf(fields.get('authorities')));
  }

  /**
   * Replaces the password while the stored one is still `user.password` (a
   * compare-and-set); the updated user, or `null` when it changed meanwhile.
   */
  async updatePassword(user: User, newEncodedPassword: string): Promise<User | null> {
    const changed = await this.#send('update-password', [
      'EVAL',
      CHANGE_PASSWORD,
      '1',
      this.#key(user.username),
      user.password,
      newEncodedPassword,
    ]);
    return changed === 1 ? user.withEncodedPassword(newEncodedPassword) : null;
  }

  /**
   * Creates each seed user that is not stored yet (a user already there is left as
   * it is), then marks the table seeded; answers how many were created.
   */
  async seed(): Promise<number> {
    let created = 0;
    for (const user of this.#seeds ?? []) {
      const reply = await this.#send('seed-user', [
        'EVAL',
        CREATE_IF_ABSENT,
        '1',
        this.#key(user.username),
        user.encodedPassword,
        JSON.stringify(user.roles),
        JSON.stringify(user.authorities),
      ]);
      if (reply === 1) created++;
    }
    await this.#send('seed-user', ['SET', this.#seededKey(), '1']);
    return created;
  }

  #find(username: string): Promise<unknown> {
    const key = this.#key(username);
    return this.#seeds === undefined
      ? this.#send('find-user', ['HGETALL', key])
      : this.#send('find-user', ['EVAL', FIND_SEEDED, '2', key, this.#seededKey()]);
  }

  /** One seeding at a time: concurrent lookups of an unseeded table wait for the same one. */
  async #seedOnce(): Promise<void> {
    this.#seeding ??= this.seed().then(
      () => {
        this.#seeding = undefined;
      },
      (error: unknown) => {
        this.#seeding = undefined;
        throw error;
      },
    );
    await this.#seeding;
  }

  #key(username: string): string {
    return `${this.#prefix}${username}`;
  }

  #seededKey(): string {
    return `${this.#prefix}seeded`;
  }

  async #send(operation: string, args: readonly string[]): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new StoreUnavailableError('redis', operation, RETRY_AFTER_SECONDS));
      }, this.#timeoutMs);
    });
    try {
      return await Promise.race([
        this.#client.sendCommand(args, { timeout: this.#timeoutMs }),
        deadline,
      ]);
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError('redis', operation, RETRY_AFTER_SECONDS, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** HGETALL's reply as a map: a flat array (RESP2) or a map / object (RESP3). */
function fieldsOf(reply: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2)
      fields.set(String(reply[i]), String(reply[i + 1]));
  } else if (reply instanceof Map) {
    for (const [name, value] of reply as Map<unknown, unknown>)
      fields.set(String(name), String(value));
  } else if (typeof reply === 'object' && reply !== null) {
    for (const [name, value] of Object.entries(reply)) fields.set(name, String(value));
  }
  return fields;
}

function listOf(json: string | undefined): string[] {
  if (json === undefined) return [];
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed)
    ? parsed.filter((item): item is string => typeof item === 'string')
    : [];
}
